// JSON and NDJSON for scripts. Ids are bigint in smq (SmoothMQ's snowflakes exceed 2^53,
// which JSON numbers can't carry through most parsers), so they are written as strings.
// Dates become ISO strings (Date#toJSON).

import { BIDI_AND_SEPARATORS } from '../text/escape.js';

function replacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

// JSON.stringify escapes C0 controls but leaves DEL, C1 controls, bidi marks and overrides and the
// line/paragraph separators raw. Outside strings JSON is pure ASCII, so escaping these
// as \uXXXX everywhere keeps the same value and keeps a terminal safe.
const UNSAFE_IN_JSON = new RegExp(`[\\u007f-\\u009f${BIDI_AND_SEPARATORS}]`, 'g');

function escapeUnsafe(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One JSON document, pretty-printed, with a trailing newline. */
export function toJsonDocument(value: unknown): string {
  return escapeUnsafe(JSON.stringify(value, replacer, 2)) + '\n';
}

/** One compact JSON line (an NDJSON record), with a trailing newline. */
export function toJsonLine(value: unknown): string {
  return escapeUnsafe(JSON.stringify(value, replacer)) + '\n';
}
