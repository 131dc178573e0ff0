// JSON and NDJSON for scripts. Ids are bigint in smq (SmoothMQ's snowflakes exceed 2^53,
// which JSON numbers can't carry through most parsers), so they are written as strings.
// Dates become ISO strings (Date#toJSON).

import { FORMAT_AND_SEPARATORS } from '../text/escape.js';

function replacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

// JSON.stringify escapes C0 controls but leaves DEL, C1 controls, the invisible format
// characters (bidi marks, overrides, zero-width ones, tags) and the line/paragraph
// separators raw. Outside strings JSON is pure ASCII, so escaping these as \uXXXX
// everywhere keeps the same value and keeps a terminal safe. Zero-width joiners in emoji
// too: JSON is for scripts, and the escape loses nothing.
const UNSAFE_IN_JSON = new RegExp(`[\\u007f-\\u009f${FORMAT_AND_SEPARATORS}]`, 'gu');

/** \uXXXX for each UTF-16 unit (a tag character above U+FFFF is a surrogate pair in JSON). */
function escapeUnsafe(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (ch) => {
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}

/** One JSON document, pretty-printed, with a trailing newline. */
export function toJsonDocument(value: unknown): string {
  return escapeUnsafe(JSON.stringify(value, replacer, 2)) + '\n';
}

/** One compact JSON line (an NDJSON record), with a trailing newline. */
export function toJsonLine(value: unknown): string {
  return escapeUnsafe(JSON.stringify(value, replacer)) + '\n';
}
