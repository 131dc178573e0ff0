// Latency histograms. Every worker records into its own histograms and ships them to the
// main thread once, at the end, in HdrHistogram's compressed base64 form; the main thread
// decodes and add()s them.
//
// Choice of implementation: the plain JS histograms, not WebAssembly. A WASM histogram
// lives outside the JS heap and must be destroy()ed, which a worker that dies half-way
// never does; the JS ones are garbage collected, and recording is a handful of typed-array
// operations, far below the cost of a database round trip. Workers use 32-bit buckets
// (one worker cannot overflow 2^31 in one bucket); the merged histogram on the main thread
// uses 64-bit buckets so that a long run summed over many workers cannot either.
// Values are whole microseconds; autoResize grows the range as needed.
import * as hdr from 'hdr-histogram-js';

export type Histogram = hdr.Histogram;

/** scheduleLag (--rate): how late each send started after its due time (the tester's own lateness). */
export const HISTOGRAM_NAMES = ['endToEnd', 'send', 'receive', 'ack', 'endToEndService', 'sendService', 'scheduleLag'] as const;
export type HistogramName = (typeof HISTOGRAM_NAMES)[number];

export function newWorkerHistogram(): Histogram {
  return hdr.build({ bitBucketSize: 32, autoResize: true, lowestDiscernibleValue: 1, numberOfSignificantValueDigits: 3 });
}

export function newMergedHistogram(): Histogram {
  return hdr.build({ bitBucketSize: 64, autoResize: true, lowestDiscernibleValue: 1, numberOfSignificantValueDigits: 3 });
}

/** Records a duration in microseconds (fractions rounded; a negative value, impossible on a monotonic clock, as 0). */
export function recordUs(h: Histogram, us: number): void {
  h.recordValue(us > 0 ? Math.round(us) : 0);
}

export function encodeHistogram(h: Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

export function decodeHistogram(encoded: string): Histogram {
  return hdr.decodeFromCompressedBase64(encoded, 64);
}

/** Adds an encoded worker histogram into a merged one. */
export function addEncoded(into: Histogram, encoded: string): void {
  const h = decodeHistogram(encoded);
  if (h.totalCount > 0) into.add(h);
}

/** Merges any number of encoded histograms (some may be empty) into a new 64-bit one. */
export function mergeEncoded(encoded: readonly string[]): Histogram {
  const merged = newMergedHistogram();
  for (const e of encoded) addEncoded(merged, e);
  return merged;
}

/** A latency summary in milliseconds. */
export interface LatencySummary {
  readonly count: number;
  readonly min: number;
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

const msOf = (us: number) => Math.round(us) / 1000;

/** Summary in ms. An empty histogram reports zeros (its raw min is MAX_SAFE_INTEGER: clamped). */
export function summarize(h: Histogram): LatencySummary {
  if (h.totalCount === 0) return { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
  return {
    count: h.totalCount,
    min: msOf(h.minNonZeroValue === Number.MAX_SAFE_INTEGER ? 0 : h.minNonZeroValue),
    mean: Math.round(h.mean) / 1000,
    p50: msOf(h.getValueAtPercentile(50)),
    p90: msOf(h.getValueAtPercentile(90)),
    p99: msOf(h.getValueAtPercentile(99)),
    p999: msOf(h.getValueAtPercentile(99.9)),
    max: msOf(h.maxValue),
  };
}

/**
 * HdrHistogram's percentile distribution: [percentile, ms] at 0, 50, 75, 87.5 … (each step
 * halves what is left) up to 99.999, then the max: the points of a percentile-spectrum plot.
 */
export function spectrum(h: Histogram): [number, number][] {
  if (h.totalCount === 0) return [];
  const out: [number, number][] = [];
  for (let left = 100; 100 - left < 99.999; left /= 2) {
    const p = 100 - left;
    out.push([Math.round(p * 10000) / 10000, msOf(h.getValueAtPercentile(p))]);
  }
  out.push([99.999, msOf(h.getValueAtPercentile(99.999))], [100, msOf(h.maxValue)]);
  return out;
}

export { HistogramLogWriter } from 'hdr-histogram-js';
