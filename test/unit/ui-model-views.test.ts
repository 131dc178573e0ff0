// top's side views as pure logic: a FIFO group's state (blocked, stalled), the tables' sort,
// filter and widths, what a tested routing key reaches, the views' keys and navigation.
import { describe, expect, test } from 'vitest';
import type { GroupStats } from '../../src/backends/types.js';
import { groupRows, groupState, groupSummary, groupTone, STALLED_READS } from '../../src/ui/model/groups.js';
import { fitColumns, shiftTableSort, sortOn, sortTable, tableFilter, type TableColumn } from '../../src/ui/model/table.js';
import { bindingRows, reachedQueues, routingLine } from '../../src/ui/model/topics.js';
import { viewCommandFor, viewHelp, viewHints } from '../../src/ui/model/view-keys.js';
import { INITIAL_NAVIGATION, navigate, topScreen } from '../../src/ui/model/navigation.js';
import { emptyText, initialPaging } from '../../src/ui/model/paging.js';
import { availableColumns } from '../../src/ui/model/columns.js';
import { fitHints, keyHints } from '../../src/ui/model/hints.js';
import { commandFor, helpFor } from '../../src/ui/model/keys.js';

const group = (over: Partial<GroupStats>): GroupStats => ({
  group: 'g',
  ready: 1,
  inFlight: 0,
  delayed: 0,
  headId: 1n,
  headState: 'ready',
  headReadCount: 0,
  ...over,
});

describe('FIFO group state', () => {
  test('ready, delayed, blocked (head in flight), stalled (head read STALLED_READS times or more, in flight or not)', () => {
    expect(groupState(group({}))).toBe('ready');
    expect(groupState(group({ headState: 'delayed' }))).toBe('delayed');
    expect(groupState(group({ headState: 'inflight', headReadCount: 1 }))).toBe('blocked');
    expect(groupState(group({ headState: 'inflight', headReadCount: STALLED_READS - 1 }))).toBe('blocked');
    expect(groupState(group({ headState: 'inflight', headReadCount: STALLED_READS }))).toBe('stalled');
    // Back in the queue after its lease ran out again: still the poison head.
    expect(groupState(group({ headState: 'ready', headReadCount: 7 }))).toBe('stalled');
  });

  test('rows: the group-less lane named, names escaped, keys unique; summary and tones', () => {
    const rows = groupRows([
      group({ group: null }),
      group({ group: 'a\u001b[31m', headState: 'inflight', headReadCount: 1 }),
      group({ group: '\u0000none', headReadCount: 3 }),
    ]);
    expect(rows.map((r) => r.label)).toEqual(['(no group)', 'a\\e[31m', '\\u{0}none']);
    expect(new Set(rows.map((r) => r.key)).size).toBe(3);
    // The lane is not a group: the count agrees with the queue list's GROUPS column.
    expect(groupSummary(rows)).toBe('2 groups and messages without one: 1 stalled, 1 blocked');
    expect(groupSummary(rows.slice(0, 1))).toBe('messages without a group only');
    expect(groupSummary(rows.slice(1, 2))).toBe('1 group: 1 blocked');
    expect(rows.map(groupTone)).toEqual([undefined, 'inflight', 'stalled']);
  });

  test('a group named like the lane, or with no name, is shown quoted: never the lane itself', () => {
    // Before, a group really named "(no group)" and the lane were two identical rows, and '' was blank.
    const rows = groupRows([group({ group: null }), group({ group: '(no group)' }), group({ group: '' }), group({ group: ' x ' })]);
    expect(rows.map((r) => r.label)).toEqual(['(no group)', '"(no group)"', '""', '" x "']);
  });
});

interface R {
  readonly key: string;
  readonly name: string;
  readonly n: number | null;
}
const col = (id: keyof R, over: Partial<TableColumn<R>> = {}): TableColumn<R> => ({
  id,
  title: id.toUpperCase(),
  width: 6,
  align: 'left',
  text: (r) => String(r[id]),
  value: (r) => r[id] as number | string | null,
  dropOrder: 1,
  ...over,
});

describe('side view tables', () => {
  const rows: R[] = [
    { key: '1', name: 'b', n: 2 },
    { key: '2', name: 'a', n: null },
    { key: '3', name: 'c', n: 5 },
  ];
  const cols = [col('name', { sortKey: 'N', dropOrder: 0, flexible: true, width: 30 }), col('n', { sortKey: 'C', descByDefault: true })];

  test('sort: natural direction first, again reverses; null last either way; < and > move along', () => {
    let sort = sortOn({ column: 'name', desc: false }, cols[1]!);
    expect(sort).toEqual({ column: 'n', desc: true });
    expect(sortTable(rows, cols, sort).map((r) => r.key)).toEqual(['3', '1', '2']);
    sort = sortOn(sort, cols[1]!);
    expect(sortTable(rows, cols, sort).map((r) => r.key)).toEqual(['1', '3', '2']);
    expect(shiftTableSort(sort, cols, 1)).toEqual({ column: 'name', desc: false });
    expect(shiftTableSort({ column: 'name', desc: false }, cols, -1)).toEqual({ column: 'n', desc: true });
  });

  test('filter: a case-insensitive regex; an invalid one hides nothing and says why', () => {
    expect(rows.filter(tableFilter('^[AB]$', (r: R) => [r.name]).keep).map((r) => r.key)).toEqual(['1', '2']);
    const bad = tableFilter('(', (r: R) => [r.name]);
    expect(bad.ok).toBe(false);
    expect(bad.error).toMatch(/Unterminated group/);
    expect(rows.filter(bad.keep)).toHaveLength(3);
  });

  test('widths: the flexible column takes the room left, columns with a drop order go when narrow', () => {
    expect(fitColumns(cols, 40).map((c) => [c.col.id, c.width])).toEqual([
      ['name', 30],
      ['n', 6],
    ]);
    expect(fitColumns(cols, 20).map((c) => [c.col.id, c.width])).toEqual([
      ['name', 13],
      ['n', 6],
    ]);
    expect(fitColumns(cols, 10).map((c) => c.col.id)).toEqual(['name']);
  });
});

describe('routing keys tested in the topics view', () => {
  const b = (pattern: string, queue: string) => ({ pattern, queue, boundAt: null });
  test('the queues reached (once each, by name), the patterns that matched, nothing reached, an error', () => {
    const test1 = {
      key: 'orders.eu.created',
      ok: true as const,
      matches: [b('orders.#', 'all'), b('orders.*.created', 'eu'), b('#', 'all')],
    };
    expect(reachedQueues(test1)).toEqual(['all', 'eu']);
    expect(routingLine(test1)).toBe('key orders.eu.created reaches 2 queues: all, eu (via orders.#, orders.*.created, #)');
    expect(routingLine({ key: 'x', ok: true, matches: [] })).toBe('key x reaches no queue: a topic send with it would store nothing');
    expect(routingLine({ key: 'a\nb', ok: false, error: 'bad key' })).toBe('key a\\nb: bad key');
    const rows = bindingRows([b('orders.#', 'all'), b('audit.#', 'audit')], test1);
    expect(rows.map((r) => r.matched)).toEqual([true, false]);
  });
});

describe('keys, help, hints and navigation of the side views', () => {
  test('F in the queue view, t on the list; in a view Enter opens, Esc/q/← go back, t tests a key (topics only)', () => {
    expect(commandFor('queue', 'F', {})).toEqual({ type: 'view', view: 'groups' });
    expect(commandFor('list', 't', {})).toEqual({ type: 'view', view: 'topics' });
    expect(commandFor('list', 'F', {})).toEqual({ type: 'sortKey', key: 'F' });
    expect(viewCommandFor('groups', '', { return: true })).toEqual({ type: 'open' });
    for (const [input, key] of [
      ['q', {}],
      ['', { escape: true }],
      ['', { leftArrow: true }],
    ] as const) {
      expect(viewCommandFor('groups', input, key)).toEqual({ type: 'back' });
    }
    expect(viewCommandFor('topics', 't', {})).toEqual({ type: 'testRoute' });
    expect(viewCommandFor('groups', 't', {})).toBeUndefined();
    expect(viewCommandFor('groups', 'C', {})).toEqual({ type: 'sortKey', key: 'C' });
    expect(viewCommandFor('groups', 'G', {})).toEqual({ type: 'end' });
    expect(viewCommandFor('groups', '/', {})).toEqual({ type: 'filter' });
  });

  test('help and hints: F and t only where the store has them; the views keep help and the way out at 80 columns', () => {
    const opts = { readOnly: false, archive: true, failedState: false };
    expect(helpFor('queue', { ...opts, groups: true }).map((e) => e.keys)).toContain('F');
    expect(helpFor('queue', opts).map((e) => e.keys)).not.toContain('F');
    expect(helpFor('list', { ...opts, topics: true }).map((e) => e.keys)).toContain('t');
    expect(keyHints('queue', false, true, { groups: true }).map((h) => h.text)).toContain('F groups');
    expect(keyHints('queue', false, true).map((h) => h.text)).not.toContain('F groups');
    const sortKeys = (lastRead: boolean) => viewHelp('groups', lastRead).find((e) => /^[A-Z]( [A-Z])+$/.test(e.keys))?.keys;
    expect(sortKeys(true)).toBe('N S R I D A C L');
    expect(sortKeys(false)).toBe('N S R I D A C');
    expect(fitHints(viewHints('topics'), 80)).toMatch(/t test key · .*Esc back · \? help · \^C quit$/);
  });

  test('navigation: groups over the queue view, a group opened over them, topics over the list; Esc goes back', () => {
    const orders = { key: 'o', rawName: 'orders', name: 'orders', label: 'orders', tenant: undefined };
    expect(navigate(INITIAL_NAVIGATION, { type: 'openGroups' })).toBe(INITIAL_NAVIGATION);
    const q = navigate(INITIAL_NAVIGATION, { type: 'openQueue', queue: orders, pageSize: 10 });
    const g = navigate(q, { type: 'openGroups' });
    expect(topScreen(g)).toEqual({ kind: 'groups', queue: orders });
    const lane = navigate(g, { type: 'openQueue', queue: orders, pageSize: 10, group: null });
    const top = topScreen(lane);
    expect(top.kind === 'queue' && top.paging.group).toBeNull();
    expect(navigate(lane, { type: 'back' })).toEqual(g);
    expect(topScreen(navigate(INITIAL_NAVIGATION, { type: 'openTopics' }))).toEqual({ kind: 'topics' });
    expect(navigate(q, { type: 'openTopics' })).toBe(q);
    expect(emptyText(initialPaging(5, 'oldest', 'a'), undefined)).toBe('no messages in group a');
    expect(emptyText(initialPaging(5, 'oldest', null), 'ready')).toBe('no ready messages in the group-less lane');
  });

  test('the list: GROUPS only where the store has groups and some queue has grouped messages; NOTIFY where it has notifications', () => {
    const caps = { archive: true, failedState: false, groups: true, notifyInsert: true } as Parameters<typeof availableColumns>[0];
    expect(availableColumns(caps, false, true)).toContain('groups');
    expect(availableColumns(caps, false, false)).not.toContain('groups');
    expect(availableColumns({ ...caps, groups: false }, false, true)).not.toContain('groups');
    expect(availableColumns(caps, false)).toContain('notify');
    expect(availableColumns({ ...caps, notifyInsert: false }, false)).not.toContain('notify');
  });
});
