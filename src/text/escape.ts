// Messages and queue names come from strangers: never write their control characters
// (ANSI escapes, carriage returns, bells) to a terminal raw.

/**
 * Printable-looking characters that still change how a line is shown: Unicode's bidi
 * marks (U+061C ARABIC LETTER MARK, U+200E/F LRM/RLM), overrides and isolates (which can
 * reorder a line), and the line and paragraph separators (which some terminals and most
 * viewers break the line at). A class body, shared with the JSON output.
 */
export const BIDI_AND_SEPARATORS = '\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069';

// C0 controls, DEL, C1 controls, the characters above, and the non-characters U+FFFE/F.
const UNSAFE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${BIDI_AND_SEPARATORS}\\ufffe\\uffff]`, 'g');

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
