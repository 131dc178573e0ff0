// Long bodies in the message view (issue 18): wrapped rows or one row per line cut at the
// edge, scrolled sideways a few cells at a time; wide characters measured as the terminal
// does; work bounded by what the screen shows, whatever the body's size.
import { describe, expect, test } from 'vitest';
import {
  HSCROLL_STEP,
  INITIAL_BODY_VIEW,
  scrollView,
  shiftView,
  toggleWrap,
  viewEnd,
  visibleRows,
  windowOf,
  wrapRows,
} from '../../src/ui/model/body-view.js';
import { cellWidth } from '../../src/text/width.js';
import { bodyLines } from '../../src/ui/model/pretty.js';

describe('wrapRows', () => {
  test('ASCII: rows of the width, the last shorter; an empty line is one empty row', () => {
    expect(wrapRows('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapRows('', 4)).toEqual(['']);
    expect(wrapRows('abcd', 4)).toEqual(['abcd']);
  });
  test('wide characters: never split, never past the width (string-width cells)', () => {
    const rows = wrapRows('a日本語b', 4);
    expect(rows).toEqual(['a日', '本語', 'b']);
    for (const r of rows) expect(cellWidth(r)).toBeLessThanOrEqual(4);
    // An emoji with a skin tone is one cluster: it moves whole to the next row.
    expect(wrapRows('abc👍🏽d', 4)).toEqual(['abc', '👍🏽', 'd']);
  });
  test('RTL text wraps by cells like any other', () => {
    const rows = wrapRows('שלום עולם שלום', 5);
    expect(rows.join('')).toBe('שלום עולם שלום');
    for (const r of rows) expect(cellWidth(r)).toBeLessThanOrEqual(5);
  });
});

describe('windowOf: a line seen from `left` cells in', () => {
  test('at 0 it is cut at the edge with … as before', () => {
    expect(windowOf('abcdefghij', 0, 6)).toBe('abcde…');
    expect(windowOf('abc', 0, 6)).toBe('abc');
  });
  test('scrolled: ‹ says the line goes on to the left, … to the right', () => {
    expect(windowOf('abcdefghijklmnop', 4, 6)).toBe('‹fghi…');
    expect(windowOf('abcdefghij', 4, 6)).toBe('‹fghij');
    // A line that ends before the window is blank (as in less -S), also in wide text.
    expect(windowOf('abc', 4, 6)).toBe('');
    expect(windowOf('abcd', 4, 6)).toBe('');
    expect(windowOf('abcde', 4, 6)).toBe('‹');
    expect(windowOf('日本', 4, 6)).toBe('');
    expect(windowOf('', 4, 6)).toBe('');
  });
  test('a wide character cut by the left edge becomes a space; widths stay within the window', () => {
    const line = '日本語のテキスト';
    for (let left = 0; left < 16; left++) {
      const w = windowOf(line, left, 7);
      expect(cellWidth(w)).toBeLessThanOrEqual(7);
    }
    expect(windowOf(line, 2, 7)).toBe('‹ 語の…');
    expect(windowOf(line, 3, 7)).toBe('‹語の …');
  });
  test('a long line costs what the window shows', () => {
    const line = 'x'.repeat(1_000_000);
    const t = Date.now();
    for (let i = 0; i < 1000; i++) windowOf(line, 16, 120);
    expect(Date.now() - t).toBeLessThan(500);
    const emoji = '😀'.repeat(200_000);
    const t2 = Date.now();
    expect(windowOf(emoji, 8, 10)).toBe('‹ 😀😀😀 …');
    expect(Date.now() - t2).toBeLessThan(200);
  });
});

describe('scrolling, wrapped and not', () => {
  const lines = ['a'.repeat(25), 'b', 'c'.repeat(12), 'd', 'e'];
  test('unwrapped: one row a line, top clamps so the last screen is full', () => {
    let v = INITIAL_BODY_VIEW;
    expect(visibleRows(lines, v, 10, 3)).toEqual(['aaaaaaaaa…', 'b', 'ccccccccc…']);
    v = scrollView(lines, v, 1, 10, 3);
    expect(visibleRows(lines, v, 10, 3)[0]).toBe('b');
    v = scrollView(lines, v, 100, 10, 3);
    expect(v.top).toBe(2);
    expect(viewEnd(lines, v, 10, 3).top).toBe(2);
  });
  test('wrapped: rows of each line; a step moves one row, inside a line too', () => {
    let v = toggleWrap(INITIAL_BODY_VIEW);
    expect(visibleRows(lines, v, 10, 4)).toEqual(['aaaaaaaaaa', 'aaaaaaaaaa', 'aaaaa', 'b']);
    v = scrollView(lines, v, 1, 10, 4);
    expect(visibleRows(lines, v, 10, 4)).toEqual(['aaaaaaaaaa', 'aaaaa', 'b', 'cccccccccc']);
    v = scrollView(lines, v, 3, 10, 4);
    expect(visibleRows(lines, v, 10, 4)).toEqual(['cccccccccc', 'cc', 'd', 'e']);
    // The end: the last screen is full, further steps stay.
    expect(scrollView(lines, v, 5, 10, 4)).toEqual(v);
    expect(viewEnd(lines, toggleWrap(INITIAL_BODY_VIEW), 10, 4)).toEqual(v);
    v = scrollView(lines, v, -2, 10, 4);
    expect(visibleRows(lines, v, 10, 4)[0]).toBe('aaaaa');
    expect(scrollView(lines, v, -100, 10, 4)).toEqual(toggleWrap(INITIAL_BODY_VIEW));
  });
  test('sideways: steps of a few cells, not past the longest line on screen; wrapping ignores it', () => {
    let v = shiftView(lines, INITIAL_BODY_VIEW, 1, 10, 5);
    expect(v.left).toBe(HSCROLL_STEP);
    expect(visibleRows(lines, v, 10, 5)[0]).toBe(`‹${'a'.repeat(8)}…`);
    v = shiftView(lines, v, 1, 10, 5);
    v = shiftView(lines, v, 1, 10, 5);
    v = shiftView(lines, v, 1, 10, 5);
    // 25 cells in a window of 10 (1 for ‹): 16 at most.
    expect(v.left).toBe(16);
    expect(visibleRows(lines, v, 10, 5)[0]).toBe(`‹${'a'.repeat(8)}`);
    v = shiftView(lines, v, -1, 10, 5);
    expect(v.left).toBe(8);
    v = shiftView(lines, v, -1, 10, 5);
    v = shiftView(lines, v, -1, 10, 5);
    expect(v.left).toBe(0);
    const w = toggleWrap({ ...v, left: 8 });
    expect(w.left).toBe(0);
    expect(shiftView(lines, w, 1, 10, 5)).toEqual(w);
  });
  test('toggling keeps the line on top', () => {
    const v = toggleWrap(scrollView(lines, toggleWrap(INITIAL_BODY_VIEW), 2, 10, 3));
    expect(v).toEqual({ wrap: false, top: 0, sub: 0, left: 0 });
    const v2 = toggleWrap(scrollView(lines, INITIAL_BODY_VIEW, 2, 10, 3));
    expect(v2).toEqual({ wrap: true, top: 2, sub: 0, left: 0 });
  });
  test('a 1 MB body: every move costs what the screen shows', () => {
    const body = JSON.stringify({ items: Array.from({ length: 8000 }, (_, i) => ({ i, text: 'é'.repeat(100) + '日本' })) });
    expect(body.length).toBeGreaterThan(900_000);
    const { lines: big } = bodyLines(body);
    const t = Date.now();
    let v = toggleWrap(INITIAL_BODY_VIEW);
    for (let i = 0; i < 50; i++) v = scrollView(big, v, 37, 100, 40);
    v = viewEnd(big, v, 100, 40);
    expect(visibleRows(big, v, 100, 40)).toHaveLength(40);
    v = toggleWrap(v);
    for (let i = 0; i < 20; i++) v = shiftView(big, v, 1, 100, 40);
    expect(Date.now() - t).toBeLessThan(1000);
  });
});
