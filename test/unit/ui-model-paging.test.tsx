import { describe, expect, test } from 'vitest';
import type { Message, PeekOptions } from '../../src/backends/types.js';
import {
  cycleStateFilter,
  emptyText,
  firstPage,
  initialPaging,
  jumpTo,
  lastPage,
  loadPage,
  nextPage,
  prevPage,
  rowsText,
  setOrder,
  type Page,
  type PageSource,
} from '../../src/ui/model/paging.js';
import { MAX_MESSAGE_ID, parseMessageId } from '../../src/text/ids.js';
import { clampInterval, healthDue, retryDelay, stepInterval } from '../../src/ui/model/interval.js';
import { commandFor, helpFor } from '../../src/ui/model/keys.js';

const msg = (id: bigint): Message => ({
  id,
  state: 'ready',
  readCount: 0,
  enqueuedAt: new Date(0),
  visibleAt: new Date(0),
  lastReadAt: null,
  body: '{}',
  headers: null,
});

describe('keyset paging', () => {
  // A queue of ids 1..100 (ready), read as a store would: peek in either order after an id.
  const ids = Array.from({ length: 100 }, (_, i) => BigInt(i + 1));
  const asked: PeekOptions[] = [];
  const source: PageSource = {
    peek: async (o) => {
      asked.push(o);
      const sorted = o.order === 'newest' ? [...ids].reverse() : ids;
      const after = o.afterId;
      const rest = after === undefined ? sorted : sorted.filter((id) => (o.order === 'newest' ? id < after : id > after));
      return rest.slice(0, o.limit).map(msg);
    },
    countBefore: async ({ id, order }) => ids.filter((x) => (order === 'newest' ? x > id : x < id)).length,
  };
  const shown = (page: Page) => [page.messages[0]?.id, page.messages.at(-1)?.id, page.firstRow, page.hasPrev, page.hasNext];

  test('forward and back by anchors, one row more than a page asked, rows numbered from the start', async () => {
    let p = initialPaging(10);
    let page = await loadPage(p, source);
    expect(asked.at(-1)).toEqual({ limit: 11, order: 'oldest', state: 'all' });
    expect(shown(page)).toEqual([1n, 10n, 0, false, true]);
    expect(rowsText(page, { n: 100, estimated: false })).toBe('rows 1–10 of 100');
    p = nextPage(p, page);
    page = await loadPage(p, source);
    expect(shown(page)).toEqual([11n, 20n, 10, true, true]);
    p = prevPage(p, page);
    expect(p.anchor).toEqual({ kind: 'start' });
    expect(prevPage(p, await loadPage(p, source))).toBe(p);
  });

  test('after a jump: the row is counted, PgUp pages back before it, the first rows fill a whole page', async () => {
    let p = jumpTo(initialPaging(10), 50n);
    let page = await loadPage(p, source);
    expect(shown(page)).toEqual([50n, 59n, 49, true, true]);
    expect(rowsText(page, { n: 1_000_000, estimated: true })).toBe('rows 50–59 of ~1,000,000');
    p = prevPage(p, page);
    expect(p.anchor).toEqual({ kind: 'before', id: 50n });
    page = await loadPage(p, source);
    expect(shown(page)).toEqual([40n, 49n, 39, true, true]);
    // Near the start, a page before an id is the first page, full.
    page = await loadPage({ ...p, anchor: { kind: 'before', id: 5n }, firstRow: undefined }, source);
    expect(shown(page)).toEqual([1n, 10n, 0, false, true]);
  });

  test('g and G: the first and the last rows of the queue, in either order', async () => {
    let page = await loadPage(lastPage(initialPaging(10)), source);
    expect(shown(page)).toEqual([91n, 100n, 90, true, false]);
    page = await loadPage(lastPage(initialPaging(10, 'newest')), source);
    expect(shown(page)).toEqual([10n, 1n, 90, true, false]);
    page = await loadPage(firstPage(jumpTo(initialPaging(10), 70n)), source);
    expect(shown(page)).toEqual([1n, 10n, 0, false, true]);
  });

  test('a jump past the end says so', async () => {
    const p = jumpTo(initialPaging(10), 99_999n);
    const page = await loadPage(p, source);
    expect(page.messages).toEqual([]);
    expect(emptyText(p, undefined)).toBe('no message at or after id 99999: the queue ends before it (g first, G last)');
    expect(emptyText(initialPaging(10), 'ready')).toBe('no ready messages');
  });

  test('without a count from the store, rows are shown from an id', async () => {
    const page = await loadPage(jumpTo(initialPaging(10), 50n), { peek: source.peek });
    expect(rowsText(page, undefined)).toBe('rows from id 50');
  });

  test('changing order or state starts over', () => {
    let p = jumpTo(initialPaging(2), 7n);
    p = setOrder(p, 'newest');
    expect(p).toMatchObject({ order: 'newest', anchor: { kind: 'start' }, firstRow: 0, jumpedTo: undefined });
    p = cycleStateFilter(p, false);
    expect(p.state).toBe('ready');
    expect(cycleStateFilter(cycleStateFilter(cycleStateFilter(p, false), false), false).state).toBe('all');
    expect(cycleStateFilter(cycleStateFilter(cycleStateFilter(cycleStateFilter(p, true), true), true), true).state).toBe('all');
  });

  test('jump to id includes the id in either order', () => {
    expect(jumpTo(initialPaging(5), 100n).anchor).toEqual({ kind: 'after', id: 99n });
    expect(jumpTo(initialPaging(5, 'newest'), 100n).anchor).toEqual({ kind: 'after', id: 101n });
    // Snowflakes above 2^53 stay exact.
    const big = 2n ** 60n + 7n;
    expect(jumpTo(initialPaging(5), big).anchor).toEqual({ kind: 'after', id: big - 1n });
  });

  test('one id parser (commands and jump to id): plain digits, at most a 64-bit id', () => {
    // Changed on purpose (issue 14): the parser no longer trims (the jump prompt trims what
    // was typed) and refuses ids above 2^63 - 1 instead of 20 digits of anything.
    expect(parseMessageId('42')).toEqual({ ok: true, id: 42n });
    expect(parseMessageId(' 42 ')).toEqual({ ok: false, problem: 'digits' });
    expect(parseMessageId('1234567890123456789')).toEqual({ ok: true, id: 1234567890123456789n });
    expect(parseMessageId(MAX_MESSAGE_ID.toString())).toEqual({ ok: true, id: MAX_MESSAGE_ID });
    expect(parseMessageId((MAX_MESSAGE_ID + 1n).toString())).toEqual({ ok: false, problem: 'range' });
    expect(parseMessageId('99999999999999999999')).toEqual({ ok: false, problem: 'range' });
    expect(parseMessageId('-1')).toEqual({ ok: false, problem: 'digits' });
    expect(parseMessageId('12a')).toEqual({ ok: false, problem: 'digits' });
    expect(parseMessageId('')).toEqual({ ok: false, problem: 'digits' });
  });
});

describe('refresh interval', () => {
  test('+ and - step, with a 0.5 s floor', () => {
    expect(stepInterval(2000, 1)).toBe(3000);
    expect(stepInterval(2000, -1)).toBe(1500);
    expect(stepInterval(500, -1)).toBe(500);
    expect(stepInterval(2500, -1)).toBe(2000);
    expect(stepInterval(60_000, 1)).toBe(60_000);
    expect(clampInterval(100)).toBe(500);
    expect(clampInterval(Number.NaN)).toBe(2000);
  });

  test('retries back off from 1 s up to the interval, at most 10 s', () => {
    expect(retryDelay(2000, 0)).toBe(2000);
    expect(retryDelay(2000, 1)).toBe(1000);
    expect(retryDelay(2000, 5)).toBe(2000);
    expect(retryDelay(60_000, 1)).toBe(1000);
    expect(retryDelay(60_000, 10)).toBe(10_000);
    expect(retryDelay(500, 1)).toBe(1000);
  });

  test('health every 10 s', () => {
    expect(healthDue(undefined, 0)).toBe(true);
    expect(healthDue(0, 9_999)).toBe(false);
    expect(healthDue(0, 10_000)).toBe(true);
  });
});

describe('keys', () => {
  test('list keys', () => {
    expect(commandFor('list', 'j', {})).toEqual({ type: 'move', delta: 1 });
    expect(commandFor('list', '', { upArrow: true })).toEqual({ type: 'move', delta: -1 });
    expect(commandFor('list', '', { pageDown: true })).toEqual({ type: 'page', delta: 1 });
    expect(commandFor('list', ' ', {})).toEqual({ type: 'pause' });
    expect(commandFor('list', 'q', {})).toEqual({ type: 'quit' });
    expect(commandFor('list', '/', {})).toEqual({ type: 'filter' });
    expect(commandFor('list', '>', {})).toEqual({ type: 'sortShift', step: 1 });
    expect(commandFor('list', 'R', {})).toEqual({ type: 'sortKey', key: 'R' });
    expect(commandFor('list', '+', {})).toEqual({ type: 'interval', direction: 1 });
    expect(commandFor('list', 'c', { ctrl: true })).toEqual({ type: 'quit' });
  });

  test('q goes back everywhere but the list', () => {
    expect(commandFor('queue', 'q', {})).toEqual({ type: 'back' });
    expect(commandFor('message', '', { escape: true })).toEqual({ type: 'back' });
    expect(commandFor('queue', 'd', {})).toEqual({ type: 'action', action: 'delete' });
    expect(commandFor('message', ' ', {})).toEqual({ type: 'page', delta: 1 });
  });

  test('help lists actions only when writing is allowed', () => {
    const rw = helpFor('queue', { readOnly: false, archive: true, failedState: false });
    const ro = helpFor('queue', { readOnly: true, archive: true, failedState: false });
    expect(rw.map((h) => h.what).join()).toMatch(/delete/);
    expect(rw.map((h) => h.what).join()).toMatch(/archive/);
    // Browsing the archive (A) reads only: it stays; archiving a message does not.
    expect(ro.map((h) => h.what).join()).not.toMatch(/delete|archive the|purge|another queue|restore/);
    expect(
      helpFor('message', { readOnly: false, archive: false, failedState: true })
        .map((h) => h.what)
        .join(),
    ).not.toMatch(/archive/);
  });
});
