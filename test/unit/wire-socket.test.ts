// wire-socket.ts's framing: a tester worker's socket reads into one buffer that the next read
// overwrites, so the protocol parser must get whole messages only and keep nothing of a read.
// Here every cut of a reply stream, read through one reused buffer, gives the messages that
// parsing it whole gives.
import type { BackendMessage } from 'pg-protocol/dist/messages.js';
import { Parser } from 'pg-protocol/dist/parser.js';
import { describe, expect, test, vi } from 'vitest';
import { wholeMessages } from '../../src/backends/pgmq/wire-socket.js';

const frame = (type: string, body: Buffer): Buffer => {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
};
const dataRow = (...fields: (string | null)[]): Buffer => {
  const parts: Buffer[] = [Buffer.from([fields.length >> 8, fields.length & 0xff])];
  for (const f of fields) {
    const len = Buffer.alloc(4);
    if (f === null) len.writeInt32BE(-1);
    else len.writeInt32BE(Buffer.byteLength(f));
    parts.push(len);
    if (f !== null) parts.push(Buffer.from(f));
  }
  return frame('D', Buffer.concat(parts));
};
const commandComplete = (tag: string) => frame('C', Buffer.from(`${tag}\0`));
const readyForQuery = () => frame('Z', Buffer.from('I'));
const bindComplete = () => frame('2', Buffer.alloc(0));

/** What a fresh parser makes of the bytes given whole, as plain data. */
function parsedWhole(bytes: Buffer): unknown[] {
  const out: unknown[] = [];
  new Parser().parse(Buffer.from(bytes), (m) => out.push({ ...m }));
  return out;
}

/** The same bytes read in pieces of the given sizes through one buffer that each read overwrites. */
function parsedInReads(bytes: Buffer, sizes: (i: number) => number): unknown[] {
  const out: unknown[] = [];
  const feed = wholeMessages(new Parser(), (m: BackendMessage) => out.push({ ...m }));
  const reused = Buffer.alloc(64 * 1024);
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = Math.min(sizes(i), bytes.length - at, reused.length);
    bytes.copy(reused, 0, at, at + n);
    feed(reused.subarray(0, n));
    reused.fill(0xee); // the next read overwrites what this one brought
    at += n;
  }
  return out;
}

const replies = Buffer.concat([
  bindComplete(),
  dataRow('42', '{"r":"run","s":1}', null, '2026-12-06 21:00:00.123456+00'),
  commandComplete('SELECT 1'),
  readyForQuery(),
  bindComplete(),
  dataRow('43', 'é'.repeat(40_000), '1'), // longer than one read
  dataRow('44', 'x'.repeat(200_000)), // longer than the socket's buffer
  commandComplete('SELECT 2'),
  readyForQuery(),
]);

describe('wholeMessages', () => {
  test('a short reply cut at any one byte gives the messages of that reply parsed whole', () => {
    const small = Buffer.concat([bindComplete(), dataRow('1', 'ab'), commandComplete('SELECT 1'), readyForQuery()]);
    const whole = parsedWhole(small);
    expect(whole).toHaveLength(4);
    for (let cut = 1; cut < small.length; cut++) {
      expect(parsedInReads(small, (i) => (i === 0 ? cut : small.length))).toEqual(whole);
    }
  });

  test('reads of any size, down to one byte, through one reused buffer', () => {
    const whole = parsedWhole(replies);
    for (const size of [1, 2, 3, 4, 5, 6, 7, 13, 100, 4096, 65_536]) {
      expect(parsedInReads(replies, () => size)).toEqual(whole);
    }
    // Uneven reads, as a socket gives them.
    const sizes = [3, 1, 700, 5, 9_000, 2, 65_536, 17];
    expect(parsedInReads(replies, (i) => sizes[i % sizes.length]!)).toEqual(whole);
  });

  test('random reads (seeded) over a run of short and long messages', () => {
    const mixed = Buffer.concat(
      Array.from({ length: 60 }, (_, i) =>
        i % 3 === 0 ? dataRow(String(i), 'v'.repeat((i * 37) % 700)) : i % 3 === 1 ? bindComplete() : readyForQuery(),
      ),
    );
    const whole = parsedWhole(mixed);
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let run = 0; run < 200; run++) expect(parsedInReads(mixed, () => 1 + (next() % 300))).toEqual(whole);
  });

  test('a large row over many reads is copied once into a buffer of its size, not joined again at every read', () => {
    const big = Buffer.concat([dataRow('1', 'y'.repeat(5_000_000)), readyForQuery()]);
    const joins = vi.spyOn(Buffer, 'concat');
    try {
      const out = parsedInReads(big, () => 65_536);
      // 77 reads; joined at each, the row would be copied about 77 times over (190 MB).
      expect(joins).not.toHaveBeenCalled();
      expect(out).toEqual(parsedWhole(big));
    } finally {
      joins.mockRestore();
    }
  });
});
