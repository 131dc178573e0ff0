import { describe, expect, test } from 'vitest';
import { escapeControl, escapeControlKeepNewlines, escapeName, readShownName } from '../../src/text/escape.js';

describe('escapeControl', () => {
  test.each([
    ['plain', 'plain'],
    ['ünïcødé 名前 🚀', 'ünïcødé 名前 🚀'],
    ['\u001b[31mred\u001b[0m', '\\e[31mred\\e[0m'],
    ['a\rb\nc\td', 'a\\rb\\nc\\td'],
    ['bell\u0007', 'bell\\u{7}'],
    ['c1\u009b2J', 'c1\\u{9b}2J'],
    ['del\u007f', 'del\\u{7f}'],
    ['rtl\u202eevil', 'rtl\\u{202e}evil'],
    ['nul\u0000', 'nul\\u{0}'],
    ['alm\u061cx', 'alm\\u{61c}x'], // Arabic letter mark: a bidi mark like U+200F
    ['ls\u2028ps\u2029', 'ls\\u{2028}ps\\u{2029}'],
    ['lrm\u200erlm\u200f', 'lrm\\u{200e}rlm\\u{200f}'],
    // Invisible format characters (category Cf), like the bidi marks: names that differ
    // only by them must not look the same.
    ['ord\u200bers', 'ord\\u{200b}ers'], // zero-width space
    ['a\u200cb\u200dc', 'a\\u{200c}b\\u{200d}c'], // non-joiner, joiner between letters
    ['wj\u2060x\u2061', 'wj\\u{2060}x\\u{2061}'], // word joiner, invisible function application
    ['\ufeffbom', '\\u{feff}bom'],
    ['soft\u00adhyphen', 'soft\\u{ad}hyphen'],
    ['tag\u{e0041}', 'tag\\u{e0041}'], // a tag character (hidden ASCII)
    ['mvs\u180e', 'mvs\\u{180e}'],
    ['\u200d👩', '\\u{200d}👩'], // a joiner with no emoji before it joins nothing
    // Other characters drawn as nothing (Unicode's default-ignorable code points): a combining
    // grapheme joiner, Hangul fillers, a variation selector on a letter.
    ['a\u034fb', 'a\\u{34f}b'],
    ['a\u115fb\u3164c\uffa0d', 'a\\u{115f}b\\u{3164}c\\u{ffa0}d'],
    ['a\ufe0fb', 'a\\u{fe0f}b'],
    ['a\u{e0100}b', 'a\\u{e0100}b'], // a variation selector of the supplement
    ['\u{e0067}\u{e0062}\u{e007f}', '\\u{e0067}\\u{e0062}\\u{e007f}'], // tags with no black flag before them
  ])('%j -> %j', (input, expected) => {
    expect(escapeControl(input)).toBe(expected);
  });

  test('a joiner inside an emoji sequence is part of the emoji and stays', () => {
    for (const emoji of ['👨\u200d👩\u200d👧', '👩🏽\u200d💻', '🏳️\u200d🌈', '👁️\u200d🗨️']) {
      expect(escapeControl(`a ${emoji} b`)).toBe(`a ${emoji} b`);
    }
  });

  test('a variation selector that picks how an emoji is drawn, and the tags of a subdivision flag, stay', () => {
    for (const emoji of [
      '❤️',
      '☺️',
      '#️⃣',
      '1️⃣',
      '✌︎',
      '🏴\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f}',
      '🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}',
    ]) {
      expect(escapeControl(`a ${emoji} b`)).toBe(`a ${emoji} b`);
    }
    // A flag's tags end with U+E007F; without it they are hidden text after a flag.
    expect(escapeControl('🏴\u{e0068}\u{e0069}')).toBe('🏴\\u{e0068}\\u{e0069}');
  });

  test('every default-ignorable code point (drawn as nothing) is escaped as \\u{…} where no emoji takes it', () => {
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (!/\p{Default_Ignorable_Code_Point}/u.test(ch)) continue;
      expect(escapeControl(`x${ch}y`), `U+${cp.toString(16)}`).toBe(`x\\u{${cp.toString(16)}}y`);
    }
  });

  test('every invisible format character (Cf) is escaped as \\u{…}', () => {
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (!/\p{Cf}/u.test(ch)) continue;
      expect(escapeControl(`x${ch}y`), `U+${cp.toString(16)}`).toBe(`x\\u{${cp.toString(16)}}y`);
    }
  });

  test('keeps newlines when asked', () => {
    expect(escapeControlKeepNewlines('a\n\u001b[2Jb')).toBe('a\n\\e[2Jb');
  });
});

// Names (queues, groups, tables) are what an operator tells apart and types back: a backslash
// in one is doubled, so a name holding a real ESC and one holding the text `\e` differ.
describe('escapeName', () => {
  test.each([
    ['orders', 'orders'],
    ['ev\u001b[2Jil', 'ev\\e[2Jil'],
    ['ev\\e[2Jil', 'ev\\\\e[2Jil'],
    ['zw\u200bq', 'zw\\u{200b}q'],
    ['zw\\u{200b}q', 'zw\\\\u{200b}q'],
    ['ab\u202ecd', 'ab\\u{202e}cd'],
    ['ab\\u{202e}cd', 'ab\\\\u{202e}cd'],
    ['C:\\x\\\\y', 'C:\\\\x\\\\\\\\y'],
    ['a 👨\u200d👩 ❤️ b', 'a 👨\u200d👩 ❤️ b'],
  ])('%j -> %j', (input, expected) => {
    expect(escapeName(input)).toBe(expected);
  });

  test('two different names never look the same (escapeControl alone made these pairs equal)', () => {
    const pairs = [
      ['ev\u001b[2Jil', 'ev\\e[2Jil'],
      ['zw\u200bq', 'zw\\u{200b}q'],
      ['ab\u202ecd', 'ab\\u{202e}cd'],
      ['a\tb', 'a\\tb'],
      ['x\u009b', 'x\\u{9b}'],
    ];
    for (const [real, literal] of pairs) {
      expect(escapeControl(real!)).toBe(escapeControl(literal!));
      expect(escapeName(real!)).not.toBe(escapeName(literal!));
    }
  });

  test('readShownName reads a name as escapeName writes it, back to the name', () => {
    for (const name of [
      'orders',
      'ev\u001b[2Jil',
      'ev\\e[2Jil',
      'zw\u200bq',
      'zw\\u{200b}q',
      'a\\\\b\\',
      'x\u{e0041}\r\n\t',
      'a 👨\u200d👩 b',
    ]) {
      expect(readShownName(escapeName(name))).toBe(name);
    }
    // What a paste may bring raw: an invisible character is the character itself.
    expect(readShownName('zw\u200bq')).toBe('zw\u200bq');
  });

  test('readShownName refuses a backslash that starts no escape (the list never shows one)', () => {
    for (const typed of ['a\\b', 'a\\', 'a\\u{', 'a\\u{zz}', 'a\\u{110000}', 'a\\u200b']) {
      expect(readShownName(typed), typed).toBeUndefined();
    }
  });
});
