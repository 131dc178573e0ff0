// Keyset paging through a queue's messages: a page is anchored at an id (it starts after
// it, or ends before it) or at either end of the queue, so a queue of millions is browsed
// one screenful at a time, never loaded whole (no OFFSET scans either). Rows are numbered
// from the start of the queue: counted while paging, and asked of the store (one count
// over the id index) after a jump or a trip to the end.
import type { Message, MessageId, MessageState, PeekOptions } from '../../backends/types.js';
import { escapeName } from '../../text/escape.js';

export type MessageOrder = 'oldest' | 'newest';
export type StateFilter = MessageState | 'all';

export type Anchor =
  | { readonly kind: 'start' }
  /** The page starts after this id (in the order shown). */
  | { readonly kind: 'after'; readonly id: MessageId }
  /** The page ends just before this id: PgUp from a page that starts at it. */
  | { readonly kind: 'before'; readonly id: MessageId }
  /** The last page of the queue. */
  | { readonly kind: 'end' };

export interface PagingState {
  readonly order: MessageOrder;
  readonly state: StateFilter;
  readonly pageSize: number;
  readonly anchor: Anchor;
  /** Index (from 0) of the page's first row when paging knows it; undefined: count it. */
  readonly firstRow: number | undefined;
  /** The id typed at `#`: a page that finds nothing from it says so. */
  readonly jumpedTo?: MessageId | undefined;
  /** Only this FIFO group's messages (opened from the groups view); null: the group-less lane. */
  readonly group?: string | null | undefined;
}

export function initialPaging(pageSize: number, order: MessageOrder = 'oldest', group?: string | null): PagingState {
  return {
    order,
    state: 'all',
    pageSize: Math.max(1, pageSize),
    anchor: { kind: 'start' },
    firstRow: 0,
    ...(group === undefined ? {} : { group }),
  };
}

export interface Page {
  readonly messages: readonly Message[];
  /** More rows follow this page. */
  readonly hasNext: boolean;
  /** Rows come before this page. */
  readonly hasPrev: boolean;
  /** Index (from 0) of the first row in the queue (this order, this state); undefined: unknown. */
  readonly firstRow: number | undefined;
}

/** What the queue view asks of the store: peek, and where it can, a count. */
export interface PageSource {
  peek(options: PeekOptions): Promise<Message[]>;
  countBefore?:
    ((options: { id: MessageId; state: StateFilter; order: MessageOrder; group?: string | null }) => Promise<number>) | undefined;
}

const reverse = (order: MessageOrder): MessageOrder => (order === 'oldest' ? 'newest' : 'oldest');

/**
 * Loads the page of `p`: one peek of one row more than a page (to know whether more
 * follow), and a count when the position is not known yet. A page before an id that turns
 * out to be the first one is loaded from the start instead, so that it is full.
 */
export async function loadPage(p: PagingState, source: PageSource): Promise<Page> {
  const n = p.pageSize;
  const group = p.group === undefined ? {} : { group: p.group };
  const base = { limit: n + 1, state: p.state, ...group };
  const position = async (first: Message | undefined, known: number | undefined) => {
    if (known !== undefined) return known;
    if (!first || !source.countBefore) return undefined;
    return source.countBefore({ id: first.id, state: p.state, order: p.order, ...group });
  };
  switch (p.anchor.kind) {
    case 'start': {
      const got = await source.peek({ ...base, order: p.order });
      return { messages: got.slice(0, n), hasNext: got.length > n, hasPrev: false, firstRow: 0 };
    }
    case 'after': {
      const got = await source.peek({ ...base, order: p.order, afterId: p.anchor.id });
      const messages = got.slice(0, n);
      const firstRow = await position(messages[0], p.firstRow);
      return { messages, hasNext: got.length > n, hasPrev: firstRow === undefined || firstRow > 0, firstRow };
    }
    case 'before': {
      const got = await source.peek({ ...base, order: reverse(p.order), afterId: p.anchor.id });
      if (got.length <= n) return loadPage({ ...p, anchor: { kind: 'start' }, firstRow: 0 }, source);
      const messages = got.slice(0, n).reverse();
      const firstRow = await position(messages[0], p.firstRow);
      return { messages, hasNext: true, hasPrev: true, firstRow };
    }
    case 'end': {
      const got = await source.peek({ ...base, order: reverse(p.order) });
      const messages = got.slice(0, n).reverse();
      const hasPrev = got.length > n;
      const firstRow = hasPrev ? await position(messages[0], undefined) : 0;
      return { messages, hasNext: false, hasPrev, firstRow };
    }
  }
}

/** The next page starts after the current page's last message; no-op at the end. */
export function nextPage(p: PagingState, page: Page): PagingState {
  const last = page.messages[page.messages.length - 1];
  if (!page.hasNext || !last) return p;
  const firstRow = page.firstRow === undefined ? undefined : page.firstRow + page.messages.length;
  return { ...p, anchor: { kind: 'after', id: last.id }, firstRow, jumpedTo: undefined };
}

/** The page before, also before a jump; no-op at the start. */
export function prevPage(p: PagingState, page: Page): PagingState {
  const first = page.messages[0];
  if (!page.hasPrev) return p;
  if (!first || (page.firstRow !== undefined && page.firstRow <= p.pageSize)) return firstPage(p);
  const firstRow = page.firstRow === undefined ? undefined : page.firstRow - p.pageSize;
  return { ...p, anchor: { kind: 'before', id: first.id }, firstRow, jumpedTo: undefined };
}

export function firstPage(p: PagingState): PagingState {
  return { ...p, anchor: { kind: 'start' }, firstRow: 0, jumpedTo: undefined };
}

export function lastPage(p: PagingState): PagingState {
  return { ...p, anchor: { kind: 'end' }, firstRow: undefined, jumpedTo: undefined };
}

export function setOrder(p: PagingState, order: MessageOrder): PagingState {
  return firstPage({ ...p, order });
}

export function setStateFilter(p: PagingState, state: StateFilter): PagingState {
  return firstPage({ ...p, state });
}

export function setPageSize(p: PagingState, pageSize: number): PagingState {
  const size = Math.max(1, pageSize);
  // Every anchor stays a valid place to start a page, whatever the page size.
  return size === p.pageSize ? p : { ...p, pageSize: size };
}

/**
 * A page that starts at `id` (the id itself included): in oldest-first order it starts
 * after id − 1, newest-first after id + 1. Its row number is counted by the store.
 */
export function jumpTo(p: PagingState, id: MessageId): PagingState {
  return { ...p, anchor: { kind: 'after', id: p.order === 'oldest' ? id - 1n : id + 1n }, firstRow: undefined, jumpedTo: id };
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

const thousands = (n: number) => n.toLocaleString('en-US');

/**
 * Where the page is, for the queue view's title: "rows 500,001–500,020 of ~1,000,000".
 * `total` is the list's count of the state shown (estimated: `~`).
 */
export function rowsText(page: Page, total: { n: number; estimated: boolean } | undefined): string {
  if (page.messages.length === 0) return 'no rows';
  const of = total ? ` of ${total.estimated ? '~' : ''}${thousands(Math.max(total.n, (page.firstRow ?? 0) + page.messages.length))}` : '';
  if (page.firstRow === undefined) {
    const first = page.messages[0]!.id;
    return `rows from id ${first}${of}`;
  }
  const first = thousands(page.firstRow + 1);
  if (page.messages.length === 1) return `row ${first}${of}`;
  return `rows ${first}–${thousands(page.firstRow + page.messages.length)}${of}`;
}

/** What an empty page says: nothing at all, nothing of a state, or nothing from the id jumped to. */
export function emptyText(p: PagingState, stateWord: string | undefined): string {
  if (p.jumpedTo !== undefined) {
    const side = p.order === 'oldest' ? 'at or after' : 'at or before';
    return `no ${stateWord ? `${stateWord} ` : ''}message ${side} id ${p.jumpedTo}: the queue ends before it (g first, G last)`;
  }
  const words = stateWord ? `no ${stateWord} messages` : 'no messages';
  return p.group === undefined ? words : `${words} in ${groupLabel(p.group)}`;
}

/** A FIFO group as the screens name it: its name (escaped) or the group-less lane. */
export function groupLabel(group: string | null): string {
  return group === null ? 'the group-less lane' : `group ${escapeName(group)}`;
}
