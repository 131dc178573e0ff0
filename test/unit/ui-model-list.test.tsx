import { describe, expect, test } from 'vitest';
import type { QueueStats } from '../../src/backends/types.js';
import { PGMQ_CAPABILITIES, SQLITE_CAPABILITIES } from '../helpers/ui/fake-backend.js';
import { applyQueueStats, EMPTY_ROWS, rowNamed, type QueueRow } from '../../src/ui/model/rows.js';
import { compileFilter, filterRows, shiftSort, sortBy, sortRows, columnForSortKey } from '../../src/ui/model/sort.js';
import { availableColumns, columnSpec, columnWidth, layoutColumns, COLUMN_GAP } from '../../src/ui/model/columns.js';
import { decodeDriverName, encodeDriverName } from '../../src/ui/model/names.js';
import { recordDepths, sparkline } from '../../src/ui/model/history.js';
import { snapshotJson, snapshotTable } from '../../src/ui/model/snapshot.js';
import { queueRecord, queueTable } from '../../src/output/records.js';

const PGMQ_CAPS = PGMQ_CAPABILITIES;
const SQLITE_CAPS = SQLITE_CAPABILITIES;

function rows(...qs: Partial<QueueStats>[]): QueueRow[] {
  const full = qs.map((q, i): QueueStats => ({
    name: `q${i}`,
    ready: 0,
    inFlight: 0,
    delayed: 0,
    total: 0,
    oldestAgeSec: null,
    newestAgeSec: null,
    estimated: false,
    ...q,
  }));
  return [...applyQueueStats(EMPTY_ROWS, full, 0).rows];
}

describe('sorting', () => {
  const list = rows(
    { name: 'beta', ready: 5, total: 5, oldestAgeSec: 3 },
    { name: 'alpha', ready: 9, total: 9, oldestAgeSec: null },
    { name: 'gamma', ready: 1, total: 1, oldestAgeSec: 100 },
  );

  test('by name ascending, by count descending by default', () => {
    expect(sortRows(list, { column: 'name', desc: false }).map((r) => r.name)).toEqual(['alpha', 'beta', 'gamma']);
    const byReady = sortBy({ column: 'name', desc: false }, 'ready');
    expect(byReady).toEqual({ column: 'ready', desc: true });
    expect(sortRows(list, byReady).map((r) => r.name)).toEqual(['alpha', 'beta', 'gamma']);
    expect(sortRows(list, sortBy(byReady, 'ready')).map((r) => r.name)).toEqual(['gamma', 'beta', 'alpha']);
  });

  test('empty values sort last in either direction', () => {
    expect(sortRows(list, { column: 'oldest', desc: true }).map((r) => r.name)).toEqual(['gamma', 'beta', 'alpha']);
    expect(sortRows(list, { column: 'oldest', desc: false }).map((r) => r.name)).toEqual(['beta', 'gamma', 'alpha']);
  });

  test('ties are broken by name so rows stay put', () => {
    const tied = rows({ name: 'b', total: 1 }, { name: 'a', total: 1 }, { name: 'c', total: 1 });
    expect(sortRows(tied, { column: 'total', desc: true }).map((r) => r.name)).toEqual(['a', 'b', 'c']);
  });

  test('< and > walk the visible columns and wrap', () => {
    const visible = ['name', 'ready', 'total'] as const;
    expect(shiftSort({ column: 'name', desc: false }, visible, 1)).toEqual({ column: 'ready', desc: true });
    expect(shiftSort({ column: 'name', desc: false }, visible, -1)).toEqual({ column: 'total', desc: true });
    expect(shiftSort({ column: 'archived', desc: false }, visible, 1).column).toBe('name');
  });

  test('column keys only reach visible columns', () => {
    expect(columnForSortKey('R', ['name', 'ready'])).toBe('ready');
    expect(columnForSortKey('A', ['name', 'ready'])).toBeUndefined();
  });
});

describe('filtering', () => {
  const list = rows({ name: 'orders' }, { name: 'Order_events' }, { name: 'payments' });

  test('regex, case-insensitive', () => {
    const f = compileFilter('^order');
    expect(f.ok).toBe(true);
    expect(filterRows(list, f).map((r) => r.name)).toEqual(['orders', 'Order_events']);
    expect(filterRows(list, compileFilter('ments$')).map((r) => r.name)).toEqual(['payments']);
  });

  test('an invalid regex is reported, not thrown, and hides nothing', () => {
    const f = compileFilter('(unclosed');
    expect(f.ok).toBe(false);
    if (!f.ok) expect(f.error).toMatch(/unterminated group/i);
    expect(filterRows(list, f)).toHaveLength(3);
  });

  test('empty filter matches everything', () => {
    expect(filterRows(list, compileFilter(''))).toHaveLength(3);
  });
});

describe('columns for the terminal width', () => {
  test('pgmq has ARCHIVED, SmoothMQ FAILED; TENANT only when asked', () => {
    expect(availableColumns(PGMQ_CAPS, false)).toContain('archived');
    expect(availableColumns(PGMQ_CAPS, false)).not.toContain('failed');
    expect(availableColumns(SQLITE_CAPS, false)).toContain('failed');
    expect(availableColumns(SQLITE_CAPS, false)).not.toContain('tenant');
    expect(availableColumns(SQLITE_CAPS, true)[0]).toBe('tenant');
  });

  const width = (cols: ReturnType<typeof layoutColumns>) => cols.reduce((s, c) => s + c.width, 0) + COLUMN_GAP * (cols.length - 1);

  test('120 columns: everything fits', () => {
    const cols = layoutColumns(availableColumns(PGMQ_CAPS, false), 120);
    expect(cols.map((c) => c.spec.id)).toEqual(availableColumns(PGMQ_CAPS, false));
    expect(width(cols)).toBeLessThanOrEqual(120);
  });

  test('80 columns: the sparkline and ARCHIVED go first, the counts stay', () => {
    const cols = layoutColumns(availableColumns(PGMQ_CAPS, false), 80);
    const ids = cols.map((c) => c.spec.id);
    expect(ids).not.toContain('spark');
    expect(ids).not.toContain('archived');
    expect(ids).toEqual(expect.arrayContaining(['name', 'ready', 'inFlight', 'total', 'in', 'out']));
    expect(width(cols)).toBeLessThanOrEqual(80);
  });

  test('sort arrows never cut a title: every sortable column is one wider than its title', () => {
    for (const id of availableColumns({ ...SQLITE_CAPS, archive: true }, true)) {
      const spec = columnSpec(id);
      if (spec.sortKey) expect(columnWidth(id)).toBeGreaterThanOrEqual(spec.title.length + 1);
    }
    expect(columnWidth('inFlight')).toBe('IN FLIGHT▼'.length);
  });

  test('NAME is as wide as the longest name, not padded; short names leave room for more columns at 80', () => {
    const wide = layoutColumns(availableColumns(PGMQ_CAPS, false), 200, 5);
    expect(wide.find((c) => c.spec.id === 'name')!.width).toBe(5);
    expect(layoutColumns(availableColumns(PGMQ_CAPS, false), 200, 30).find((c) => c.spec.id === 'name')!.width).toBe(30);
    expect(layoutColumns(availableColumns(PGMQ_CAPS, false), 200, 300).find((c) => c.spec.id === 'name')!.width).toBe(48);
    const at80 = layoutColumns(availableColumns(PGMQ_CAPS, false), 78, 5).map((c) => c.spec.id);
    expect(at80).toContain('archived');
  });

  test('the sparkline gives up width before a name is cut: a 16-character name whole at 120 and 97 columns with GROUPS and NOTIFY', () => {
    const ids = availableColumns({ ...PGMQ_CAPS, groups: true, notifyInsert: true }, false, true);
    expect(ids).toEqual(expect.arrayContaining(['groups', 'notify', 'spark']));
    // The longest name of all queues is 30 wide; the screen (118 and 95 after the gutter) is not.
    for (const total of [118, 95]) {
      const cols = layoutColumns(ids, total, 30);
      expect(cols.find((c) => c.spec.id === 'name')!.width, `at ${total}`).toBeGreaterThanOrEqual(20);
      expect(width(cols)).toBeLessThanOrEqual(total);
    }
    const spark = layoutColumns(ids, 118, 30).find((c) => c.spec.id === 'spark');
    if (spark) expect(spark.width).toBeGreaterThanOrEqual(8);
  });

  test('with GROUPS and NOTIFY at 120 columns, a 20-character name stays whole and the sparkline narrows instead of going', () => {
    const ids = availableColumns({ ...PGMQ_CAPS, groups: true, notifyInsert: true }, false, true);
    const cols = layoutColumns(ids, 118, 20);
    expect(cols.find((c) => c.spec.id === 'name')!.width).toBe(20);
    expect(cols.find((c) => c.spec.id === 'spark')?.width ?? 0).toBeGreaterThanOrEqual(8);
    expect(width(cols)).toBeLessThanOrEqual(118);
  });

  test('very narrow: NAME and the most important counts remain', () => {
    const ids = layoutColumns(availableColumns(SQLITE_CAPS, true), 40).map((c) => c.spec.id);
    expect(ids).toContain('name');
    expect(ids).toContain('ready');
    expect(ids.length).toBeLessThan(6);
  });
});

describe('a queue named by a topic binding', () => {
  const named = (...names: string[]) => rows(...names.map((name) => ({ name })));

  test('the exact name wins over one that differs only in case', () => {
    const list = named('orders', 'Orders', 'payments');
    expect(rowNamed(list, 'Orders')?.rawName).toBe('Orders');
    expect(rowNamed(list, 'orders')?.rawName).toBe('orders');
  });

  test('without an exact match, the first name that differs only in case', () => {
    expect(rowNamed(named('payments', 'Order_Events', 'ORDER_EVENTS'), 'order_events')?.rawName).toBe('Order_Events');
  });

  test('a name the list does not have finds nothing', () => {
    expect(rowNamed(named('orders'), 'order')).toBeUndefined();
    expect(rowNamed(named('orders'), '')).toBeUndefined();
    expect(rowNamed([], 'orders')).toBeUndefined();
  });

  test('the raw name counts, not the name shown', () => {
    const raw = encodeDriverName(7, 'orders');
    const list = named(raw);
    expect(list[0]!.name).toBe('orders');
    expect(rowNamed(list, raw)?.key).toBe(list[0]!.key);
    expect(rowNamed(list, 'orders')).toBeUndefined();
  });
});

describe('pgmq-driver names', () => {
  test('decode what encode makes', () => {
    const raw = encodeDriverName(42, 'émails/ü');
    expect(raw).toMatch(/^tnt_2a_[A-Za-z0-9_-]+$/);
    expect(decodeDriverName(raw)).toEqual({ tenant: '42', name: 'émails/ü' });
  });

  test('ordinary names are not decoded', () => {
    for (const n of ['orders', 'tnt_', 'tnt_zz_abc', 'tnt_1_', 'tnt_1_a', 'tnt_1_abc$']) {
      expect(decodeDriverName(n), n).toBeUndefined();
    }
  });

  test('bytes that are not UTF-8 are not decoded', () => {
    expect(decodeDriverName(`tnt_1_${Buffer.from([0xff, 0xfe]).toString('base64url')}`)).toBeUndefined();
  });

  test('large tenant ids keep every digit', () => {
    expect(decodeDriverName(encodeDriverName(2n ** 62n + 1n, 'q'))?.tenant).toBe(String(2n ** 62n + 1n));
  });
});

describe('depth history and sparkline', () => {
  test('keeps one minute, forgets dropped queues', () => {
    let h = recordDepths(
      new Map(),
      new Map([
        ['a', 1],
        ['b', 2],
      ]),
      0,
    );
    h = recordDepths(h, new Map([['a', 5]]), 30_000);
    h = recordDepths(h, new Map([['a', 9]]), 61_000);
    expect(h.get('a')).toEqual([
      { at: 30_000, depth: 5 },
      { at: 61_000, depth: 9 },
    ]);
    expect(h.has('b')).toBe(false);
  });

  test('newest on the right, scaled to the largest', () => {
    const samples = [
      { at: 1_000, depth: 0 },
      { at: 30_000, depth: 50 },
      { at: 59_000, depth: 100 },
    ];
    const line = sparkline(samples, 6, 60_000);
    expect(line).toHaveLength(6);
    expect(line[0]).toBe('▁');
    expect(line[5]).toBe('█');
    expect(line.trim()).not.toBe('');
    expect(line[1]).toBe(' ');
  });

  test('all zero is a flat line; no samples is blank', () => {
    expect(sparkline([{ at: 59_000, depth: 0 }], 3, 60_000)).toBe('  ▁');
    expect(sparkline([], 4, 60_000)).toBe('    ');
  });
});

describe('snapshot output', () => {
  test('table: aligned, estimates marked, names escaped, no sparkline', () => {
    const list = rows(
      { name: 'orders', ready: 3, total: 3, archived: 2, oldestAgeSec: 75 },
      { name: 'big\u001b[2J', ready: 2_000_000, total: 2_000_000, estimated: true, archived: 0 },
    );
    const text = snapshotTable(list, PGMQ_CAPS);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+READY\s+IN FLIGHT\s+DELAYED\s+TOTAL\s+OLDEST\s+IN\/s\s+OUT\/s\s+ARCHIVED\s+NOTIFY$/);
    expect(lines[1]).toMatch(/^orders\s+3\s+0\s+0\s+3\s+1m15s\s+-\s+-\s+2\s+-$/);
    expect(lines[2]).toContain('big\\e[2J');
    expect(lines[2]).toContain('~2.00M');
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('DEPTH');
  });

  test('JSON: raw numbers and the decoded names', () => {
    const list = rows({ name: encodeDriverName(7, 'jobs'), ready: 1, total: 1 });
    const doc = snapshotJson(list, { at: 0, info: undefined, backend: 'pgmq', location: 'postgres://u:***@h/db' });
    expect(doc.queues[0]).toMatchObject({ name: 'jobs', tenant: '7', rawName: encodeDriverName(7, 'jobs'), ready: 1 });
  });

  test('one JSON shape for a queue: smq queues and top --once write the same keys, in the same order', () => {
    // Changed on purpose (issue 14): smq queues gained inPerSec/outPerSec (null: one listing
    // has no rate) and writes tenant as a string; top gained createdAt and the other stats.
    const stats: QueueStats = {
      name: 'orders',
      tenant: 3,
      ready: 2,
      inFlight: 1,
      delayed: 0,
      failed: 0,
      total: 3,
      oldestAgeSec: 185,
      newestAgeSec: 5,
      estimated: false,
      createdAt: new Date(0),
      maxRetries: 5,
    };
    const listed = queueRecord(stats);
    const [row] = [...applyQueueStats(EMPTY_ROWS, [stats], 0).rows];
    const top = snapshotJson([row!], { at: 0, info: undefined, backend: 'sqlite', location: 'x.db' }).queues[0]!;
    expect(Object.keys(top)).toEqual(Object.keys(listed));
    expect(top).toEqual(listed);
    expect(listed).toEqual({
      name: 'orders',
      tenant: '3',
      ready: 2,
      inFlight: 1,
      delayed: 0,
      failed: 0,
      total: 3,
      oldestAgeSec: 185,
      newestAgeSec: 5,
      estimated: false,
      inPerSec: null,
      outPerSec: null,
      createdAt: '1970-01-01T00:00:00.000Z',
      maxRetries: 5,
    });
  });

  test('one vocabulary and one age format in both tables: IN FLIGHT, 3m05s', () => {
    const list = rows({ name: 'orders', ready: 1, inFlight: 1, total: 2, oldestAgeSec: 185, newestAgeSec: 5 });
    const topLines = snapshotTable(list, PGMQ_CAPS).split('\n');
    const view = queueTable({ failed: false, archived: false, tenant: false });
    expect(topLines[0]).toContain('IN FLIGHT');
    expect(view.columns.map((c) => c.header)).toContain('IN FLIGHT');
    expect(topLines[1]).toContain('3m05s');
    expect(view.row(list[0]!.stats)).toContain('3m05s');
  });
});
