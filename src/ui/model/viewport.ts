// Selection and scrolling of a list that is taller than the screen.

/** Moves a selection by delta within [0, count); stays at -1 for an empty list. */
export function moveSelection(index: number, delta: number, count: number): number {
  if (count <= 0) return -1;
  return Math.max(0, Math.min(count - 1, (index < 0 ? 0 : index) + delta));
}

/**
 * The first visible line, so that the selected one is on screen: it keeps the previous
 * offset while that works (the list does not jump on every move).
 */
export function scrollOffset(selected: number, previousOffset: number, height: number, count: number): number {
  if (height <= 0 || count <= height) return 0;
  const maxOffset = count - height;
  let offset = Math.max(0, Math.min(previousOffset, maxOffset));
  if (selected < offset) offset = selected;
  else if (selected >= offset + height) offset = selected - height + 1;
  return Math.max(0, Math.min(offset, maxOffset));
}

/** The index of the row with this key, else the nearest valid index (the row vanished). */
export function indexOfKey(keys: readonly string[], key: string | undefined, fallback: number): number {
  if (keys.length === 0) return -1;
  if (key !== undefined) {
    const i = keys.indexOf(key);
    if (i >= 0) return i;
  }
  return Math.max(0, Math.min(keys.length - 1, fallback));
}

/** Scrolling text: the largest valid offset for `lines` lines in `height`. */
export function clampScroll(offset: number, lines: number, height: number): number {
  return Math.max(0, Math.min(offset, Math.max(0, lines - height)));
}
