// Sorting and filtering the queue list.
import { columnSpec, type ColumnId } from './columns.js';
import type { QueueRow } from './rows.js';
import { compileRegex } from './regex.js';

export interface SortState {
  readonly column: ColumnId;
  readonly desc: boolean;
}

export const DEFAULT_SORT: SortState = { column: 'name', desc: false };

/** The value a column sorts by; null sorts last whatever the direction. */
function sortValue(row: QueueRow, column: ColumnId): number | string | null {
  const s = row.stats;
  switch (column) {
    case 'name':
      return row.name;
    case 'tenant':
      return row.tenant ?? null;
    case 'ready':
      return s.ready;
    case 'inFlight':
      return s.inFlight;
    case 'delayed':
      return s.delayed;
    case 'total':
    case 'spark':
      return s.total;
    case 'oldest':
      return s.oldestAgeSec;
    case 'in':
      return row.rate.inPerSec;
    case 'out':
      return row.rate.outPerSec;
    case 'archived':
      return s.archived ?? null;
    case 'failed':
      return s.failed ?? null;
    case 'groups':
      return s.groups ?? null;
    case 'notify':
      return s.notifyThrottleMs === undefined ? null : s.notifyThrottleMs === null ? 0 : 1;
  }
}

function compareValues(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  // Tenant ids are decimal text: compare them as numbers when both are.
  if (/^\d+$/.test(String(a)) && /^\d+$/.test(String(b))) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/** A sorted copy; ties keep name (then tenant) order so rows do not jump between refreshes. */
export function sortRows(rows: readonly QueueRow[], sort: SortState): QueueRow[] {
  return [...rows].sort((x, y) => {
    const a = sortValue(x, sort.column);
    const b = sortValue(y, sort.column);
    if (a === null && b !== null) return 1;
    if (b === null && a !== null) return -1;
    if (a !== null && b !== null) {
      const c = compareValues(a, b);
      if (c !== 0) return sort.desc ? -c : c;
    }
    const byName = compareValues(x.name, y.name);
    if (byName !== 0) return byName;
    return compareValues(x.tenant ?? '', y.tenant ?? '');
  });
}

/** Sorting by a column: a new column starts in its natural direction; the same column flips. */
export function sortBy(current: SortState, column: ColumnId): SortState {
  if (current.column === column) return { column, desc: !current.desc };
  return { column, desc: columnSpec(column).descByDefault };
}

/** `<` / `>`: the sort moves to the previous / next visible column. */
export function shiftSort(current: SortState, visible: readonly ColumnId[], step: -1 | 1): SortState {
  if (visible.length === 0) return current;
  const i = visible.indexOf(current.column);
  const next = i < 0 ? 0 : (i + step + visible.length) % visible.length;
  const column = visible[next]!;
  return { column, desc: columnSpec(column).descByDefault };
}

/** The column a shift-letter sorts by, among the visible ones. */
export function columnForSortKey(input: string, visible: readonly ColumnId[]): ColumnId | undefined {
  return visible.find((id) => columnSpec(id).sortKey === input);
}

export type CompiledFilter =
  | { readonly ok: true; readonly pattern: string; readonly matches: (row: QueueRow) => boolean }
  | { readonly ok: false; readonly pattern: string; readonly error: string };

/** A `/` filter: a case-insensitive regex over the shown name and the raw name. Never throws. */
export function compileFilter(pattern: string): CompiledFilter {
  const re = compileRegex(pattern);
  if (!re.ok) return { ok: false, pattern, error: re.error };
  const regex = re.regex;
  if (!regex) return { ok: true, pattern, matches: () => true };
  return { ok: true, pattern, matches: (row) => regex.test(row.name) || regex.test(row.rawName) };
}

/** An invalid filter hides nothing (its error is shown instead). */
export function filterRows(rows: readonly QueueRow[], filter: CompiledFilter): QueueRow[] {
  if (!filter.ok) return [...rows];
  return rows.filter(filter.matches);
}
