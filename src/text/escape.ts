// Messages and queue names come from strangers: never write their control characters
// (ANSI escapes, carriage returns, bells) to a terminal raw.
//
// Two forms. escapeControl (message bodies, headers, errors, paths, typed text) writes an
// unsafe character as `\e`, `\u{200b}`…, and leaves a backslash as it is, so the text
// `\e` and a real ESC look the same. escapeName (queue, group and table names) also doubles
// every backslash, so that no two names look the same: a name holding a real ESC shows as
// `ev\e[2Jil`, one holding the text `\e` as `ev\\e[2Jil`. Names are what an operator tells
// apart in a list and types back to confirm a purge or a drop (readShownName reads what was
// typed back into the name), so there the ambiguity would pick the wrong queue.
//
// Bodies and headers keep single backslashes, on purpose:
// - A JSON body (every pgmq body, most SmoothMQ ones) is already unambiguous: inside a JSON
//   string a backslash always starts one of JSON's escapes (`\"`, `\\`, `\n`, `\u00e9`), a
//   literal backslash is `\\`, and `\e` or `\u{…}` are none of them, so what smq adds can be
//   told from what the JSON holds. Doubling would show `{"a":"x\\"y"}` for `{"a":"x\"y"}`:
//   a different JSON value, wrong if copied, and noisy on every quoted quote.
// - Where a text body holds a backslash next to an escape (`\e` and ESC look the same), no
//   destructive action hangs on it: messages are deleted, archived, moved and exported by id
//   or by marks, never by typing their text, and the lossless form is one key away (`smq
//   peek --json`, top's export), which writes every character as JSON does.

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

// What escapeName changes: the unsafe characters and the backslash.
const UNSAFE_OR_BACKSLASH = new RegExp(`${UNSAFE.source.slice(0, -1)}\\\\]`, 'gu');

function escapeWith(pattern: RegExp, text: string): string {
  const flagTags = flagTagsOf(text);
  return text.replace(pattern, (ch: string, at: number) => {
    if (ch === '\\') return '\\\\';
    if (ch === ZWJ && emojiJoiner(text, at)) return ch;
    if ((ch === '\ufe0f' || ch === '\ufe0e') && emojiSelector(text, at)) return ch;
    if (flagTags?.has(at)) return ch;
    return NAMED[ch] ?? `\\u{${ch.codePointAt(0)!.toString(16)}}`;
  });
}

/** Escapes every unsafe character as \n, \t, \e or \u{XX}; leaves printable text (Unicode too) as is. */
export function escapeControl(text: string): string {
  return escapeWith(UNSAFE, text);
}

/**
 * A name as every screen and table writes it: escapeControl, and each backslash doubled, so
 * two different names never look the same (see the top of this file).
 */
export function escapeName(text: string): string {
  return escapeWith(UNSAFE_OR_BACKSLASH, text);
}

const UNNAMED: Record<string, string> = { n: '\n', r: '\r', t: '\t', e: '\u001b', '\\': '\\' };
const SHOWN_ESCAPE = /\\(?:([nrte\\])|u\{([0-9a-fA-F]{1,6})\})/y;

/**
 * The name `typed` stands for when it is written as escapeName writes names: `\\` is a
 * backslash, `\e`, `\n`, `\r`, `\t` and `\u{…}` the characters they name, anything else
 * itself (an invisible character pasted raw is that character). Undefined when a backslash
 * starts none of these: the list never shows one, so the typed text names no queue shown.
 */
export function readShownName(typed: string): string | undefined {
  let out = '';
  let at = 0;
  for (let next = typed.indexOf('\\'); next >= 0; next = typed.indexOf('\\', at)) {
    out += typed.slice(at, next);
    SHOWN_ESCAPE.lastIndex = next;
    const m = SHOWN_ESCAPE.exec(typed);
    if (!m) return undefined;
    if (m[1] !== undefined) out += UNNAMED[m[1]]!;
    else {
      const cp = parseInt(m[2]!, 16);
      if (cp > 0x10ffff) return undefined;
      out += String.fromCodePoint(cp);
    }
    at = SHOWN_ESCAPE.lastIndex;
  }
  return out + typed.slice(at);
}

/** Like escapeControl but keeps newlines (for multi-line, pretty-printed bodies). */
export function escapeControlKeepNewlines(text: string): string {
  return text
    .split('\n')
    .map((line) => escapeControl(line))
    .join('\n');
}
