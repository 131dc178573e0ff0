import { describe, expect, test } from 'vitest';
import { cellWidth } from '../../src/text/width.js';
import { topLayout } from '../../src/ui/model/layout.js';
import { promptLines, wrapCells } from '../../src/ui/model/prompt-lines.js';

describe('wrapCells', () => {
  test('word-wrapped by cells; a word longer than the line is split between clusters', () => {
    expect(wrapCells('Drop queue top_a and its 200 messages?', 20)).toEqual(['Drop queue top_a and', 'its 200 messages?']);
    expect(wrapCells('a 日本語日本語', 6)).toEqual(['a', '日本語', '日本語']);
    expect(wrapCells('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapCells('', 10)).toEqual(['']);
  });
});

describe('promptLines', () => {
  const drop = { kind: 'input', before: 'Drop queue top_a and its 200 messages? Type its name to confirm: ' } as const;

  test('an input that fits keeps its text on the same line', () => {
    expect(promptLines({ kind: 'input', before: 'create queue: ' }, 60, 5)).toEqual({
      lines: ['create queue:'.padEnd(14)],
      input: 'same',
      height: 1,
    });
  });

  test('a long label wraps, the text goes on its own line, every line fits', () => {
    const l = promptLines(drop, 40, 10);
    expect(l.input).toBe('own');
    expect(l.height).toBe(l.lines.length + 1);
    expect(l.lines.join(' ')).toBe(drop.before.trim());
    for (const line of l.lines) expect(cellWidth(line)).toBeLessThanOrEqual(40);
  });

  test('a question ends with [y/N]; with too few lines the middle (a body) gives way first', () => {
    const q = { kind: 'confirm', before: 'Send to top_big: ', middle: 'x'.repeat(300), after: ' (text, 300 bytes)?' } as const;
    const two = promptLines(q, 50, 2).lines;
    expect(two).toHaveLength(2);
    expect(two.join(' ')).toMatch(/^Send to top_big: x+… \(text, 300 bytes\)\? \[y\/N\]$/);
    const all = promptLines(q, 50, 20).lines;
    expect(all.join('')).toContain('x'.repeat(300));
  });

  test('never more lines than given: the last one kept ends with …', () => {
    const l = promptLines({ kind: 'confirm', before: 'word '.repeat(40) }, 20, 2);
    expect(l.lines).toHaveLength(2);
    expect(l.lines[1]!.endsWith('…')).toBe(true);
  });
});

describe('topLayout with a prompt of several lines', () => {
  test('the body view shrinks, down to one line, then the header gives way; the frame fits', () => {
    for (let rows = 4; rows <= 30; rows++) {
      for (let wanted = 1; wanted <= 12; wanted++) {
        const l = topLayout(rows, undefined, wanted);
        expect(l.shownBody).toBeGreaterThanOrEqual(1);
        expect(l.header.length + l.shownBody + l.promptLines + 1).toBeLessThanOrEqual(rows - 1);
        expect(l.bodyHeight).toBe(topLayout(rows, undefined).bodyHeight);
      }
    }
    expect(topLayout(15, undefined, 3)).toMatchObject({ shownBody: 6, bodyHeight: 8, promptLines: 3 });
  });
});
