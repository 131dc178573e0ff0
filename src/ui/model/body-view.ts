// Long lines in the message view (issue 18): either wrapped into rows of the screen's width
// (`w`), or one row per line cut at the edge and scrolled sideways a few cells at a time
// (h/l, ←/→), with ‹ and … where the line goes on. Widths are terminal cells (string-width,
// see text/width.ts); lines are escaped before they get here. Every function costs what the
// screen shows, never the whole body: a 1 MB body is 20,000 lines, and a key must not
// wrap all of them.
import { cellWidth, clusters, cutToCells } from '../../text/width.js';
import { clampScroll } from './viewport.js';

/** Cells one press of h/l (←/→) moves the text sideways. */
export const HSCROLL_STEP = 8;

export interface BodyView {
  /** Long lines wrap into rows (true) or are cut at the edge (false, the default). */
  readonly wrap: boolean;
  /** The line at the top of the screen. */
  readonly top: number;
  /** Wrapped: the first row of that line on screen. */
  readonly sub: number;
  /** Not wrapped: cells scrolled to the right. */
  readonly left: number;
}

export const INITIAL_BODY_VIEW: BodyView = { wrap: false, top: 0, sub: 0, left: 0 };

/** Text of one cell a code unit (ASCII, accented Latin, Greek, Cyrillic): cut by length, not by cluster. */
const ONE_CELL = /^[\u0020-\u007e\u00a0-\u00ac\u00ae-\u02ff\u0370-\u0482]*$/;

/** A line broken into rows of at most `width` cells; a cluster (日, 👍🏽) is never split. */
export function wrapRows(line: string, width: number): string[] {
  const w = Math.max(1, width);
  if (ONE_CELL.test(line)) {
    if (line.length <= w) return [line];
    const rows: string[] = [];
    for (let i = 0; i < line.length; i += w) rows.push(line.slice(i, i + w));
    return rows;
  }
  const rows: string[] = [];
  let row = '';
  let used = 0;
  for (const c of clusters(line)) {
    if (used + c.width > w && row !== '') {
      rows.push(row);
      row = '';
      used = 0;
    }
    row += c.text;
    used += c.width;
  }
  rows.push(row);
  return rows;
}

/**
 * The part of a line a window of `width` cells shows from `left` cells in: at 0 the line
 * cut with … (as before); further in, ‹ in the first cell says the line goes on to the
 * left and … in the last that it goes on to the right. A wide character cut by either
 * edge shows as spaces; a line that ends left of the window is blank (the title says how
 * far the view is scrolled). Walks the line only up to the window's right edge.
 */
export function windowOf(line: string, left: number, width: number): string {
  if (width < 1) return '';
  if (left <= 0) return cutToCells(line, width);
  if (line === '') return '';
  const end = left + width;
  if (ONE_CELL.test(line.slice(0, end + 1))) {
    if (line.length <= left) return ''; // all of it is to the left: blank, as in less -S
    if (line.length > end) return `‹${line.slice(left + 1, end - 1)}…`;
    return `‹${line.slice(left + 1, end)}`;
  }
  // Clusters in the window after the ‹ cell, with the cell each ends at.
  const pieces: { text: string; end: number }[] = [];
  let pos = 0;
  let overflow = false;
  for (const c of clusters(line)) {
    const start = pos;
    pos += c.width;
    if (pos <= left) continue; // hidden to the left
    if (pos > end) {
      overflow = true;
      break;
    }
    // Cut by the left edge: what shows of it is blank.
    pieces.push({ text: start < left + 1 ? ' '.repeat(Math.max(0, pos - (left + 1))) : c.text, end: pos });
  }
  if (pieces.length === 0 && !overflow) return ''; // all of it is to the left
  const limit = overflow ? end - 1 : end;
  let out = '‹';
  let filled = left + 1;
  for (const p of pieces) {
    if (p.end > limit) break;
    out += p.text;
    filled = p.end;
  }
  return overflow ? `${out}${' '.repeat(Math.max(0, limit - filled))}…` : out;
}

/** Rows of one line as the view shows them. */
function rowsOf(line: string, view: BodyView, width: number): string[] {
  return view.wrap ? wrapRows(line, width) : [windowOf(line, view.left, width)];
}

/** The first position of the last full screen. */
export function viewEnd(lines: readonly string[], view: BodyView, width: number, height: number): BodyView {
  if (!view.wrap) return { ...view, top: Math.max(0, lines.length - height), sub: 0 };
  let need = Math.max(1, height);
  for (let i = lines.length - 1; i >= 0; i--) {
    const rows = wrapRows(lines[i]!, width).length;
    if (rows >= need) return { ...view, top: i, sub: rows - need };
    need -= rows;
  }
  return { ...view, top: 0, sub: 0 };
}

const after = (a: BodyView, b: BodyView) => a.top > b.top || (a.top === b.top && a.sub > b.sub);

/** Wrapped: the position clamped to [start, last full screen]. */
function clampWrapped(lines: readonly string[], view: BodyView, width: number, height: number): BodyView {
  const end = viewEnd(lines, view, width, height);
  return after(view, end) ? end : view;
}

/** Moves the view `delta` rows (a row is a line when not wrapped), within the body. */
export function scrollView(lines: readonly string[], view: BodyView, delta: number, width: number, height: number): BodyView {
  if (!view.wrap) return { ...view, top: clampScroll(view.top + delta, lines.length, height) };
  let { top, sub } = view;
  let remaining = Math.abs(delta);
  if (delta > 0) {
    while (remaining > 0 && top < lines.length) {
      const rows = wrapRows(lines[top]!, width).length;
      if (sub + remaining < rows) {
        sub += remaining;
        remaining = 0;
      } else {
        remaining -= rows - sub;
        top++;
        sub = 0;
      }
    }
  } else {
    while (remaining > 0) {
      if (remaining <= sub) {
        sub -= remaining;
        break;
      }
      remaining -= sub;
      if (top === 0) {
        sub = 0;
        break;
      }
      top--;
      sub = wrapRows(lines[top]!, width).length - 1;
      remaining--;
    }
  }
  return clampWrapped(lines, { ...view, top, sub }, width, height);
}

/** What the screen shows: its rows, and the lines they come from (first and last, 0-based). */
export function viewWindow(
  lines: readonly string[],
  view: BodyView,
  width: number,
  height: number,
): { readonly rows: string[]; readonly first: number; readonly last: number } {
  const at = view.wrap ? clampWrapped(lines, view, width, height) : { ...view, top: clampScroll(view.top, lines.length, height), sub: 0 };
  const rows: string[] = [];
  let i = at.top;
  let skip = at.sub;
  while (rows.length < height && i < lines.length) {
    const own = rowsOf(lines[i]!, view, width);
    rows.push(...own.slice(skip, skip + (height - rows.length)));
    skip = 0;
    i++;
  }
  return { rows, first: at.top, last: Math.max(at.top, i - 1) };
}

export function visibleRows(lines: readonly string[], view: BodyView, width: number, height: number): string[] {
  return viewWindow(lines, view, width, height).rows;
}

/** h/l: a step sideways, not past where the longest line on screen ends; nothing while wrapped. */
export function shiftView(lines: readonly string[], view: BodyView, direction: 1 | -1, width: number, height: number): BodyView {
  if (view.wrap) return view;
  if (direction < 0) return { ...view, left: Math.max(0, view.left - HSCROLL_STEP) };
  const top = clampScroll(view.top, lines.length, height);
  const longest = Math.max(0, ...lines.slice(top, top + height).map((l) => cellWidth(l)));
  const maxLeft = longest > width ? longest - width + 1 : 0;
  return { ...view, left: Math.max(view.left, Math.min(view.left + HSCROLL_STEP, maxLeft)) };
}

/** `w`: wrapped rows or cut lines; the line on top stays on top. */
export function toggleWrap(view: BodyView): BodyView {
  return { wrap: !view.wrap, top: view.top, sub: 0, left: 0 };
}
