// The message table of the queue view and the lines of the message detail.
import type { Capabilities, Message } from '../../backends/types.js';
import { bodyPreview, counted, fitText, formatAge, formatTimestamp, formatVisibleIn, headerLines, headersPreview } from './format.js';
import { bodyLines } from './pretty.js';
import { cellWidth } from '../../text/width.js';
import { windowOf } from './body-view.js';
import { STATE_WORDS } from '../../output/records.js';

export type MessageColumnId = 'id' | 'state' | 'reads' | 'enqueued' | 'visible' | 'lastRead' | 'headers' | 'body';

export interface MessageColumn {
  readonly id: MessageColumnId;
  readonly title: string;
  readonly width: number;
  readonly align: 'left' | 'right';
}

/** The words of every table (output/records); failed in capitals, to stand out on screen. */
const STATE_TEXT: Record<Message['state'], string> = { ...STATE_WORDS, failed: STATE_WORDS.failed.toUpperCase() };

/** HEADERS (ATTRIBUTES) is at most this wide; BODY gets the rest. */
export const HEADERS_MAX_WIDTH = 24;

/**
 * How wide HEADERS should be for these messages: as wide as the longest preview (at least
 * its title, at most HEADERS_MAX_WIDTH), 0 when none of them has any (the column is left out).
 */
export function headersWidth(messages: readonly Message[], caps: Capabilities): number {
  const longest = Math.max(0, ...messages.map((m) => cellWidth(headersPreview(m.headers))));
  if (longest === 0) return 0;
  return Math.min(HEADERS_MAX_WIDTH, Math.max(caps.attributes ? 10 : 7, longest));
}

/**
 * Columns for the queue view; HEADERS only as wide as the page's headers need (none: no
 * column), LAST READ only where the store keeps it and a message was read; they go first
 * when narrow; BODY takes the rest.
 */
export function messageColumns(
  width: number,
  caps: Capabilities,
  idWidth: number,
  headers = HEADERS_MAX_WIDTH,
  /** Some message on the page has been read: LAST READ has something to show. */
  read = false,
): MessageColumn[] {
  const cols: MessageColumn[] = [
    { id: 'id', title: 'ID', width: Math.max(2, idWidth), align: 'right' },
    { id: 'state', title: 'STATE', width: 9, align: 'left' },
    { id: 'reads', title: caps.maxRetries ? 'TRIES' : 'READS', width: caps.maxRetries ? 7 : 5, align: 'right' },
    { id: 'enqueued', title: 'AGE', width: 7, align: 'right' },
    { id: 'visible', title: 'VISIBLE', width: 9, align: 'right' },
  ];
  // When it was last handed out (pgmq 1.10+ last_read_at, SmoothMQ delivered_at), as
  // HEADERS: only when a message on the page has been.
  if (caps.lastReadAt && read) cols.push({ id: 'lastRead', title: 'LAST READ', width: 9, align: 'right' });
  if ((caps.headers || caps.attributes) && headers > 0) {
    cols.push({ id: 'headers', title: caps.attributes ? 'ATTRIBUTES' : 'HEADERS', width: headers, align: 'left' });
  }
  const used = () => cols.reduce((s, c) => s + c.width + 1, 0);
  const MIN_BODY = 16;
  // Narrow: LAST READ goes first (the detail has it), then HEADERS, then AGE.
  for (const id of ['lastRead', 'headers', 'enqueued'] as const) {
    if (width - used() >= MIN_BODY) break;
    const i = cols.findIndex((c) => c.id === id);
    if (i >= 0) cols.splice(i, 1);
  }
  cols.push({ id: 'body', title: 'BODY', width: Math.max(MIN_BODY, width - used()), align: 'left' });
  return cols;
}

export function triesText(m: Message): string {
  if (m.maxTries === undefined) return String(m.readCount);
  return `${m.readCount}/${m.maxTries < 0 ? '∞' : m.maxTries}`;
}

/** How much of a body the queue view's BODY column can be scrolled through (h/l). */
export const BODY_SCROLL_CLUSTERS = 1000;

/** BODY seen from `left` cells in (h/l in the queue view): ‹ where it goes on to the left. */
export function bodyCell(m: Message, left: number, width: number): string {
  return left > 0 ? windowOf(bodyPreview(m.body, BODY_SCROLL_CLUSTERS), left, width) : bodyPreview(m.body);
}

/** How far BODY can scroll: until the longest body on the page ends in the column. */
export function maxBodyLeft(messages: readonly Message[], width: number): number {
  const longest = Math.max(0, ...messages.map((m) => cellWidth(bodyPreview(m.body, BODY_SCROLL_CLUSTERS))));
  return longest > width ? longest - width + 1 : 0;
}

export function messageCell(m: Message, id: MessageColumnId, now: number): string {
  switch (id) {
    case 'id':
      return m.id.toString();
    case 'state':
      return m.archivedAt !== undefined ? 'archived' : STATE_TEXT[m.state];
    case 'reads':
      return triesText(m);
    case 'enqueued':
      return m.enqueuedAt ? formatAge((now - m.enqueuedAt.getTime()) / 1000) : '-';
    case 'visible':
      // In the archive this column is ARCHIVED: how long ago.
      if (m.archivedAt !== undefined) return m.archivedAt ? formatAge((now - m.archivedAt.getTime()) / 1000) : '-';
      return formatVisibleIn(m.visibleAt, now);
    case 'lastRead':
      return m.lastReadAt ? formatAge((now - m.lastReadAt.getTime()) / 1000) : '-';
    case 'headers':
      return headersPreview(m.headers);
    case 'body':
      return bodyPreview(m.body);
  }
}

export function messageLine(m: Message, cols: readonly MessageColumn[], now: number, bodyLeft = 0): string {
  return cols
    .map((c) => fitText(c.id === 'body' && bodyLeft > 0 ? bodyCell(m, bodyLeft, c.width) : messageCell(m, c.id, now), c.width, c.align))
    .join(' ');
}

export function messageTitle(cols: readonly MessageColumn[], archive = false): string {
  return cols.map((c) => fitText(archive && c.id === 'visible' ? 'ARCHIVED' : c.title, c.width, c.align)).join(' ');
}

/** The facts of the detail view (they change with the clock), headers or attributes. */
export function detailFacts(m: Message, caps: Capabilities, now: number): string[] {
  const lines = [
    `id          ${m.id.toString()}`,
    `state       ${m.archivedAt !== undefined ? 'archived' : STATE_TEXT[m.state]}`,
    ...(m.archivedAt !== undefined
      ? [`archived at ${formatTimestamp(m.archivedAt)}${m.archivedAt ? `  (${formatAge((now - m.archivedAt.getTime()) / 1000)} ago)` : ''}`]
      : []),
    `${caps.maxRetries ? 'tries      ' : 'read count '} ${triesText(m)}`,
    `enqueued    ${formatTimestamp(m.enqueuedAt)}${m.enqueuedAt ? `  (${formatAge((now - m.enqueuedAt.getTime()) / 1000)} ago)` : ''}`,
    `visible at  ${formatTimestamp(m.visibleAt)}  (${formatVisibleIn(m.visibleAt, now)})`,
  ];
  // Only where the store keeps it (pgmq 1.10+ and the compat schema, SmoothMQ).
  if (caps.lastReadAt) {
    lines.push(
      `last read   ${formatTimestamp(m.lastReadAt)}${m.lastReadAt ? `  (${formatAge((now - m.lastReadAt.getTime()) / 1000)} ago)` : ''}`,
    );
  }
  const hdrs = headerLines(m.headers);
  const label = caps.attributes ? 'attributes' : 'headers';
  if (caps.headers || caps.attributes || hdrs.length > 0) {
    lines.push('', hdrs.length > 0 ? `${label}:` : `${label}: none`);
    for (const h of hdrs) lines.push(`  ${h}`);
  }
  return lines;
}

/**
 * The body under its title line, bounded (see ./pretty.ts). Depends on the body only, so
 * the screen computes it once per body, not at every refresh.
 */
export function bodySection(body: string, storedBytes?: number): string[] {
  const pretty = bodyLines(body);
  // The stored size (a SmoothMQ body that is not UTF-8 has fewer bytes than its text with U+FFFD).
  const bytes = storedBytes ?? Buffer.byteLength(body, 'utf8');
  const lines = ['', `body${pretty.json ? ' (JSON)' : ''}, ${counted(bytes, 'byte')}:`, ...pretty.lines];
  if (pretty.cut) lines.push(`… the rest of the body is not shown here (${counted(bytes, 'byte')} in all: smq peek prints it whole)`);
  return lines;
}

/** Every line of the detail view: facts, headers or attributes, then the body. */
export function detailLines(m: Message, caps: Capabilities, now: number): string[] {
  return [...detailFacts(m, caps, now), ...bodySection(m.body, m.bodyBytes)];
}
