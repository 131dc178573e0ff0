// smq send's pure parts: the id list written batch by batch, the batches and their failure
// line, --skip, and the screen that spares bodies the server's jsonb check.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { screenBody, SURE_DEPTH } from '../../src/backends/pgmq/jsonb-screen.js';
import type { MessageId, SendInput } from '../../src/backends/types.js';
import { afterSkip } from '../../src/commands/send.js';
import { sendInBatches } from '../../src/commands/send-batches.js';
import { idWriter } from '../../src/commands/send-output.js';
import { SmqError } from '../../src/errors.js';
import { toJsonDocument, toJsonLine } from '../../src/output/json.js';
import { renderTable } from '../../src/output/table.js';

const sink = () => {
  let text = '';
  return { out: { write: (s: string) => (text += s) }, text: () => text };
};

describe('idWriter', () => {
  const ids = (n: number, from = 1n) => Array.from({ length: n }, (_, i) => from + BigInt(i));
  test.each([0, 1, 3])('json: the same document as the whole list at once (%i ids, in batches)', (n) => {
    const s = sink();
    const w = idWriter(s.out, 'json');
    const all = ids(n);
    w.write(all.slice(0, 1));
    w.write(all.slice(1));
    w.end();
    expect(s.text()).toBe(toJsonDocument(all.map((id) => ({ id: id.toString() }))));
    expect(JSON.parse(s.text())).toHaveLength(n);
  });
  test('ndjson: one line per id as it comes; table: the header and right-aligned ids', () => {
    const s = sink();
    const w = idWriter(s.out, 'ndjson');
    w.write([7n]);
    expect(s.text()).toBe(toJsonLine({ id: '7' }));
    w.write([8n, 9n]);
    w.end();
    expect(s.text()).toBe(['7', '8', '9'].map((id) => toJsonLine({ id })).join(''));
    const t = sink();
    const tw = idWriter(t.out, 'table');
    tw.write([5n, 10n]);
    tw.write([11n]);
    tw.end();
    expect(t.text()).toBe(renderTable([{ header: 'ID', align: 'right' }], [['5'], ['10'], ['11']], {}));
  });
});

describe('sendInBatches', () => {
  const messages = (n: number, firstLine = 1) =>
    Array.from({ length: n }, (_, i) => ({ line: firstLine + i, message: { body: String(i) } }));
  /** A store that takes `okBatches` batches and then fails with `error`. */
  const store = (okBatches: number, error: unknown) => {
    let calls = 0;
    let next = 1n;
    const sizes: number[] = [];
    return {
      sizes,
      sendBatch: async (_q: string, ms: readonly SendInput[]): Promise<MessageId[]> => {
        sizes.push(ms.length);
        if (calls++ >= okBatches) throw error;
        return ms.map(() => next++);
      },
    };
  };

  test('each batch reported once stored; a server error after 2 batches names the count, the line and --skip', async () => {
    const s = store(2, new SmqError('database', 'database error 53100: No space left on device'));
    const seen: MessageId[] = [];
    const err = await sendInBatches(s, 'q', messages(1200, 11), {
      atomic: false,
      skipped: 10,
      onStored: (ids) => seen.push(...ids),
      batchSize: 500,
    }).catch((e: unknown) => e);
    expect(seen).toHaveLength(1000);
    expect(s.sizes).toEqual([500, 500, 200]);
    expect(err).toBeInstanceOf(SmqError);
    expect((err as SmqError).exitCode).toBe(1);
    expect((err as SmqError).line()).toBe(
      'database error 53100: No space left on device; sent 1000 of 1200 messages, up to line 1010 of stdin (their ids are on stdout): resume with --skip 1010',
    );
  });

  test('a lost connection: the batch in flight may be stored, and the line says so', async () => {
    const lost = new SmqError('connection', 'lost the connection to postgres://u:***@h/db: Connection terminated unexpectedly', {
      hint: 'check that it is running',
    });
    const err = (await sendInBatches(store(1, lost), 'q', messages(800), {
      atomic: false,
      skipped: 0,
      onStored: () => {},
      batchSize: 500,
    }).catch((e: unknown) => e)) as SmqError;
    expect(err.line()).toMatch(
      /sent 500 of 800 messages, up to line 500 of stdin.*lines 501-800 got no answer and may be stored too: check that it is running, then resume with --skip 500, or with --skip 800 if 'smq peek' shows lines 501-800 stored/,
    );
  });

  test('nothing stored: the --skip given is the resume point; --atomic sends one batch and says nothing was sent', async () => {
    const e1 = (await sendInBatches(store(0, new SmqError('database', 'boom')), 'q', messages(3, 8), {
      atomic: false,
      skipped: 7,
      onStored: () => {},
    }).catch((e: unknown) => e)) as SmqError;
    expect(e1.line()).toBe('boom; nothing was sent: resume with --skip 7');
    const s = store(0, new SmqError('database', 'boom'));
    const e2 = (await sendInBatches(s, 'q', messages(1200), { atomic: true, skipped: 0, onStored: () => {} }).catch(
      (e: unknown) => e,
    )) as SmqError;
    expect(s.sizes).toEqual([1200]);
    expect(e2.line()).toMatch(/^boom; nothing was sent \(--atomic/);
  });
});

describe('afterSkip', () => {
  const lines = [
    { line: 2, text: 'a' },
    { line: 3, text: 'b' },
    { line: 5, text: 'c' },
  ];
  test('skips by line number of stdin, blank lines counted', () => {
    expect(afterSkip(lines, 0)).toEqual(lines);
    expect(afterSkip(lines, 3)).toEqual([{ line: 5, text: 'c' }]);
    expect(afterSkip(lines, 4)).toEqual([{ line: 5, text: 'c' }]);
    expect(() => afterSkip(lines, 5)).toThrow(/nothing to send after line 5 of stdin \(its last message is on line 5\)/);
  });
});

describe('screenBody: sure only far from every jsonb limit', () => {
  test.each([
    ['{"a":"\\u0000"}', false],
    ['{"\\u0000":1}', false],
    ['"\\ud800"', false],
    ['"\\uDC00"', false],
    ['"\\ud83d\\ude00"', false], // paired: fine for jsonb, but left to the server
    ['1e5', false],
    ['[1E-5]', false],
    ['1' + '0'.repeat(1000), false],
    ['['.repeat(SURE_DEPTH + 1) + ']'.repeat(SURE_DEPTH + 1), false],
    ['{"a":', false], // not JSON
    ['['.repeat(SURE_DEPTH) + ']'.repeat(SURE_DEPTH), true],
    ['{"e":true,"f":false,"n":null,"x":-0.5,"s":"1e5 [[[ \\" \\\\"}', true],
    ['"\\\\ud800"', false], // an escaped backslash and "ud800": harmless, but the screen does not tell
  ])('case %#', (text, sure) => {
    expect(screenBody(text).sure).toBe(sure);
  });
  test('ascii tells whether any database encoding holds it', () => {
    expect(screenBody('"é"')).toEqual({ sure: true, ascii: false });
    expect(screenBody('"\\u00e9"')).toEqual({ sure: true, ascii: false });
    expect(screenBody('"\\u007f"')).toEqual({ sure: true, ascii: true });
  });
  test('never sure of what JSON.parse refuses', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        let valid = true;
        try {
          JSON.parse(s);
        } catch {
          valid = false;
        }
        if (!valid) expect(screenBody(s).sure).toBe(false);
      }),
      { numRuns: 5_000 },
    );
  });
});
