import { describe, expect, test, vi } from 'vitest';
import fc from 'fast-check';
import stringWidth from 'string-width';
import { escapeControl } from '../../src/text/escape.js';
import { cellWidth, clusters, cutParts, cutToCells, fitCells, firstClusters, tailToCells } from '../../src/text/width.js';

// Widths as tmux 3.3 draws them (measured with #{cursor_x} after printing each), and
// Ink's string-width where it differs: we count the larger.
describe('cellWidth', () => {
  test.each([
    ['plain', 5],
    ['', 0],
    ['日本', 4], // wide CJK
    ['e\u0301', 1], // combining acute: 0
    ['a\u0301\u0302', 1], // two combining marks
    ['👍', 2],
    ['👍🏽', 4], // skin-tone modifier: string-width 2, tmux 4
    ['👨‍👩‍👧', 6], // ZWJ family: string-width 2, per code point 6 (tmux joins it: 2)
    ['🇫🇷', 2], // flag: two regional indicators
    ['❤️', 2], // VS16: string-width 2, tmux 1
    ['नमस्ते', 4], // Devanagari conjunct: string-width 3, tmux 4
    ['คิว', 2], // Thai with a combining vowel
    ['\u200b', 0],
  ])('%j is %i cells', (text, cells) => {
    expect(cellWidth(text)).toBe(cells);
  });

  test('an escaped invisible character takes the cells of its escape; an emoji keeps its joiners and width', () => {
    expect(cellWidth(escapeControl('ord\u200bers'))).toBe('ord\\u{200b}ers'.length);
    expect(cellWidth(escapeControl('\ufeffq\u2060'))).toBe('\\u{feff}q\\u{2060}'.length);
    expect(cellWidth(escapeControl('👨‍👩‍👧'))).toBe(cellWidth('👨‍👩‍👧'));
  });

  test('never less than Ink measures (so Ink never cuts or wraps text cut here)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), (text) => {
        expect(cellWidth(text)).toBeGreaterThanOrEqual(stringWidth(text));
      }),
    );
  });
});

describe('cutting', () => {
  test('cuts whole clusters and leaves room for the ellipsis', () => {
    expect(cutToCells('👍🏽👍🏽👍🏽', 9)).toBe('👍🏽👍🏽…');
    expect(cutToCells('👍🏽👍🏽👍🏽', 12)).toBe('👍🏽👍🏽👍🏽');
    expect(cutToCells('👍🏽👍🏽👍🏽', 4)).toBe('…');
    expect(cutToCells('🇫🇷🇩🇪🇮🇹', 5)).toBe('🇫🇷🇩🇪…');
    expect(cutToCells('e\u0301e\u0301e\u0301', 2)).toBe('e\u0301…');
    expect(cutToCells('abcdef', 4)).toBe('abc…');
    expect(cutToCells('abc', 0)).toBe('');
    // A wide cluster that does not fit is not skipped for a narrower one after it.
    expect(cutToCells('ab日cdefg', 4)).toBe('ab…');
  });

  test('fitCells gives exactly the width asked for, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.integer({ min: 1, max: 30 }), (text, width) => {
        const out = fitCells(text, width);
        expect(cellWidth(out)).toBe(width);
        expect(stringWidth(out)).toBeLessThanOrEqual(width);
      }),
    );
    expect(fitCells('👍🏽', 6, 'right')).toBe('  👍🏽');
  });

  test('cutParts cuts styled parts as one line', () => {
    expect(cutParts(['name', ' · where', ' · counts'], 40)).toEqual(['name', ' · where', ' · counts']);
    expect(cutParts(['नमस्ते', ' · where', ' · counts'], 10)).toEqual(['नमस्ते', ' · wh…', '']);
    expect(cutParts(['👍🏽👍🏽👍🏽', ' · x'], 6)).toEqual(['👍🏽…', '']);
  });

  test('firstClusters bounds the work on huge text without splitting a cluster', () => {
    expect(firstClusters('👍🏽'.repeat(5), 2)).toEqual({ text: '👍🏽👍🏽', cut: true });
    expect(firstClusters('ab', 2)).toEqual({ text: 'ab', cut: false });
  });
});

// V8's Intl.Segmenter walks a long string in time that grows with the string at every step:
// 1,000 clusters of a 1 MB body took 7.5 s, and `smq peek --output table` of three 1 MB
// bodies 21 s. clusters() segments the text a window at a time.
describe('huge text', () => {
  const segmenter = new Intl.Segmenter();
  const theirs = (text: string) => Array.from(segmenter.segment(text), (s) => s.segment);
  const ours = (text: string) => Array.from(clusters(text), (c) => c.text);

  test('cutting, measuring and the first clusters of a 1 MB body cost what is walked, not the whole body', () => {
    const body = 'é注'.repeat(8) + 'x'.repeat(1024 * 1024) + '\u202e';
    const started = performance.now();
    expect(cutToCells(body, 1000)).toHaveLength(999 + 1 - 8); // 8 wide characters take 16 cells
    expect(firstClusters(body, 2000).text).toHaveLength(2000);
    expect(performance.now() - started).toBeLessThan(1000); // 12 s before
    const whole = performance.now();
    expect(cellWidth(body)).toBe(8 * 3 + 1024 * 1024); // U+202E takes no cell
    expect(performance.now() - whole).toBeLessThan(5000);
  });

  test('the clusters are the segmenter own, across window edges (flags, ZWJ families, marks, CR LF, surrogates)', () => {
    const pieces = ['🇫🇷', '🇩🇪🇯🇵', '👨‍👩‍👧', '👍🏽', 'e\u0301\u0302', '\r\n', '注', 'x', 'नमस्ते', '\u200d', '🇫'];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 4000, max: 9000 }),
        (tail, pad) => {
          // The pieces start anywhere around the first window's edges.
          const text = 'a'.repeat(pad) + tail.join('') + 'b'.repeat(pad % 97) + tail.join('');
          expect(ours(text)).toEqual(theirs(text));
        },
      ),
      { numRuns: 200 },
    );
  });

  test('a cluster longer than a window stays one cluster', () => {
    const text = 'x' + 'e' + '\u0301'.repeat(20_000) + 'y';
    expect(ours(text)).toEqual(theirs(text));
    expect(ours(text)).toHaveLength(3);
  });
});

/** tailToCells as it was with two walks of the tail (a measure, then a cut): the oracle. */
function tailToCellsTwoWalks(text: string, max: number): string {
  if (max < 1) return '';
  if (cellWidth(text.slice(-max * 8)) <= max && text.length <= max * 8) return text;
  const kept: string[] = [];
  let width = 0;
  const all = [...clusters(text.slice(-max * 8))];
  for (let i = all.length - 1; i >= 0; i--) {
    if (width + all[i]!.width > max - 1) break;
    width += all[i]!.width;
    kept.push(all[i]!.text);
  }
  return `…${kept.reverse().join('')}`;
}

describe('tailToCells', () => {
  test('gives what the two walks gave, for any text and width (short, around max * 8, long)', () => {
    const unit = fc.constantFrom('a', 'é', 'e\u0301', '日', '👍🏽', '👨‍👩‍👧', '🇫🇷', '\u200b', '\u0301', 'x');
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 120 }).map((u) => u.join('')),
        fc.integer({ min: -1, max: 20 }),
        (text, max) => {
          expect(tailToCells(text, max)).toBe(tailToCellsTwoWalks(text, max));
        },
      ),
      { numRuns: 2000 },
    );
    for (const max of [1, 2, 5, 9]) {
      for (const text of [
        'a'.repeat(max * 8),
        'a'.repeat(max * 8 + 1),
        '日'.repeat(max * 8),
        '\u0301'.repeat(max * 8 + 3),
        '👍🏽'.repeat(max * 4 + 1),
      ]) {
        expect(tailToCells(text, max)).toBe(tailToCellsTwoWalks(text, max));
      }
    }
  });

  test('segments the tail once, not once to measure it and again to cut it', () => {
    const segment = vi.spyOn(Intl.Segmenter.prototype, 'segment');
    try {
      expect(tailToCells('日本語のテキスト'.repeat(20), 10)).toBe('…テキスト');
      // string-width segments each cluster on its own too: those calls are one cluster long.
      const walks = segment.mock.calls.filter(([text]) => text.length > 8);
      expect(walks).toHaveLength(1);
    } finally {
      segment.mockRestore();
    }
  });

  test('keeps the end in at most max cells, … in front when cut, never half a cluster', () => {
    expect(tailToCells('abc', 5)).toBe('abc');
    expect(tailToCells('abcdefgh', 5)).toBe('…efgh');
    expect(tailToCells('👍🏽👍🏽👍🏽', 9)).toBe('…👍🏽👍🏽'); // 4 cells each, as cutToCells counts them
    expect(tailToCells('x'.repeat(1_000_000) + 'end', 10)).toBe('…xxxxxxend');
    expect(tailToCells('abc', 0)).toBe('');
  });
});
