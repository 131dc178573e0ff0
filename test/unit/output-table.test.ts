import { describe, expect, test } from 'vitest';
import { PIPED_LAST_COLUMN_WIDTH, displayWidth, renderTable, truncate } from '../../src/output/table.js';
import { toJsonDocument, toJsonLine } from '../../src/output/json.js';
import { queueTable } from '../../src/output/records.js';

describe('renderTable', () => {
  test('aligns columns, right-aligns numbers, leaves the last column unpadded', () => {
    const out = renderTable(
      [{ header: 'ID', align: 'right' }, { header: 'NAME' }, { header: 'BODY' }],
      [
        ['1', 'a', 'x'],
        ['100', 'longer', 'y'],
      ],
    );
    expect(out).toBe(['ID  NAME    BODY', '  1  a       x', '100  longer  y', ''].join('\n').replace(/^ID/, ' ID'));
  });

  test('escapes control characters in every cell', () => {
    const out = renderTable([{ header: 'BODY' }], [['\u001b[2J\r\u0007']]);
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(out).toContain('\\e[2J\\r\\u{7}');
  });

  test('counts wide characters as two columns', () => {
    expect(displayWidth('名前')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
    const out = renderTable(
      [{ header: 'Q' }, { header: 'N' }],
      [
        ['名前', '1'],
        ['ab', '2'],
      ],
    ).split('\n');
    // Both values start at display column 6, though at different string offsets.
    expect(displayWidth(out[1]!.slice(0, out[1]!.indexOf('1')))).toBe(6);
    expect(displayWidth(out[2]!.slice(0, out[2]!.indexOf('2')))).toBe(6);
  });

  test('cuts cells to their column maxWidth, and a piped last column at PIPED_LAST_COLUMN_WIDTH', () => {
    const out = renderTable([{ header: 'H', maxWidth: 10 }, { header: 'BODY' }], [['h'.repeat(500), 'b'.repeat(1 << 20)]]);
    const [, row] = out.split('\n');
    expect(row).toBe(`${'h'.repeat(9)}…  ${'b'.repeat(PIPED_LAST_COLUMN_WIDTH - 1)}…`);
    // Escapes count: a cut never leaves half an escape behind as a raw byte.
    const escaped = renderTable([{ header: 'H', maxWidth: 4 }], [['\u001b\u001b\u001b']]);
    expect(escaped).not.toMatch(/\u001b/);
    expect(escaped.split('\n')[1]).toBe('\\e\\…');
  });

  test('truncates the last column to the width given', () => {
    expect(truncate('abcdefghij', 5)).toBe('abcd…');
    expect(truncate('abc', 5)).toBe('abc');
    const out = renderTable([{ header: 'A' }, { header: 'BODY' }], [['x', 'y'.repeat(100)]], { maxWidth: 40 });
    for (const line of out.trimEnd().split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(40);
  });

  // peek's table at 100 columns with a 100 kB header: the fixed columns take 84 cells and the
  // headers column 60 more, so every row wrapped, body and all (seen by hand in tmux).
  test('on a terminal, cut-able columns give way so that no row is wider than the terminal', () => {
    const columns = [
      { header: 'ID', align: 'right' as const },
      { header: 'ENQUEUED AND MORE FIXED TEXT' },
      { header: 'HEADERS', maxWidth: 60 },
      { header: 'BODY' },
    ];
    const rows = [
      [
        '2130083071135936513',
        '2026-12-07 23:32:33Z 2026-12-07 23:32:33Z',
        `{"big":"${'h'.repeat(100_000)}"}`,
        '{"n":3,"blob":"' + 'x'.repeat(5000),
      ],
      ['7', 'short', '-', 'hello'],
    ];
    for (const width of [100, 90]) {
      const lines = renderTable(columns, rows, { maxWidth: width }).trimEnd().split('\n');
      for (const line of lines) expect(displayWidth(line), `${width}: ${line}`).toBeLessThanOrEqual(width);
      expect(lines[1]).toMatch(/\{"big":"?h*… {2}\{"n":3,"blob":"x*…$/); // both cut, both there
      expect(lines[2]).toMatch(/ -  +hello$/);
    }
    // Too narrow for the fixed columns themselves: each row is cut at the edge, never wrapped.
    for (const line of renderTable(columns, rows, { maxWidth: 40 }).trimEnd().split('\n'))
      expect(displayWidth(line)).toBeLessThanOrEqual(40);
  });
});

describe('JSON output', () => {
  test('bigints become strings, exactly', () => {
    expect(toJsonLine({ id: 2128142205293338624n })).toBe('{"id":"2128142205293338624"}\n');
    expect(JSON.parse(toJsonDocument([{ id: 1n }]))).toEqual([{ id: '1' }]);
  });

  test('no raw C1 controls, bidi overrides or line separators, yet the same value', () => {
    const value = { body: 'a\u009b31m\u202eb\u2028c\u007f\u001b' };
    const line = toJsonLine(value);
    expect(line).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e\u2028]/);
    expect(JSON.parse(line)).toEqual(value);
  });

  test('no raw invisible format characters (zero-width, BOM, tags), yet the same value', () => {
    const value = { name: 'ord\u200bers', body: 'a\u200c\u200d\u2060\ufeff\u00ad\u{e0041}b 👨\u200d👩' };
    const line = toJsonLine(value);
    expect(line).not.toMatch(/\p{Cf}/u);
    expect(line).toContain('ord\\u200bers');
    expect(JSON.parse(line)).toEqual(value);
  });
});

test('queue tables write ages as top does (one age format, issue 14)', () => {
  const row = queueTable({ failed: false, archived: false, tenant: false }).row;
  const ages = (oldestAgeSec: number | null, newestAgeSec: number | null) =>
    row({ name: 'q', ready: 0, inFlight: 0, delayed: 0, total: 0, estimated: false, oldestAgeSec, newestAgeSec }).slice(-2);
  expect(ages(null, 5.4)).toEqual(['-', '5s']);
  expect(ages(600, 185)).toEqual(['10m00s', '3m05s']);
  expect(ages(3 * 3600, 5 * 86400)).toEqual(['3h00m', '5d00h']);
});

test('smq queues: a name holding a real ESC, U+200B or U+202E and one holding the escape as text are written differently', () => {
  const view = queueTable({ failed: false, archived: false, tenant: false });
  const stats = (name: string) => ({
    name,
    ready: 0,
    inFlight: 0,
    delayed: 0,
    total: 0,
    estimated: false,
    oldestAgeSec: null,
    newestAgeSec: null,
  });
  const names = (out: string) =>
    out
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => l.split(/\s+/)[0]);
  const pairs = [
    ['ev\u001b[2Jil', 'ev\\e[2Jil', 'ev\\e[2Jil', 'ev\\\\e[2Jil'],
    ['zw\u200bq', 'zw\\u{200b}q', 'zw\\u{200b}q', 'zw\\\\u{200b}q'],
    ['ab\u202ecd', 'ab\\u{202e}cd', 'ab\\u{202e}cd', 'ab\\\\u{202e}cd'],
  ];
  for (const [real, literal, realShown, literalShown] of pairs) {
    const out = renderTable(view.columns, [stats(real!), stats(literal!)].map(view.row));
    expect(names(out)).toEqual([realShown, literalShown]);
  }
});
