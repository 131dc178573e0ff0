// A tiny aligned-column formatter. Cells are escaped here, so callers can pass raw text
// from messages and queue names.
import { escapeControl } from '../text/escape.js';

export type Align = 'left' | 'right';

export interface TableColumn {
  readonly header: string;
  readonly align?: Align;
}

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
 * maxWidth when given. Returns the text with a trailing newline.
 */
export function renderTable(columns: readonly TableColumn[], rows: readonly (readonly string[])[], options: RenderOptions = {}): string {
  const cells = [columns.map((c) => escapeControl(c.header)), ...rows.map((r) => columns.map((_, i) => escapeControl(r[i] ?? '')))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => displayWidth(r[i] ?? ''))));
  const last = columns.length - 1;
  const lines = cells.map((row) => {
    let used = 0;
    const parts = row.map((cell, i) => {
      if (i === last) {
        const room = options.maxWidth === undefined ? undefined : Math.max(options.maxWidth - used, 20);
        const text = room === undefined ? cell : truncate(cell, room);
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
