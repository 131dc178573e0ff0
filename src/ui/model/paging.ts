// Keyset paging through a queue's messages: each page starts after the last id of the one
// before it, so a queue of millions is browsed one screenful at a time, never loaded whole
// (no OFFSET scans either).
import type { Message, MessageId, MessageState, PeekOptions } from '../../backends/types.js';

export type MessageOrder = 'oldest' | 'newest';
export type StateFilter = MessageState | 'all';

export interface PagingState {
  readonly order: MessageOrder;
  readonly state: StateFilter;
  readonly pageSize: number;
  /** cursors[i] is the afterId page i starts after (undefined: from the start). */
  readonly cursors: readonly (MessageId | undefined)[];
}

export function initialPaging(pageSize: number, order: MessageOrder = 'oldest'): PagingState {
  return { order, state: 'all', pageSize: Math.max(1, pageSize), cursors: [undefined] };
}

export function pageNumber(p: PagingState): number {
  return p.cursors.length;
}

/** What to ask peek for: one more than a page, to know whether another page follows. */
export function pageRequest(p: PagingState): PeekOptions {
  const afterId = p.cursors[p.cursors.length - 1];
  return {
    limit: p.pageSize + 1,
    order: p.order,
    state: p.state,
    ...(afterId !== undefined ? { afterId } : {}),
  };
}

export interface Page {
  readonly messages: readonly Message[];
  readonly hasMore: boolean;
}

export function toPage(p: PagingState, fetched: readonly Message[]): Page {
  return { messages: fetched.slice(0, p.pageSize), hasMore: fetched.length > p.pageSize };
}

/** The next page starts after the current page's last message; no-op at the end. */
export function nextPage(p: PagingState, page: Page): PagingState {
  const last = page.messages[page.messages.length - 1];
  if (!page.hasMore || !last) return p;
  return { ...p, cursors: [...p.cursors, last.id] };
}

export function prevPage(p: PagingState): PagingState {
  if (p.cursors.length <= 1) return p;
  return { ...p, cursors: p.cursors.slice(0, -1) };
}

export function firstPage(p: PagingState): PagingState {
  return { ...p, cursors: [undefined] };
}

export function setOrder(p: PagingState, order: MessageOrder): PagingState {
  return { ...p, order, cursors: [undefined] };
}

export function setStateFilter(p: PagingState, state: StateFilter): PagingState {
  return { ...p, state, cursors: [undefined] };
}

export function setPageSize(p: PagingState, pageSize: number): PagingState {
  const size = Math.max(1, pageSize);
  // Every cursor stays a valid place to start a page, whatever the page size.
  return size === p.pageSize ? p : { ...p, pageSize: size };
}

/**
 * A page that starts at `id` (the id itself included): in oldest-first order it starts
 * after id − 1, newest-first after id + 1. Earlier pages are forgotten.
 */
export function jumpTo(p: PagingState, id: MessageId): PagingState {
  return { ...p, cursors: [p.order === 'oldest' ? id - 1n : id + 1n] };
}

/** The state filters a backend offers, in the order `f` cycles through them. */
export function stateFilters(failedState: boolean): StateFilter[] {
  return failedState ? ['all', 'ready', 'inflight', 'delayed', 'failed'] : ['all', 'ready', 'inflight', 'delayed'];
}

export function cycleStateFilter(p: PagingState, failedState: boolean): PagingState {
  const all = stateFilters(failedState);
  const i = all.indexOf(p.state);
  return setStateFilter(p, all[(i + 1) % all.length]!);
}
