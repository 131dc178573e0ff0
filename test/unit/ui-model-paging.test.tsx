import { describe, expect, test } from 'vitest';
import type { Message } from '../../src/backends/types.js';
import {
  cycleStateFilter,
  initialPaging,
  jumpTo,
  nextPage,
  pageNumber,
  pageRequest,
  prevPage,
  setOrder,
  toPage,
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
  test('asks for one more than a page and walks forward and back by cursors', () => {
    let p = initialPaging(3);
    expect(pageRequest(p)).toEqual({ limit: 4, order: 'oldest', state: 'all' });
    const page1 = toPage(p, [msg(1n), msg(2n), msg(3n), msg(4n)]);
    expect(page1.messages.map((m) => m.id)).toEqual([1n, 2n, 3n]);
    expect(page1.hasMore).toBe(true);

    p = nextPage(p, page1);
    expect(pageRequest(p)).toEqual({ limit: 4, order: 'oldest', state: 'all', afterId: 3n });
    expect(pageNumber(p)).toBe(2);

    const page2 = toPage(p, [msg(4n), msg(5n)]);
    expect(page2.hasMore).toBe(false);
    expect(nextPage(p, page2)).toBe(p); // the end

    p = prevPage(p);
    expect(pageRequest(p).afterId).toBeUndefined();
    expect(prevPage(p)).toBe(p);
  });

  test('changing order or state starts over', () => {
    let p = nextPage(initialPaging(2), toPage(initialPaging(2), [msg(1n), msg(2n), msg(3n)]));
    p = setOrder(p, 'newest');
    expect(pageRequest(p)).toEqual({ limit: 3, order: 'newest', state: 'all' });
    p = cycleStateFilter(p, false);
    expect(p.state).toBe('ready');
    expect(cycleStateFilter(cycleStateFilter(cycleStateFilter(p, false), false), false).state).toBe('all');
    expect(cycleStateFilter(cycleStateFilter(cycleStateFilter(cycleStateFilter(p, true), true), true), true).state).toBe('all');
  });

  test('jump to id includes the id in either order', () => {
    expect(pageRequest(jumpTo(initialPaging(5), 100n)).afterId).toBe(99n);
    expect(pageRequest(jumpTo(initialPaging(5, 'newest'), 100n)).afterId).toBe(101n);
    // Snowflakes above 2^53 stay exact.
    const big = 2n ** 60n + 7n;
    expect(pageRequest(jumpTo(initialPaging(5), big)).afterId).toBe(big - 1n);
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
    expect(ro.map((h) => h.what).join()).not.toMatch(/delete|archive|purge/);
    expect(
      helpFor('message', { readOnly: false, archive: false, failedState: true })
        .map((h) => h.what)
        .join(),
    ).not.toMatch(/archive/);
  });
});
