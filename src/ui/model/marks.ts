// The marked rows of top's queue view (Space, `*`, `N`): a set of ids, or every message
// matching a filter (the state shown, read at least N times), counted by the store, never
// loaded. Pure: the queue view shows them, the bulk actions turn them into a selection.
import type { Message, MessageId, MessageSelection, MessageSource } from '../../backends/types.js';
import { STATE_WORDS } from '../../output/records.js';
import { counted } from './format.js';
import type { StateFilter } from './paging.js';

export type Marks =
  | { readonly kind: 'none' }
  | { readonly kind: 'ids'; readonly ids: readonly MessageId[] }
  /** Every message matching: `count` is the store's count when marked. */
  | { readonly kind: 'filter'; readonly state: StateFilter; readonly minReadCount: number | undefined; readonly count: number };

export const NO_MARKS: Marks = { kind: 'none' };

/** Space: marks the row or unmarks it; after `*` it starts a new set of marks with this row. */
export function toggleMark(marks: Marks, id: MessageId): Marks {
  if (marks.kind !== 'ids') return { kind: 'ids', ids: [id] };
  const ids = marks.ids.includes(id) ? marks.ids.filter((x) => x !== id) : [...marks.ids, id];
  return ids.length === 0 ? NO_MARKS : { kind: 'ids', ids };
}

export function isMarked(marks: Marks, m: Message, source: MessageSource): boolean {
  if (marks.kind === 'none') return false;
  if (marks.kind === 'ids') return marks.ids.includes(m.id);
  const stateOk = source === 'archive' || marks.state === 'all' || marks.state === m.state;
  return stateOk && m.readCount >= (marks.minReadCount ?? 0);
}

export function markCount(marks: Marks): number {
  return marks.kind === 'none' ? 0 : marks.kind === 'ids' ? marks.ids.length : marks.count;
}

/** What the marks are, in words: "3 marked", "all 1,204 in flight marked", "all 12 read ≥ 5 times marked". */
export function marksText(marks: Marks): string {
  if (marks.kind === 'none') return '';
  if (marks.kind === 'ids') return `${marks.ids.length} marked`;
  return `all ${filterCounted(marks.count, marks.state, marks.minReadCount)} marked`;
}

/** "1,204 in flight messages", "1 message read ≥ 3 times": a filter's count with its noun. */
export function filterCounted(n: number, state: StateFilter, minReadCount: number | undefined): string {
  const word = state === 'all' ? '' : `${STATE_WORDS[state]} `;
  const reads = minReadCount !== undefined ? ` read ≥ ${minReadCount} time${minReadCount === 1 ? '' : 's'}` : '';
  return `${n.toLocaleString('en-US')} ${word}message${n === 1 ? '' : 's'}${reads}`;
}

/** The selection the store acts on: the marks, or (none marked) the highlighted message. */
export function selectionOf(marks: Marks, current: Message | undefined): MessageSelection | undefined {
  if (marks.kind === 'ids') return { kind: 'ids', ids: marks.ids };
  if (marks.kind === 'filter') {
    return { kind: 'filter', state: marks.state, ...(marks.minReadCount !== undefined ? { minReadCount: marks.minReadCount } : {}) };
  }
  return current ? { kind: 'ids', ids: [current.id] } : undefined;
}

/** "3 marked messages", "message 12": what a question or a result names. */
export function selectionWords(marks: Marks, current: Message | undefined, count: number): string {
  if (marks.kind === 'none') return current ? `message ${current.id}` : 'no message';
  if (marks.kind === 'ids') return counted(count, 'marked message');
  return filterCounted(count, marks.state, marks.minReadCount);
}
