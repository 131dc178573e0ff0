// The detail view's body lines stay bounded whatever the body: deep nesting, huge bodies,
// long lines. Pure logic: the same function the message screen uses.
import { describe, expect, test } from 'vitest';
import { bodyLines, isJson, PRETTY_LIMITS } from '../../src/ui/model/pretty.js';
import { prettyBody } from '../../src/ui/model/format.js';

const totalChars = (lines: readonly string[]) => lines.reduce((n, l) => n + l.length + 1, 0);

describe('bounded pretty-printing', () => {
  test('20,000 nested arrays (40 KB): no crash, indentation capped, output bounded', () => {
    const body = '['.repeat(20_000) + ']'.repeat(20_000);
    // Before: reindentJson built 400 million characters of indentation (Invalid string length).
    const out = bodyLines(body);
    expect(out.json).toBe(true);
    expect(out.lines.length).toBeLessThanOrEqual(PRETTY_LIMITS.maxLines);
    const widest = Math.max(...out.lines.map((l) => l.length));
    expect(widest).toBeLessThanOrEqual(2 * PRETTY_LIMITS.maxIndentDepth + 2); // the innermost "[]"
    expect(out.lines[0]).toBe('[');
    expect(out.lines[PRETTY_LIMITS.maxIndentDepth + 5]).toBe(' '.repeat(2 * PRETTY_LIMITS.maxIndentDepth) + '[');
    expect(out.cut).toBe(true);
    expect(() => prettyBody(body)).not.toThrow();
  });

  test('the same nesting, unbalanced (not JSON), is shown as text', () => {
    const out = bodyLines('['.repeat(20_000));
    expect(out.json).toBe(false);
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0]!.length).toBeLessThanOrEqual(PRETTY_LIMITS.maxLineChars + 1);
  });

  test('a 50 MB body: lines and characters bounded, long values cut at the line limit', () => {
    const item = JSON.stringify({ id: 12345678901234567891n.toString(), text: 'x'.repeat(100) });
    const big = `[${Array.from({ length: 400_000 }, () => item).join(',')}]`;
    expect(big.length).toBeGreaterThan(50_000_000);
    const out = bodyLines(big);
    expect(out.json).toBe(true);
    expect(out.cut).toBe(true);
    expect(out.lines.length).toBeLessThanOrEqual(PRETTY_LIMITS.maxLines);
    expect(totalChars(out.lines)).toBeLessThanOrEqual(PRETTY_LIMITS.maxChars + PRETTY_LIMITS.maxLineChars + 2);

    const oneString = `{"blob":"${'y'.repeat(50_000_000)}"}`;
    const one = bodyLines(oneString);
    expect(one.lines).toEqual(['{', `  "blob": "${'y'.repeat(PRETTY_LIMITS.maxLineChars - 11)}…`, '}']);

    const text = bodyLines('z'.repeat(50_000_000));
    expect(text.json).toBe(false);
    expect(text.lines).toEqual([`${'z'.repeat(PRETTY_LIMITS.maxLineChars)}…`]);
  });

  test('many short text lines stop at the line limit', () => {
    const out = bodyLines('a\n'.repeat(1_000_000));
    expect(out.lines).toHaveLength(PRETTY_LIMITS.maxLines);
    expect(out.cut).toBe(true);
  });

  test('isJson agrees with JSON.parse', () => {
    const cases = [
      '{}',
      '[]',
      '{"a":1}',
      '[1,2,3]',
      ' {"a" : [true, false, null, -0.5e+3, "x\\u0041\\n"]} ',
      '"s"',
      '12',
      'null',
      '{',
      '[1,]',
      '{"a":1,}',
      '{"a"}',
      '{1:2}',
      '[01]',
      '[1.]',
      '["\\x"]',
      '["\u0001"]',
      '[]]',
      '[][]',
      '{"a":1}x',
      '',
      '[-]',
      '[tru]',
      '["\\u12G4"]',
      '{"a":{"b":[{}]}}',
      '[1 2]',
      '{"a":1 "b":2}',
      '[,1]',
      '[1,,2]',
    ];
    for (const c of cases) {
      let parses = true;
      try {
        JSON.parse(c);
      } catch {
        parses = false;
      }
      expect(isJson(c), c).toBe(parses);
    }
  });

  test('small bodies are shown whole, literals as written, CRLF as one break', () => {
    expect(bodyLines('{"a":[1,{"b":"c,d"}],"e":{}}').lines).toEqual([
      '{',
      '  "a": [',
      '    1,',
      '    {',
      '      "b": "c,d"',
      '    }',
      '  ],',
      '  "e": {}',
      '}',
    ]);
    expect(bodyLines('one\r\ntwo\n').lines).toEqual(['one', 'two', '']);
    expect(bodyLines('one\r\ntwo\n').cut).toBe(false);
  });
});
