// Messages and queue names come from strangers: never write their control characters
// (ANSI escapes, carriage returns, bells) to a terminal raw.

/**
 * Printable-looking characters that still change how a line is shown: the invisible format
 * characters (Unicode category Cf: the bidi marks U+061C and U+200E/F, overrides and
 * isolates, which can reorder a line; zero-width space and joiners, word joiner, BOM, soft
 * hyphen, tags, which make two different names look the same), the other characters Unicode
 * says to draw as nothing (default-ignorable: a combining grapheme joiner, Hangul fillers,
 * variation selectors), and the line and paragraph separators (which some terminals and most
 * viewers break the line at). A class body for a `u` regex, shared with the JSON output.
 */
export const FORMAT_AND_SEPARATORS = '\\p{Cf}\\p{Default_Ignorable_Code_Point}\\u2028\\u2029';

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

// A variation selector picks how the character before it is drawn: text (U+FE0E) or emoji
// (U+FE0F) for a pictograph (❤️), or the keycap of a digit, # or * (1️⃣). After anything else
// it changes nothing shown.
const VS_BEFORE = /\p{Extended_Pictographic}$/u;
const KEYCAP_BASE = /^[#*0-9]$/;
const KEYCAP = '\u20e3';

function emojiSelector(text: string, at: number): boolean {
  return VS_BEFORE.test(text.slice(Math.max(0, at - 2), at)) || (KEYCAP_BASE.test(text.charAt(at - 1)) && text.charAt(at + 1) === KEYCAP);
}

// A subdivision flag (🏴 and the tags of gbeng, gbsct…, U+E007F last) is drawn as one flag.
const BLACK_FLAG = '\u{1f3f4}';
const FLAG_TAGS = /[\u{e0020}-\u{e007e}]+\u{e007f}/uy;

/** Where the tags of subdivision flags are (UTF-16 offsets): those are kept as they are. */
function flagTagsOf(text: string): Set<number> | undefined {
  let kept: Set<number> | undefined;
  for (let at = text.indexOf(BLACK_FLAG); at >= 0; at = text.indexOf(BLACK_FLAG, at + 1)) {
    FLAG_TAGS.lastIndex = at + BLACK_FLAG.length;
    const m = FLAG_TAGS.exec(text);
    if (m) for (let i = m.index; i < m.index + m[0].length; i++) (kept ??= new Set()).add(i);
  }
  return kept;
}

/** Escapes every unsafe character as \n, \t, \e or \u{XX}; leaves printable text (Unicode too) as is. */
export function escapeControl(text: string): string {
  const flagTags = flagTagsOf(text);
  return text.replace(UNSAFE, (ch: string, at: number) => {
    if (ch === ZWJ && emojiJoiner(text, at)) return ch;
    if ((ch === '\ufe0f' || ch === '\ufe0e') && emojiSelector(text, at)) return ch;
    if (flagTags?.has(at)) return ch;
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
