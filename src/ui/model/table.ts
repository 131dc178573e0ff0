// The small tables of top's side views (a queue's FIFO groups, the topic bindings): their
// columns, sorting by a column (a capital key or `<`/`>`, again: reverse), a `/` regex filter
// over the rows' names, and which columns fit the width. Pure: unit-tested without Ink.
import { fitText } from './format.js';
import { compileRegex } from './regex.js';

export interface TableColumn<R> {
  readonly id: string;
  readonly title: string;
  readonly width: number;
  readonly align: 'left' | 'right';
  /** The capital key that sorts by it (`<`/`>` reach every column). */
  readonly sortKey?: string;
  /** Sorting on it puts the largest first at first. */
  readonly descByDefault?: boolean;
  /** The cell's text (escaped, not padded). */
  readonly text: (row: R) => string;
  /** What it sorts by; null sorts last whatever the direction. */
  readonly value: (row: R) => number | string | null;
  /** Lower is kept longer when the width runs out; 0 never goes. */
  readonly dropOrder: number;
  /** This column takes the room left over (at most its width). */
  readonly flexible?: boolean;
}

export interface TableSort {
  readonly column: string;
  readonly desc: boolean;
}

/** A sorted copy; ties keep the rows' given order (stable). */
export function sortTable<R>(rows: readonly R[], columns: readonly TableColumn<R>[], sort: TableSort): R[] {
  const col = columns.find((c) => c.id === sort.column);
  if (!col) return [...rows];
  return rows
    .map((row, i) => ({ row, i, v: col.value(row) }))
    .sort((a, b) => {
      if (a.v === null && b.v !== null) return 1;
      if (b.v === null && a.v !== null) return -1;
      if (a.v !== null && b.v !== null && a.v !== b.v) {
        const c = typeof a.v === 'number' && typeof b.v === 'number' ? a.v - b.v : String(a.v) < String(b.v) ? -1 : 1;
        return sort.desc ? -c : c;
      }
      return a.i - b.i;
    })
    .map((x) => x.row);
}

/** Sorting by a column: a new column starts in its natural direction; the same one flips. */
export function sortOn<R>(current: TableSort, column: TableColumn<R>): TableSort {
  if (current.column === column.id) return { column: column.id, desc: !current.desc };
  return { column: column.id, desc: column.descByDefault ?? false };
}

/** `<` / `>`: the sort moves to the previous / next column shown. */
export function shiftTableSort<R>(current: TableSort, shown: readonly TableColumn<R>[], step: 1 | -1): TableSort {
  if (shown.length === 0) return current;
  const i = shown.findIndex((c) => c.id === current.column);
  const next = shown[i < 0 ? 0 : (i + step + shown.length) % shown.length]!;
  return { column: next.id, desc: next.descByDefault ?? false };
}

export interface TableFilter<R> {
  readonly ok: boolean;
  /** The regex's error, when it is not one (then nothing is hidden). */
  readonly error?: string;
  readonly keep: (row: R) => boolean;
}

/** A `/` filter: a case-insensitive regex over the texts `of` gives for a row. Never throws. */
export function tableFilter<R>(pattern: string, of: (row: R) => readonly string[]): TableFilter<R> {
  const re = compileRegex(pattern);
  if (!re.ok) return { ok: false, error: re.error, keep: () => true };
  const regex = re.regex;
  if (!regex) return { ok: true, keep: () => true };
  return { ok: true, keep: (row) => of(row).some((t) => regex.test(t)) };
}

/**
 * The columns that fit in `width` (one space between them): the highest dropOrder goes
 * first (on a tie the rightmost); a flexible column takes what is left, up to its width.
 */
export function fitColumns<R>(columns: readonly TableColumn<R>[], width: number, minFlex = 8): { col: TableColumn<R>; width: number }[] {
  let kept = [...columns];
  const need = (cols: readonly TableColumn<R>[]) =>
    cols.reduce((s, c) => s + (c.flexible ? Math.min(c.width, minFlex) : c.width), 0) + Math.max(0, cols.length - 1);
  while (need(kept) > width && kept.some((c) => c.dropOrder > 0)) {
    let victim = -1;
    kept.forEach((c, i) => {
      if (c.dropOrder > 0 && (victim < 0 || c.dropOrder >= kept[victim]!.dropOrder)) victim = i;
    });
    kept = kept.filter((_, i) => i !== victim);
  }
  const fixed = kept.reduce((s, c) => s + (c.flexible ? 0 : c.width), 0) + Math.max(0, kept.length - 1);
  const flex = kept.filter((c) => c.flexible).length;
  const room = flex > 0 ? Math.max(minFlex, Math.floor((width - fixed) / flex)) : 0;
  return kept.map((col) => ({ col, width: col.flexible ? Math.min(col.width, room) : col.width }));
}

/** The title line, with ▲/▼ on the column sorted on. */
export function tableTitle<R>(cols: readonly { col: TableColumn<R>; width: number }[], sort: TableSort): string {
  return cols
    .map(({ col, width }) => fitText(col.title + (col.id === sort.column ? (sort.desc ? '▼' : '▲') : ''), width, col.align))
    .join(' ');
}

export function tableLine<R>(row: R, cols: readonly { col: TableColumn<R>; width: number }[]): string {
  return cols.map(({ col, width }) => fitText(col.text(row), width, col.align)).join(' ');
}
