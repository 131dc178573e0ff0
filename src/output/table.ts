// A tiny aligned-column formatter. Cells are escaped here, so callers can pass raw text
// from messages and queue names.
import { escapeControl } from '../text/escape.js';

export type Align = 'left' | 'right';

export interface TableColumn {
  readonly header: string;
  readonly align?: Align;
  /** Cells wider than this (display columns, after escaping) are cut, ending with …. */
  readonly maxWidth?: number;
}

/**
 * Without a terminal width (output piped with --output table) the last column is still cut
 * here: a table is for reading, and a 1 MB body would make it unreadable. --output json
 * carries every value whole.
 */
export const PIPED_LAST_COLUMN_WIDTH = 1000;

// Zero-width code points (combining marks, joiners, variation selectors) and the wide
// East Asian / emoji ranges, so CJK and emoji don't push later columns out of line.
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\u200b-\u200d\u2060\ufe00-\ufe0f]$/u;
const WIDE =
  /^[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]$/u;

/** Terminal columns a string takes (an approximation good enough for alignment). */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    if (ZERO_WIDTH.test(ch)) continue;
    width += WIDE.test(ch) ? 2 : 1;
  }
  return width;
}

/** Cuts text to at most `max` columns, ending with … when something was cut. */
export function truncate(text: string, max: number): string {
  if (max < 1) return '';
  if (displayWidth(text) <= max) return text;
  let out = '';
  let width = 0;
  for (const ch of text) {
    const w = ZERO_WIDTH.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
    if (width + w > max - 1) break;
    out += ch;
    width += w;
  }
  return `${out}…`;
}

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
  const fit = (text: string, column: TableColumn | undefined) => {
    const escaped = escapeControl(text);
    return column?.maxWidth === undefined ? escaped : truncate(escaped, column.maxWidth);
  };
  const cells = [columns.map((c) => escapeControl(c.header)), ...rows.map((r) => columns.map((c, i) => fit(r[i] ?? '', c)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => displayWidth(r[i] ?? ''))));
  const last = columns.length - 1;
  const lines = cells.map((row) => {
    let used = 0;
    const parts = row.map((cell, i) => {
      if (i === last) {
        const room = options.maxWidth === undefined ? PIPED_LAST_COLUMN_WIDTH : Math.max(options.maxWidth - used, 20);
        const text = truncate(cell, room);
        return columns[i]?.align === 'right' ? pad(text, widths[i] ?? 0, 'right') : text;
      }
      const padded = pad(cell, widths[i] ?? 0, columns[i]?.align ?? 'left');
      used += displayWidth(padded) + 2;
      return padded;
    });
    return parts.join('  ');
  });
  return lines.map((l) => l.trimEnd()).join('\n') + '\n';
}

function pad(text: string, width: number, align: Align): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'right' ? fill + text : text + fill;
}
