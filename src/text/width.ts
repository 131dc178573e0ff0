// How many terminal cells a string takes, so that a row cut to fit never wraps (a wrapped
// row pushes the whole screen up and the header off it).
//
// Ink lays text out with string-width (grapheme clusters: 👍🏽, 👨‍👩‍👧 and 🇫🇷 are 2 cells,
// combining marks 0). Terminals that draw a cluster code point by code point (tmux 3.3,
// xterm, most wcwidth-based ones) draw 👍🏽 as 4 cells and 👨‍👩‍👧 as 6. A cluster is therefore
// counted as the larger of the two: Ink never measures our text wider than we did (so it
// never cuts or wraps it again), and no terminal draws it wider than we counted. Where a
// terminal joins the cluster, the row just ends a little early.
import stringWidth from 'string-width';

const segmenter = new Intl.Segmenter();

/** Cells of one grapheme cluster: Ink's count, or the code points' sum when that is larger. */
function clusterWidth(cluster: string): number {
  // Printable Latin, Greek and Cyrillic letters are one cell (string-width agrees); measuring
  // each with string-width made wrapping a 1 MB body of accented text take seconds.
  if (cluster.length === 1) {
    const c = cluster.charCodeAt(0);
    if ((c >= 0x20 && c < 0x7f) || (c >= 0xa0 && c < 0x300 && c !== 0xad) || (c >= 0x370 && c < 0x483)) return 1;
  }
  const joined = stringWidth(cluster);
  if (cluster.length === 1) return joined;
  let separate = 0;
  for (const cp of cluster) separate += stringWidth(cp);
  return Math.max(joined, separate);
}

/** Code units segmented at a time (see segments). */
const WINDOW = 4096;

/**
 * The grapheme clusters of `text`, a window at a time: V8's segmenter takes time that grows
 * with the whole string at every step (1,000 clusters of a 1 MB body took 7.5 s), so it is
 * given WINDOW code units at once. A window's last cluster may go on past it: it is held back
 * and the next window starts there, at a cluster boundary, where segmenting anew gives the
 * same clusters (flags pair up from a boundary; a ZWJ sequence never spans one). A window
 * never ends inside a surrogate pair: whether a boundary falls before the held cluster
 * depends on its whole first code point. A cluster longer than a window widens the window
 * until it ends.
 */
function* segments(text: string): Generator<string> {
  let at = 0;
  let size = WINDOW;
  while (at < text.length) {
    let end = Math.min(text.length, at + size);
    // Never half a surrogate pair: the boundary before the held cluster depends on the code point after it.
    if (end < text.length && /[\ud800-\udbff]/.test(text[end - 1]!)) end -= 1;
    let held: string | undefined;
    let moved = false;
    for (const { segment } of segmenter.segment(text.slice(at, end))) {
      if (held !== undefined) {
        yield held;
        at += held.length;
        moved = true;
      }
      held = segment;
    }
    if (end === text.length) {
      if (held !== undefined) yield held;
      return;
    }
    size = moved ? WINDOW : size * 2;
  }
}

/** The grapheme clusters of `text`, each with its width in cells. */
export function* clusters(text: string): Generator<{ readonly text: string; readonly width: number }> {
  for (const segment of segments(text)) yield { text: segment, width: clusterWidth(segment) };
}

/** Terminal cells `text` takes (no ANSI sequences expected: text is escaped before it is measured). */
export function cellWidth(text: string): number {
  // ASCII, the common case, is one cell a character.
  if (/^[\u0020-\u007e]*$/.test(text)) return text.length;
  let width = 0;
  for (const c of clusters(text)) width += c.width;
  return width;
}

/** Cuts text to at most `max` cells, ending with … when something was cut; never splits a cluster. */
export function cutToCells(text: string, max: number): string {
  if (max < 1) return '';
  if (/^[\u0020-\u007e]*$/.test(text)) return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
  // One walk that stops past the edge: a 1 MB body costs what the screen shows.
  let width = 0;
  let fits = 0; // length of the prefix that leaves room for the ellipsis
  let room = true;
  for (const c of clusters(text)) {
    if (room && width + c.width <= max - 1) fits += c.text.length;
    else room = false;
    width += c.width;
    if (width > max) return `${text.slice(0, fits)}…`;
  }
  return text;
}

/**
 * The end of `text` in at most `max` cells, starting with … when something was cut (the
 * end of a line being typed); never splits a cluster. Only the last max * 8 code units are
 * walked: a 1 MB paste costs what the screen shows. One segmentation of that tail, walked
 * back from its end: the clusters that fit in max - 1 cells (with the …) are a run at the
 * end, since widths only add up; the walk stops once past max cells (then it is cut), and
 * one that reaches the start without passing max has measured the whole tail. Only the
 * clusters walked are measured.
 */
export function tailToCells(text: string, max: number): string {
  if (max < 1) return '';
  const all = Array.from(segmenter.segment(text.slice(-max * 8)), (s) => s.segment);
  let width = 0;
  let start = all.length; // all[start..] fit in max - 1 cells
  for (let i = all.length - 1; i >= 0 && width <= max; i--) {
    width += clusterWidth(all[i]!);
    if (width <= max - 1) start = i;
  }
  if (width <= max && text.length <= max * 8) return text;
  return `…${all.slice(start).join('')}`;
}

/** Exactly `width` cells: cut with … when longer, padded with spaces when shorter. */
export function fitCells(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  if (width <= 0) return '';
  const cut = cutToCells(text, width);
  const pad = ' '.repeat(Math.max(0, width - cellWidth(cut)));
  return align === 'left' ? cut + pad : pad + cut;
}

/** At most `max` clusters (a bound on work for huge bodies, before cutting to cells). */
export function firstClusters(text: string, max: number): { readonly text: string; readonly cut: boolean } {
  let out = '';
  let n = 0;
  for (const segment of segments(text)) {
    if (n++ >= max) return { text: out, cut: true };
    out += segment;
  }
  return { text: out, cut: false };
}

/**
 * Cuts a line made of differently styled parts to `max` cells as one string (… at the
 * end), and gives the parts back: what Ink's own truncation would do, measured our way.
 */
export function cutParts(parts: readonly string[], max: number): string[] {
  const whole = parts.join('');
  if (cellWidth(whole) <= max) return [...parts];
  const cut = cutToCells(whole, max);
  const kept = cut.endsWith('…') ? cut.length - 1 : cut.length;
  const out: string[] = [];
  let start = 0;
  for (const part of parts) {
    out.push(whole.slice(start, Math.max(start, Math.min(start + part.length, kept))));
    start += part.length;
  }
  const last = out.findLastIndex((p) => p !== '');
  if (cut.endsWith('…')) out[Math.max(0, last)] += '…';
  return out;
}
