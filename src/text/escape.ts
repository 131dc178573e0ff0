// Messages and queue names come from strangers: never write their control characters
// (ANSI escapes, carriage returns, bells) to a terminal raw.

// C0 controls, DEL, C1 controls, and Unicode's bidi overrides / isolates (which can reorder a line).
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffe\uffff]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

/** Escapes every unsafe character as \n, \t, \e or \u{XX}; leaves printable text (Unicode too) as is. */
export function escapeControl(text: string): string {
  return text.replace(UNSAFE, (ch) => NAMED[ch] ?? `\\u{${ch.codePointAt(0)!.toString(16)}}`);
}

/** Like escapeControl but keeps newlines (for multi-line, pretty-printed bodies). */
export function escapeControlKeepNewlines(text: string): string {
  return text
    .split('\n')
    .map((line) => escapeControl(line))
    .join('\n');
}
