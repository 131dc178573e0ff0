import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  addEncoded,
  encodeHistogram,
  mergeEncoded,
  newMergedHistogram,
  newWorkerHistogram,
  recordUs,
  summarize,
} from '../../src/tester/histograms.js';

const encodedOf = (values: readonly number[]) => {
  const h = newWorkerHistogram();
  for (const v of values) recordUs(h, v);
  return encodeHistogram(h);
};

describe('histogram merge', () => {
  test('empty histograms merge to an empty one whose summary is all zeros (min clamped)', () => {
    const merged = mergeEncoded([encodedOf([]), encodedOf([])]);
    expect(merged.totalCount).toBe(0);
    expect(summarize(merged)).toEqual({ count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 });
  });

  test('an empty histogram added to a full one changes nothing', () => {
    const a = mergeEncoded([encodedOf([1000, 2000, 3000])]);
    const b = mergeEncoded([encodedOf([1000, 2000, 3000]), encodedOf([])]);
    expect(summarize(b)).toEqual(summarize(a));
  });

  test('summaries are in milliseconds', () => {
    const s = summarize(mergeEncoded([encodedOf([1500, 2500])]));
    expect(s.count).toBe(2);
    expect(s.min).toBeCloseTo(1.5, 2);
    expect(s.max).toBeCloseTo(2.5, 2);
  });

  test('negative and fractional values are recorded as whole non-negative microseconds', () => {
    const h = newWorkerHistogram();
    recordUs(h, -3);
    recordUs(h, 2.6);
    expect(h.totalCount).toBe(2);
    expect(h.maxValue).toBe(3);
  });

  test('property: merging per-worker histograms equals recording every value into one', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 60_000_000 }), { maxLength: 200 }), { minLength: 1, maxLength: 8 }),
        (workers) => {
          const merged = mergeEncoded(workers.map(encodedOf));
          const all = newMergedHistogram();
          for (const w of workers) for (const v of w) recordUs(all, v);
          // Through the same encoding: a decoded histogram knows its max only to its resolution.
          const direct = mergeEncoded([encodeHistogram(all)]);
          expect(merged.totalCount).toBe(direct.totalCount);
          expect(merged.maxValue).toBe(direct.maxValue);
          for (const p of [50, 90, 99, 99.9, 100]) expect(merged.getValueAtPercentile(p)).toBe(direct.getValueAtPercentile(p));
          // and the order of merging does not matter
          const reversed = mergeEncoded(workers.map(encodedOf).reverse());
          expect(summarize(reversed)).toEqual(summarize(merged));
        },
      ),
      { numRuns: 100 },
    );
  });

  test('addEncoded grows the merged range for large values', () => {
    const merged = newMergedHistogram();
    addEncoded(merged, encodedOf([5]));
    addEncoded(merged, encodedOf([3_600_000_000]));
    expect(merged.totalCount).toBe(2);
    expect(summarize(merged).max).toBeGreaterThanOrEqual(3_600_000);
  });
});
