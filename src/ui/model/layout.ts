// How top's screen is shared out between the header, the screen's body and the footer. The
// frame is one line shorter than the terminal (Ink ends a frame with a newline: a full-height
// frame would scroll its first line off). The footer's two lines (the prompt or status, the
// keys) always stay; the body keeps at least a bar, a column header and one row; on a short
// terminal the header gives way, its least useful lines first.

/** The header's lines, in the order they are drawn. */
export type HeaderLine = 'title' | 'summary' | 'health' | 'alert';

export const HEADER_ORDER: readonly HeaderLine[] = ['title', 'summary', 'health', 'alert'];
export const FOOTER_LINES = 2;
/** A list's bar, its column header and one row. */
export const MIN_BODY = 3;

export interface TopLayout {
  /** The header's lines to draw, in HEADER_ORDER. */
  readonly header: readonly HeaderLine[];
  /** The body's height as its screen lays it out (pages are this long, whatever prompt is open). */
  readonly bodyHeight: number;
  /**
   * The body's lines left in view: a prompt of more than one line covers its bottom lines
   * (the page is not fetched again for a question), at least one stays.
   */
  readonly shownBody: number;
  /** Lines the prompt (or status) may take: what it asked for, when the screen has them. */
  readonly promptLines: number;
}

/**
 * `alert`: the fourth line says something (the database unreachable: kept before everything
 * else; a standby's replication: after the summary); else it is a blank spacer, given up first.
 */
export function topLayout(
  rows: number,
  alert: 'outage' | 'replication' | undefined,
  /** Lines the open prompt needs (model/prompt-lines); 1 for the status line. */
  wantedPromptLines = 1,
): TopLayout {
  const room = Math.max(0, rows - 1 - FOOTER_LINES - MIN_BODY);
  const priority: HeaderLine[] =
    alert === 'outage'
      ? ['alert', 'summary', 'health', 'title']
      : alert === 'replication'
        ? ['summary', 'alert', 'health', 'title']
        : ['summary', 'health', 'title', 'alert'];
  const keptCount = Math.min(HEADER_ORDER.length, room);
  const bodyHeight = Math.max(1, rows - 1 - FOOTER_LINES - keptCount);
  // The prompt's extra lines come out of the body, down to one line; then out of the
  // header, its least useful lines first; the prompt never takes the last body line.
  const promptLines = Math.max(1, Math.min(wantedPromptLines, rows - 1 - (FOOTER_LINES - 1) - 1));
  const extra = promptLines - 1;
  const headerCount = Math.max(0, Math.min(keptCount, rows - 1 - FOOTER_LINES - extra - 1));
  const kept = new Set(priority.slice(0, headerCount));
  const header = HEADER_ORDER.filter((line) => kept.has(line));
  const shownBody = Math.max(1, Math.min(bodyHeight, rows - 1 - FOOTER_LINES - extra - header.length));
  return { header, bodyHeight, shownBody, promptLines };
}
