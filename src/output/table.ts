// A tiny aligned-column formatter. Cells are escaped here, so callers can pass raw text
// from messages and queue names.
import { escapeControl, escapeName } from '../text/escape.js';
import { cellWidth, cutToCells } from '../text/width.js';

export type Align = 'left' | 'right';

export interface TableColumn {
  readonly header: string;
  readonly align?: Align;
  /** Cells wider than this (display columns, after escaping) are cut, ending with …. */
  readonly maxWidth?: number;
  /** A column of names (queues, groups): escaped with escapeName, backslashes doubled, so no two look the same. */
  readonly names?: boolean;
}

/**
 * Without a terminal width (output piped with --output table) the last column is still cut
 * here: a table is for reading, and a 1 MB body would make it unreadable. --output json
 * carries every value whole.
 */
export const PIPED_LAST_COLUMN_WIDTH = 1000;

/** Terminal cells a string takes (as src/text/width.ts counts them: never less than a terminal draws). */
export function displayWidth(text: string): number {
  return cellWidth(text);
}

/** Cuts text to at most `max` cells, ending with … when something was cut; never splits a character. */
export function truncate(text: string, max: number): string {
  return cutToCells(text, max);
}

/** Room the last column keeps on a terminal before the cut-able columns give way. */
const LAST_COLUMN_ROOM = 20;
/** A cut-able column is never made narrower than this (or its header). */
const CUT_COLUMN_FLOOR = 8;

export interface RenderOptions {
  /** Cap for the last column (e.g. the terminal width left for message bodies). */
  readonly maxWidth?: number | undefined;
}

/**
 * Renders rows under a header line, columns separated by two spaces. The last column is
 * not padded (so long bodies don't leave trailing blanks) and is truncated to fit
 * maxWidth when given (else to PIPED_LAST_COLUMN_WIDTH); other cells to their column's
 * maxWidth. Every cell is escaped first, so each row stays one line. Returns the text with
 * a trailing newline.
 */
export function renderTable(columns: readonly TableColumn[], rows: readonly (readonly string[])[], options: RenderOptions = {}): string {
  const last = columns.length - 1;
  // The last column is never shown wider than this: cut it before measuring (a 1 MB body
  // would otherwise be measured cluster by cluster, whole).
  const lastCap = Math.max(options.maxWidth ?? PIPED_LAST_COLUMN_WIDTH, LAST_COLUMN_ROOM);
  const fit = (text: string, column: TableColumn | undefined, i: number) => {
    const escaped = column?.names ? escapeName(text) : escapeControl(text);
    const cap = i === last ? Math.min(column?.maxWidth ?? lastCap, lastCap) : column?.maxWidth;
    return cap === undefined ? escaped : truncate(escaped, cap);
  };
  const cells = [columns.map((c) => escapeControl(c.header)), ...rows.map((r) => columns.map((c, i) => fit(r[i] ?? '', c, i)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => displayWidth(r[i] ?? ''))));
  if (options.maxWidth !== undefined) giveWay(columns, cells, widths, options.maxWidth);
  const lines = cells.map((row) => {
    let used = 0;
    const parts = row.map((cell, i) => {
      if (i === last) {
        const room = options.maxWidth === undefined ? PIPED_LAST_COLUMN_WIDTH : Math.max(options.maxWidth - used, LAST_COLUMN_ROOM);
        const text = truncate(cell, room);
        return columns[i]?.align === 'right' ? pad(text, widths[i] ?? 0, 'right') : text;
      }
      const padded = pad(cell, widths[i] ?? 0, columns[i]?.align ?? 'left');
      used += displayWidth(padded) + 2;
      return padded;
    });
    const line = parts.join('  ');
    // A terminal too narrow even for the columns that cannot be cut: the row ends at its edge.
    return options.maxWidth !== undefined && displayWidth(line) > options.maxWidth ? truncate(line, options.maxWidth) : line;
  });
  return lines.map((l) => l.trimEnd()).join('\n') + '\n';
}

/**
 * On a terminal of `maxWidth` cells: the columns with a maxWidth (cut-able, like HEADERS) give
 * way, the widest first, until the last column has LAST_COLUMN_ROOM cells; their cells are cut
 * again to the new widths. The row of headers (cells[0]) is never cut.
 */
function giveWay(columns: readonly TableColumn[], cells: string[][], widths: number[], maxWidth: number): void {
  const last = columns.length - 1;
  const used = () => widths.slice(0, last).reduce((a, w) => a + w + 2, 0);
  const floor = (i: number) => Math.max(CUT_COLUMN_FLOOR, displayWidth(cells[0]![i] ?? ''));
  const cuttable = columns.map((_c, i) => i).filter((i) => i < last && columns[i]!.maxWidth !== undefined);
  let over = used() + LAST_COLUMN_ROOM - maxWidth;
  while (over > 0) {
    const widest = cuttable.filter((i) => widths[i]! > floor(i)).sort((a, b) => widths[b]! - widths[a]!)[0];
    if (widest === undefined) return;
    const to = Math.max(floor(widest), widths[widest]! - over);
    over -= widths[widest]! - to;
    widths[widest] = to;
    for (const row of cells.slice(1)) row[widest] = truncate(row[widest]!, to);
  }
}

function pad(text: string, width: number, align: Align): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'right' ? fill + text : text + fill;
}
