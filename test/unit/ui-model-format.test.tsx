import { describe, expect, test } from 'vitest';
import {
  bodyPreview,
  fitText,
  formatAge,
  formatCount,
  formatInterval,
  formatRate,
  formatVisibleIn,
  headerLines,
  headersPreview,
  prettyBody,
  reindentJson,
} from '../../src/ui/model/format.js';

describe('numbers', () => {
  test.each([
    [0, false, '0'],
    [9999, false, '9999'],
    [12_345, false, '12.3k'],
    [123_456, false, '123k'],
    [2_000_000, true, '~2.00M'],
    [25_000_000, false, '25.0M'],
    [3_000_000_000, false, '3.00G'],
  ])('formatCount(%d, %s) = %s', (n, est, want) => {
    expect(formatCount(n, est)).toBe(want);
  });

  test('missing counts show a dash', () => {
    expect(formatCount(undefined)).toBe('-');
  });

  test.each([
    [null, '-'],
    [0, '0s'],
    [59.9, '59s'],
    [75, '1m15s'],
    [3 * 3600 + 5 * 60 + 9, '3h05m'],
    [2 * 86400 + 4 * 3600, '2d04h'],
  ])('formatAge(%s) = %s', (s, want) => {
    expect(formatAge(s)).toBe(want);
  });

  test('rates', () => {
    expect(formatRate(null)).toBe('-');
    expect(formatRate(0)).toBe('0');
    expect(formatRate(2.345)).toBe('2.3');
    expect(formatRate(150.4, true)).toBe('~150');
    expect(formatRate(25_000)).toBe('25.0k');
    expect(formatInterval(500)).toBe('0.5s');
    expect(formatInterval(2000)).toBe('2s');
    expect(formatVisibleIn(new Date(10_000), 0)).toBe('in 10s');
    expect(formatVisibleIn(new Date(0), 5)).toBe('now');
  });

  test('fitText pads and cuts', () => {
    expect(fitText('abc', 5)).toBe('abc  ');
    expect(fitText('abc', 5, 'right')).toBe('  abc');
    expect(fitText('abcdef', 4)).toBe('abc…');
  });
});

describe('message text is escaped', () => {
  const evil = 'hi\u001b[2J\u001b]0;pwned\u0007\r\u202e';

  test('preview: one line, no raw control characters', () => {
    const p = bodyPreview(`line1\n${evil}`);
    expect(p).toBe('line1 hi\\e[2J\\e]0;pwned\\u{7}\\r\\u{202e}');
    expect(p).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  });

  test('pretty JSON keeps literals as written (ids above 2^53 are not rounded)', () => {
    const out = prettyBody('{"id":12345678901234567891,"tags":[],"nested":{"a":"x,y:z"},"e":"\\u001b"}');
    expect(out.json).toBe(true);
    expect(out.text).toBe(
      ['{', '  "id": 12345678901234567891,', '  "tags": [],', '  "nested": {', '    "a": "x,y:z"', '  },', '  "e": "\\u001b"', '}'].join(
        '\n',
      ),
    );
  });

  test('non-JSON bodies keep their lines but escape the rest', () => {
    const out = prettyBody(`plain\r\ntext ${evil}`);
    expect(out.json).toBe(false);
    expect(out.text.split('\n')).toHaveLength(2);
    expect(out.text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
  });

  test('JSON strings with raw C1 or bidi characters are escaped too', () => {
    const out = prettyBody('{"a":"\u009b31m\u202e"}');
    expect(out.text).toContain('\\u{9b}31m\\u{202e}');
  });

  test('reindent handles strings with quotes and brackets', () => {
    expect(reindentJson('["a\\"]", {"b": [1, 2]}]')).toBe('[\n  "a\\"]",\n  {\n    "b": [\n      1,\n      2\n    ]\n  }\n]');
  });

  test('headers', () => {
    expect(headersPreview({ 'x-id': 'abc', n: 3, evil: '\u001b[1m' })).toBe('x-id=abc, n=3, evil=\\e[1m');
    expect(headerLines({ 'k\u001b': 'v\n' })).toEqual(['k\\e: v\\n']);
    expect(headersPreview(null)).toBe('');
  });
});
