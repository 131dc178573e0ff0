// The marked rows of top's queue view (Space, `*`, `N`): always a set of ids. Space adds or
// removes one row; `*` and `N` take the ids the store holds for a filter (the state shown,
// read at least N times) at that moment, oldest first, at most MARK_LIMIT: messages that
// arrive later are not marked, and a marked message gone meanwhile is counted as gone.
// Pure: the queue view shows them, the bulk actions turn them into a selection.
import type { Message, MessageId, MessageSelection } from '../../backends/types.js';
import { STATE_WORDS } from '../../output/records.js';
import { counted } from './format.js';
import type { StateFilter } from './paging.js';

/** At most this many messages are marked by one `*` or `N` (their ids are held in memory). */
export const MARK_LIMIT = 100_000;

export type Marks =
  | { readonly kind: 'none' }
  | { readonly kind: 'ids'; readonly ids: readonly MessageId[] }
  /**
   * `*` / `N`: the ids that matched the filter when marked (the oldest MARK_LIMIT of
   * `matched`), named by that filter.
   */
  | {
      readonly kind: 'caught';
      readonly ids: readonly MessageId[];
      readonly has: ReadonlySet<MessageId>;
      readonly state: StateFilter;
      readonly minReadCount: number | undefined;
      readonly matched: number;
    };

export const NO_MARKS: Marks = { kind: 'none' };

/** Space: marks the row or unmarks it; after `*` it starts a new set of marks with this row. */
export function toggleMark(marks: Marks, id: MessageId): Marks {
  if (marks.kind !== 'ids') return { kind: 'ids', ids: [id] };
  const ids = marks.ids.includes(id) ? marks.ids.filter((x) => x !== id) : [...marks.ids, id];
  return ids.length === 0 ? NO_MARKS : { kind: 'ids', ids };
}

/** `*` / `N`: the ids the store gave for a filter (the first MARK_LIMIT of `matched`); none given, no marks. */
export function caughtMarks(ids: readonly MessageId[], state: StateFilter, minReadCount: number | undefined, matched = ids.length): Marks {
  if (ids.length === 0) return NO_MARKS;
  const kept = ids.slice(0, MARK_LIMIT);
  return { kind: 'caught', ids: kept, has: new Set(kept), state, minReadCount, matched: Math.max(matched, kept.length) };
}

export function isMarked(marks: Marks, m: Message): boolean {
  if (marks.kind === 'none') return false;
  if (marks.kind === 'ids') return marks.ids.includes(m.id);
  return marks.has.has(m.id);
}

export function markCount(marks: Marks): number {
  return marks.kind === 'none' ? 0 : marks.ids.length;
}

/**
 * What became of marked messages the selection no longer takes: gone, or (marks caught under
 * a state filter) no longer in that state, a consumer having taken them since.
 */
export function missingWords(marks: Marks): string {
  if (marks.kind === 'caught' && marks.state !== 'all') return `no longer ${STATE_WORDS[marks.state]} or gone`;
  return 'not there any more';
}

/** Every marked message gone (or, caught under a state filter, no longer in it). */
export function noneLeftWords(marks: Marks): string {
  if (marks.kind === 'caught' && marks.state !== 'all') return `none of the marked messages is still ${STATE_WORDS[marks.state]}`;
  return 'none of the marked messages is there any more';
}

/** "1 of 3 marked not there any more": marked messages the selection no longer takes (`n` of them it does). */
export function goneWords(marks: Marks, n: number): string {
  const marked = markCount(marks);
  return n < marked ? `${(marked - n).toLocaleString('en-US')} of ${marked.toLocaleString('en-US')} marked ${missingWords(marks)}` : '';
}

/**
 * " (15 of 50,000 marked were not there any more)": after a bulk action, the marked messages
 * the store did not change, counted against the marks (not against the question's count,
 * which already left out those gone by then). No marks: the one highlighted message.
 */
export function shortfallWords(marks: Marks, changed: number, why = `were ${missingWords(marks)}`): string {
  const of = marks.kind === 'none' ? 1 : markCount(marks);
  if (changed >= of) return '';
  const n = (x: number) => x.toLocaleString('en-US');
  return ` (${n(of - changed)} of ${n(of)}${marks.kind === 'none' ? '' : ' marked'} ${why})`;
}

/** What the marks are, in words: "3 marked", "all 1,204 in flight marked", "all 12 read ≥ 5 times marked". */
export function marksText(marks: Marks): string {
  if (marks.kind === 'none') return '';
  if (marks.kind === 'ids') return `${marks.ids.length} marked`;
  return `${caughtWords(marks)} marked`;
}

/** "all 37 messages", "the oldest 100,000 of 1,204,311 messages": what a `*` or `N` marked. */
export function caughtWords(marks: Extract<Marks, { kind: 'caught' }>): string {
  const n = marks.ids.length;
  if (n >= marks.matched) return `all ${filterCounted(n, marks.state, marks.minReadCount)}`;
  return `the oldest ${n.toLocaleString('en-US')} of ${filterCounted(marks.matched, marks.state, marks.minReadCount)}`;
}

/** "1,204 in flight messages", "1 message read ≥ 3 times": a filter's count with its noun. */
export function filterCounted(n: number, state: StateFilter, minReadCount: number | undefined): string {
  const word = state === 'all' ? '' : `${STATE_WORDS[state]} `;
  const reads = minReadCount !== undefined ? ` read ≥ ${minReadCount} time${minReadCount === 1 ? '' : 's'}` : '';
  return `${n.toLocaleString('en-US')} ${word}message${n === 1 ? '' : 's'}${reads}`;
}

/** The selection the store acts on: the marks, or (none marked) the highlighted message. */
export function selectionOf(marks: Marks, current: Message | undefined): MessageSelection | undefined {
  // Marks caught under a state filter: only those still in it (a consumer may have taken some).
  if (marks.kind === 'caught' && marks.state !== 'all') return { kind: 'ids', ids: marks.ids, state: marks.state };
  if (marks.kind !== 'none') return { kind: 'ids', ids: marks.ids };
  return current ? { kind: 'ids', ids: [current.id] } : undefined;
}

/** "3 marked messages", "message 12": what a question or a result names. */
export function selectionWords(marks: Marks, current: Message | undefined, count: number): string {
  if (marks.kind === 'none') return current ? `message ${current.id}` : 'no message';
  if (marks.kind === 'ids') return counted(count, 'marked message');
  return filterCounted(count, marks.state, marks.minReadCount);
}
