// top's screen stack and prompts, as a pure reducer: no Ink, no React.
import { describe, expect, test } from 'vitest';
import { INITIAL_NAVIGATION, navigate, topScreen, type Navigation, type NavigationEvent } from '../../src/ui/model/navigation.js';
import { initialPaging, nextPage } from '../../src/ui/model/paging.js';
import type { QueueRef } from '../../src/ui/model/queue-ref.js';

const orders: QueueRef = { key: '\u0000orders', rawName: 'orders', name: 'orders', label: 'orders', tenant: undefined };

const run = (...events: NavigationEvent[]): Navigation => events.reduce(navigate, INITIAL_NAVIGATION);

describe('the screen stack', () => {
  test('starts on the list; Esc on the list stays there', () => {
    expect(topScreen(INITIAL_NAVIGATION)).toEqual({ kind: 'list' });
    expect(navigate(INITIAL_NAVIGATION, { type: 'back' })).toBe(INITIAL_NAVIGATION);
  });

  test('list → queue (first page, first row) → message → back → back', () => {
    const q = run({ type: 'openQueue', queue: orders, pageSize: 10 });
    expect(topScreen(q)).toEqual({ kind: 'queue', queue: orders, paging: initialPaging(10), selected: 0 });
    const m = navigate(q, { type: 'openMessage', id: 7n });
    expect(topScreen(m)).toEqual({ kind: 'message', queue: orders, id: 7n });
    expect(m.stack).toHaveLength(3);
    expect(topScreen(navigate(m, { type: 'back' }))).toBe(topScreen(q));
    expect(navigate(navigate(m, { type: 'back' }), { type: 'back' }).stack).toEqual([{ kind: 'list' }]);
  });

  test('a message opens only from a queue view', () => {
    expect(navigate(INITIAL_NAVIGATION, { type: 'openMessage', id: 1n })).toBe(INITIAL_NAVIGATION);
    const m = run({ type: 'openQueue', queue: orders, pageSize: 5 }, { type: 'openMessage', id: 1n });
    expect(navigate(m, { type: 'openMessage', id: 2n })).toBe(m);
  });

  test('paging and jumping change the queue on top only', () => {
    const q = run({ type: 'openQueue', queue: orders, pageSize: 2 });
    const paging = nextPage(initialPaging(2), { messages: [msg(1n), msg(2n)], hasNext: true, hasPrev: false, firstRow: 0 });
    const paged = navigate(q, { type: 'paged', paging, selected: 1 });
    expect(topScreen(paged)).toMatchObject({ paging, selected: 1 });
    const jumped = navigate(paged, { type: 'jump', id: 40n });
    expect(topScreen(jumped)).toMatchObject({ selected: 0 });
    const top = topScreen(jumped);
    expect(top.kind === 'queue' ? top.paging.anchor : undefined).toEqual({ kind: 'after', id: 39n });
    // On the list (or a message) there is no queue to page.
    expect(navigate(INITIAL_NAVIGATION, { type: 'jump', id: 1n })).toBe(INITIAL_NAVIGATION);
    const m = navigate(q, { type: 'openMessage', id: 1n });
    expect(navigate(m, { type: 'paged', paging, selected: 0 })).toBe(m);
  });

  test('a deleted message closes its detail; another message, or a queue view, stays', () => {
    const m = run({ type: 'openQueue', queue: orders, pageSize: 5 }, { type: 'openMessage', id: 5n });
    expect(topScreen(navigate(m, { type: 'messageGone', id: 5n })).kind).toBe('queue');
    expect(navigate(m, { type: 'messageGone', id: 6n })).toBe(m);
    const q = navigate(m, { type: 'back' });
    expect(navigate(q, { type: 'messageGone', id: 5n })).toBe(q);
  });
});

describe('prompts', () => {
  test('one at a time, over any screen; closing leaves the screens as they were', () => {
    const q = run({ type: 'openQueue', queue: orders, pageSize: 5 });
    const asked = navigate(q, { type: 'openModal', modal: { kind: 'confirm', action: 'delete', queue: orders, id: 3n } });
    expect(asked.modal).toEqual({ kind: 'confirm', action: 'delete', queue: orders, id: 3n });
    expect(asked.stack).toBe(q.stack);
    const help = navigate(asked, { type: 'openModal', modal: { kind: 'help' } });
    expect(help.modal).toEqual({ kind: 'help' });
    const closed = navigate(help, { type: 'closeModal' });
    expect(closed.modal).toBeUndefined();
    expect(closed.stack).toBe(q.stack);
    expect(navigate(closed, { type: 'closeModal' })).toBe(closed);
  });
});

function msg(id: bigint) {
  return {
    id,
    state: 'ready' as const,
    readCount: 0,
    enqueuedAt: new Date(0),
    visibleAt: new Date(0),
    lastReadAt: null,
    body: '{}',
    headers: null,
  };
}
