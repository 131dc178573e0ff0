// How numbers, ages, times and message text are written on screen. Every string that
// came from the database goes through escapeControl here or in the component.
import { escapeControl, escapeName } from '../../text/escape.js';
import { firstClusters, fitCells } from '../../text/width.js';
import type { Message } from '../../backends/types.js';
import { bodyLines } from './pretty.js';
import { formatAge } from '../../text/age.js';

// Ages are written as everywhere else in smq (text/age).
export { formatAge };

/** 1234 -> "1234", 12345 -> "12.3k", 2_500_000 -> "2.50M"; estimates get a leading `~`. */
export function formatCount(n: number | undefined | null, estimated = false): string {
  if (n === undefined || n === null) return '-';
  const prefix = estimated ? '~' : '';
  const abs = Math.abs(n);
  let text: string;
  if (abs < 10_000) text = String(Math.round(n));
  else if (abs < 1_000_000) text = `${(n / 1000).toFixed(abs < 100_000 ? 1 : 0)}k`;
  else if (abs < 1_000_000_000) text = `${(n / 1_000_000).toFixed(abs < 10_000_000 ? 2 : 1)}M`;
  else text = `${(n / 1_000_000_000).toFixed(2)}G`;
  return prefix + text;
}

/** "1 queue", "2 queues", "0 messages": a count with its noun in the right number. */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? noun : plural}`;
}

/** Messages per second: "-" unknown, "0", "3.5", "120", "12.3k"; approximate ones get `~`. */
export function formatRate(perSec: number | null, approximate = false): string {
  if (perSec === null) return '-';
  const prefix = approximate ? '~' : '';
  if (perSec === 0) return `${prefix}0`;
  if (perSec < 10) return `${prefix}${perSec.toFixed(1)}`;
  if (perSec < 10_000) return `${prefix}${Math.round(perSec)}`;
  return prefix + formatCount(perSec);
}

/** Interval in seconds for the header: "2s", "0.5s". */
export function formatInterval(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)}s`;
}

/** Local wall-clock time HH:MM:SS. */
export function formatClock(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** ISO-like local timestamp for the message detail. */
export function formatTimestamp(d: Date | null): string {
  if (!d) return '-';
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
  );
}

/** "now" when visible, else "in 12s". */
export function formatVisibleIn(visibleAt: Date, now: number): string {
  const sec = (visibleAt.getTime() - now) / 1000;
  return sec <= 0 ? 'now' : `in ${formatAge(Math.ceil(sec))}`;
}

/** One line of a body for the message list: whitespace runs collapsed, escaped. */
export function bodyPreview(body: string, maxChars = 200): string {
  const flat = body.length > maxChars * 4 ? body.slice(0, maxChars * 4) : body;
  // Line breaks and tabs read as spaces; a carriage return alone (which rewinds a line) is escaped with the rest.
  const collapsed = flat.replace(/(?:\r\n|[ \t\n])+/g, ' ').trim();
  const escaped = escapeControl(collapsed);
  // Whole clusters only: half of an emoji (a lone surrogate or modifier) would be drawn wrong.
  const first = firstClusters(escaped, maxChars);
  return first.cut ? `${firstClusters(escaped, maxChars - 1).text}…` : escaped;
}

/** The full body for the detail view: JSON re-indented when it parses, escaped either way, bounded. */
export function prettyBody(body: string): { readonly text: string; readonly json: boolean } {
  const { lines, json } = bodyLines(body);
  return { text: lines.join('\n'), json };
}

/**
 * Re-indents valid JSON text by two spaces, keeping every literal as written: parsing and
 * re-serialising would round ids above 2^53 and rewrite escapes, and the detail view
 * must show what is stored.
 */
export function reindentJson(text: string): string {
  return bodyLines(text).lines.join('\n');
}

function headerValue(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** "k=v, k2=v2" for the list; escaped. */
export function headersPreview(headers: Message['headers'], maxChars = 60): string {
  if (!headers) return '';
  const text = Object.entries(headers)
    .map(([k, v]) => `${k}=${headerValue(v)}`)
    .join(', ');
  const escaped = escapeControl(text);
  return escaped.length > maxChars ? `${escaped.slice(0, maxChars - 1)}…` : escaped;
}

/** One escaped line per header for the detail view. */
export function headerLines(headers: Message['headers']): string[] {
  if (!headers) return [];
  return Object.entries(headers).map(([k, v]) => `${escapeControl(k)}: ${escapeControl(headerValue(v))}`);
}

/**
 * Names are escaped before they are padded or cut, so widths count what is really shown; a
 * backslash in them is doubled, so that no two names look the same (text/escape.ts).
 */
export function displayName(name: string): string {
  return escapeName(name);
}

/** Exactly `width` terminal cells (emoji, CJK and combining marks measured as a terminal draws them), cut with an ellipsis. */
export function fitText(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  return fitCells(text, width, align);
}
