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
  readonly bodyHeight: number;
}

/**
 * `alert`: the fourth line says something (the database unreachable: kept before everything
 * else; a standby's replication: after the summary); else it is a blank spacer, given up first.
 */
export function topLayout(rows: number, alert: 'outage' | 'replication' | undefined): TopLayout {
  const room = Math.max(0, rows - 1 - FOOTER_LINES - MIN_BODY);
  const priority: HeaderLine[] =
    alert === 'outage'
      ? ['alert', 'summary', 'health', 'title']
      : alert === 'replication'
        ? ['summary', 'alert', 'health', 'title']
        : ['summary', 'health', 'title', 'alert'];
  const kept = new Set(priority.slice(0, Math.min(HEADER_ORDER.length, room)));
  const header = HEADER_ORDER.filter((line) => kept.has(line));
  return { header, bodyHeight: Math.max(1, rows - 1 - FOOTER_LINES - header.length) };
}
