// Messages and queue names come from strangers: never write their control characters
// (ANSI escapes, carriage returns, bells) to a terminal raw.

/**
 * Printable-looking characters that still change how a line is shown: the invisible format
 * characters (Unicode category Cf: the bidi marks U+061C and U+200E/F, overrides and
 * isolates, which can reorder a line; zero-width space and joiners, word joiner, BOM, soft
 * hyphen, tags, which make two different names look the same), and the line and paragraph
 * separators (which some terminals and most viewers break the line at). A class body for a
 * `u` regex, shared with the JSON output.
 */
export const FORMAT_AND_SEPARATORS = '\\p{Cf}\\u2028\\u2029';

// C0 controls, DEL, C1 controls, the characters above, and the non-characters U+FFFE/F.
const UNSAFE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${FORMAT_AND_SEPARATORS}\\ufffe\\uffff]`, 'gu');

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

// A zero-width joiner between two pictographs (after a skin tone or VS16, if any) is drawn
// as part of the emoji (👨‍👩‍👧, 👩🏽‍💻): it stays. Anywhere else it is invisible.
const EMOJI_BEFORE = /\p{Extended_Pictographic}(?:[\u{1f3fb}-\u{1f3ff}]|\ufe0f)?$/u;
const EMOJI_AFTER = /^\p{Extended_Pictographic}/u;
const ZWJ = '\u200d';

function emojiJoiner(text: string, at: number): boolean {
  return EMOJI_BEFORE.test(text.slice(Math.max(0, at - 4), at)) && EMOJI_AFTER.test(text.slice(at + 1, at + 3));
}

/** Escapes every unsafe character as \n, \t, \e or \u{XX}; leaves printable text (Unicode too) as is. */
export function escapeControl(text: string): string {
  return text.replace(UNSAFE, (ch: string, at: number) => {
    if (ch === ZWJ && emojiJoiner(text, at)) return ch;
    return NAMED[ch] ?? `\\u{${ch.codePointAt(0)!.toString(16)}}`;
  });
}

/** Like escapeControl but keeps newlines (for multi-line, pretty-printed bodies). */
export function escapeControlKeepNewlines(text: string): string {
  return text
    .split('\n')
    .map((line) => escapeControl(line))
    .join('\n');
}
