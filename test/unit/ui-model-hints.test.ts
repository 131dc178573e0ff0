// The footer's hints and the words of top, without Ink.
import { describe, expect, test } from 'vitest';
import { fitHints, keyHints } from '../../src/ui/model/hints.js';
import { counted } from '../../src/ui/model/format.js';
import { helpColumns, helpColumnWidth, helpFor, helpLayout } from '../../src/ui/model/keys.js';
import { cellWidth } from '../../src/text/width.js';
import { availableColumns, sortKeysOf } from '../../src/ui/model/columns.js';
import type { Capabilities, Message } from '../../src/backends/types.js';
import { headersWidth, messageColumns } from '../../src/ui/model/messages.js';
import { previewBody, sendQuestion } from '../../src/ui/model/send-preview.js';
import { promptLines } from '../../src/ui/model/prompt-lines.js';

const PGMQ: Capabilities = {
  archive: true,
  headers: true,
  attributes: false,
  tenants: false,
  maxRetries: false,
  failedState: false,
  unlogged: true,
  jsonBodies: true,
  receiveByRunId: true,
  lastReadAt: true,
  groups: true,
  groupedHead: true,
  topics: true,
  notifyInsert: true,
  notifyCapitals: true,
  setVtAt: true,
  popQty: true,
};

describe('fitHints', () => {
  test('wide: every hint; 80 columns: the least useful go and ? help, q quit stay', () => {
    const hints = keyHints('list', false, true);
    expect(fitHints(hints, 200)).toBe(hints.map((h) => h.text).join(' · '));
    const at80 = fitHints(hints, 80);
    expect(at80.length).toBeLessThanOrEqual(80);
    expect(at80).toMatch(/^↑↓ move · Enter open · \/ filter .*· \? help · q quit$/);
    expect(at80).not.toContain('+/- interval');
  });

  test('too narrow for anything else: only the kept hints, never cut', () => {
    expect(fitHints(keyHints('queue', false, true), 10)).toBe('Esc back · ? help · ^C quit');
    expect(fitHints(keyHints('list', true, false), 20)).toBe('? help · q quit');
  });

  test('read-only: no action hints', () => {
    const text = fitHints(keyHints('queue', true, true), 300);
    // A (browse the archive) reads only and stays; a (archive a message) goes.
    expect(text).not.toMatch(/delete|a archive|purge|send|visible|m move|u restore/);
  });
});

test('counted: one queue, two queues, zero messages', () => {
  expect(counted(1, 'queue')).toBe('1 queue');
  expect(counted(2, 'queue')).toBe('2 queues');
  expect(counted(0, 'message')).toBe('0 messages');
  // As the question before it says it: "Delete 100,000 messages?" was answered "deleted 100000 messages".
  expect(counted(100_000, 'message')).toBe('100,000 messages');
});

describe('help', () => {
  test('sort keys: only the columns there are (no F or E on pgmq; F, E on a SmoothMQ file with tenants)', () => {
    const pgmq = helpFor('list', {
      readOnly: false,
      archive: true,
      failedState: false,
      sortKeys: sortKeysOf(availableColumns(PGMQ, false)),
    });
    expect(pgmq.find((e) => e.what.startsWith('sort by name'))).toEqual({
      keys: 'N R I D T O A',
      what: 'sort by name, ready, in flight, delayed, total, oldest, archived',
    });
    const sqlite = sortKeysOf(availableColumns({ ...PGMQ, archive: false, failedState: true, tenants: true }, true)).map((k) => k.key);
    expect(sqlite).toEqual(['E', 'N', 'R', 'I', 'D', 'T', 'O', 'F']);
  });

  test('help too tall for the screen goes into balanced columns, every key kept', () => {
    const entries = helpFor('queue', { readOnly: false, archive: true, failedState: false });
    expect(helpColumns(entries, 100)).toEqual([entries]);
    const cols = helpColumns(entries, 15);
    expect(cols.length).toBe(2);
    expect(cols.flat()).toEqual(entries);
    expect(Math.abs(cols[0]!.length - cols[1]!.length)).toBeLessThanOrEqual(1);
  });

  test('help wider than the screen: fewer columns, every entry whole, taller than the screen (it scrolls)', () => {
    const entries = helpFor('queue', { readOnly: false, archive: true, failedState: false });
    const wide = helpLayout(entries, 15, 200);
    expect(wide.columns.length).toBeGreaterThan(1);
    expect(wide.lines).toBeLessThanOrEqual(15);
    for (const width of [100, 80, 60]) {
      const layout = helpLayout(entries, 10, width);
      expect(layout.columns.reduce((sum, c) => sum + helpColumnWidth(c), 0) - 2, `${width}`).toBeLessThanOrEqual(width);
      expect(layout.lines).toBeGreaterThan(10);
      expect(
        layout.columns
          .flat()
          .map((e) => e.keys)
          .filter((k) => k !== ''),
        `${width}`,
      ).toEqual(entries.map((e) => e.keys));
    }
    // Narrower than one entry: its words go on over more lines, no word lost.
    const narrow = helpLayout(entries, 10, 40);
    expect(narrow.columns).toHaveLength(1);
    expect(narrow.columns[0]!.every((e) => cellWidth(e.keys) + 2 + cellWidth(e.what) + 2 <= 40)).toBe(true);
    expect(narrow.columns[0]!.map((e) => e.what).join(' ')).toBe(entries.map((e) => e.what).join(' '));
  });

  // 80 x 24 leaves the help 15 lines: side by side with every entry whole it is wider than 80,
  // and wrapped it is taller than 15. One column made it scroll, the keys below the 15th out
  // of sight (CI's top-screen test caught it): every key stays on screen, the longest words cut.
  test('80 columns, 15 lines: every key of the queue view on screen at once, in two columns', () => {
    const entries = helpFor('queue', { readOnly: false, archive: true, failedState: false });
    const layout = helpLayout(entries, 15, 80);
    expect(layout.lines).toBeLessThanOrEqual(15);
    expect(layout.columns).toHaveLength(2);
    expect(layout.cut).toBe(true);
    expect(layout.columns.flat().map((e) => e.keys)).toEqual(entries.map((e) => e.keys));
    // Where wrapped words fit (a shorter list), they are wrapped, not cut.
    const some = entries.slice(0, 14);
    const wrapped = helpLayout(some, 15, 80);
    expect(wrapped.cut).toBeUndefined();
    expect(wrapped.lines).toBeLessThanOrEqual(15);
    expect(
      wrapped.columns
        .flat()
        .map((e) => e.what)
        .join(' '),
    ).toBe(some.map((e) => e.what).join(' '));
  });

  test('the queue view lists both jump keys', () => {
    expect(helpFor('queue', { readOnly: false, archive: true, failedState: false }).map((e) => e.keys)).toContain('# / i');
  });
});

describe('the queue view columns', () => {
  const m = (headers: Record<string, unknown> | null): Message => ({
    id: 1n,
    state: 'ready',
    readCount: 0,
    enqueuedAt: null,
    visibleAt: new Date(0),
    lastReadAt: null,
    body: '{}',
    headers,
  });

  test('HEADERS: none on the page, no column (BODY gets the width); otherwise as wide as they are, at most 24', () => {
    expect(headersWidth([m(null), m({})], PGMQ)).toBe(0);
    const none = messageColumns(78, PGMQ, 2, 0);
    expect(none.map((c) => c.id)).not.toContain('headers');
    expect(none.at(-1)).toMatchObject({ id: 'body', width: 78 - (2 + 9 + 5 + 7 + 9 + 5) });
    expect(headersWidth([m({ k: 'v' })], PGMQ)).toBe(7); // the title's width
    expect(headersWidth([m({ trace: 'abcdefghij' })], PGMQ)).toBe('trace=abcdefghij'.length);
    expect(headersWidth([m({ trace: 'x'.repeat(100) })], PGMQ)).toBe(24);
  });
});

describe('send preview', () => {
  test('JSON where the store keeps JSON: refused before sending when it is not', () => {
    expect(previewBody('{"a": 1, "b": [1]}', true)).toEqual({
      ok: true,
      body: '{"a": 1, "b": [1]}',
      what: 'JSON object, 2 keys',
      bytes: 18,
    });
    expect(previewBody('  ', true)).toEqual({ ok: false, problem: 'nothing sent: the body was empty' });
    const bad = previewBody('{"a":', true);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problem).toMatch(/^nothing sent: the body is not valid JSON \(.+\); pgmq stores jsonb$/);
    // Shown as typed: a number JSON.parse would round stays whole.
    expect(previewBody('{"id": 12345678901234567890}', true)).toMatchObject({ ok: true, body: '{"id": 12345678901234567890}' });
  });

  test('text where the store keeps text; control characters escaped; the question fits the width', () => {
    expect(previewBody('hello\u001b[31m', false)).toMatchObject({ ok: true, what: 'text', body: 'hello\\e[31m' });
    const p = previewBody(JSON.stringify({ long: 'x'.repeat(500) }), true);
    if (!p.ok) throw new Error('expected a preview');
    const [q, ...more] = promptLines(sendQuestion(p, 'orders'), 80, 1).lines;
    expect(more).toEqual([]);
    expect(q).toMatch(/^Send to orders: \{"long":"x+… \(JSON object, 1 key, 511 bytes\)\? \[y\/N\]$/);
    expect(q!.length).toBeLessThanOrEqual(80);
    // With lines to spare, the body wraps and shows whole.
    const lines = promptLines(sendQuestion(p, 'orders'), 80, 10).lines;
    expect(lines.join('')).toContain('x'.repeat(500));
  });
});

describe('the body section counts the stored bytes', () => {
  test('a body that is not UTF-8 (its text has U+FFFD) is counted as stored, not as decoded', async () => {
    const { bodySection } = await import('../../src/ui/model/messages.js');
    // Stored bytes 62 61 64 1b 5b 32 4a 0d 78 ff: 10; decoded with U+FFFD: 12.
    expect(bodySection('bad\u001b[2J\rx\ufffd', 10)[1]).toBe('body, 10 bytes:');
    expect(bodySection('bad\u001b[2J\rx\ufffd')[1]).toBe('body, 12 bytes:');
  });
});

describe('a body in a table row', () => {
  test('line breaks and tabs read as spaces; a carriage return alone is shown, as the detail and the README say', async () => {
    const { bodyPreview } = await import('../../src/ui/model/format.js');
    // Before, `x\ty\rz` read `x y z`: the \r that rewinds a terminal line looked like a space.
    expect(bodyPreview('line1\nline2\r\nx\ty\rz')).toBe('line1 line2 x y\\rz');
    expect(bodyPreview('bad\u001b[2J\rx\ufffd')).toBe('bad\\e[2J\\rx\ufffd');
  });
});
