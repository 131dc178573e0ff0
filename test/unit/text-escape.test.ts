import { describe, expect, test } from 'vitest';
import { escapeControl, escapeControlKeepNewlines } from '../../src/text/escape.js';

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
  ])('%j -> %j', (input, expected) => {
    expect(escapeControl(input)).toBe(expected);
  });

  test('keeps newlines when asked', () => {
    expect(escapeControlKeepNewlines('a\n\u001b[2Jb')).toBe('a\n\\e[2Jb');
  });
});
