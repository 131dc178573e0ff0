// smq send's stdin reader: bytes in, UTF-8 lines out, or one clear refusal.
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { firstInvalidUtf8, readLines } from '../../src/commands/send.js';
import { SmqError } from '../../src/errors.js';

function stream(...chunks: (Buffer | string)[]): PassThrough {
  const s = new PassThrough();
  for (const c of chunks) s.write(c);
  s.end();
  return s;
}

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const valid = (b: Uint8Array) => {
  try {
    fatal.decode(b);
    return true;
  } catch {
    return false;
  }
};

describe('firstInvalidUtf8', () => {
  test('agrees with a strict decoder, and everything before the position it names is valid', () => {
    // Bytes biased towards the tricky ranges: lead bytes, continuations, surrogates, overlongs.
    const byte = fc.oneof(
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xa0, 0x9f, 0x8f, 0x90),
    );
    fc.assert(
      fc.property(
        fc
          .uint8Array({ maxLength: 12 })
          .chain((prefix) => fc.array(byte, { maxLength: 8 }).map((b) => Buffer.concat([Buffer.from(prefix), Buffer.from(b)]))),
        (buf) => {
          const at = firstInvalidUtf8(buf);
          expect(at === -1).toBe(valid(buf));
          if (at >= 0) expect(valid(buf.subarray(0, at))).toBe(true);
        },
      ),
      { numRuns: 20_000 },
    );
  });

  test('any string encoded as UTF-8 is valid', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        expect(firstInvalidUtf8(Buffer.from(s, 'utf8'))).toBe(-1);
      }),
    );
  });
});

describe('readLines', () => {
  test('non-blank lines with their line numbers; CRLF and a BOM tolerated; chunks split anywhere', async () => {
    const text = Buffer.from('\ufeff{"a":1}\r\n\n  \n"é注"\n"last"', 'utf8');
    // Split inside the multibyte characters too.
    const lines = await readLines(stream(text.subarray(0, 13), text.subarray(13, 21), text.subarray(21)));
    expect(lines).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 4, text: '"é注"' },
      { line: 5, text: '"last"' },
    ]);
  });

  test('bytes that are not UTF-8: one error naming the line and the byte', async () => {
    const err = await readLines(stream('ok\n\nfine\nab', Buffer.from([0xff]), 'c\n')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SmqError);
    expect((err as SmqError).exitCode).toBe(2);
    expect((err as SmqError).message).toBe('line 4 of stdin is not valid UTF-8 (byte 0xff at byte 3 of the line)');
  });
});
