// `smq tester compare BASELINE.json NEW.json`: two reports of `smq tester --json` side by
// side. Pure: it takes the parsed documents and returns rows; the command reads the files and
// prints (compare-text.ts). A change counts as a regression when it goes the wrong way by more
// than --max-regression (throughput down, a p99 up); it is marked beyond noise when it is
// larger than what the two runs' own per-second series say a run varies by.

import { PERCENTILES } from './compare-input.js';

export { PERCENTILES, reportProblem } from './compare-input.js';

/** The parts of a tester report that a comparison reads (the JSON of `smq tester --json`). */
export interface ComparableReport {
  readonly startedAt?: string;
  readonly verdict?: string;
  readonly durationMs?: number;
  readonly config: Readonly<Record<string, unknown>>;
  readonly environment?: Readonly<Record<string, unknown>>;
  readonly throughput: { readonly sendPerSec: number; readonly receivePerSec: number };
  readonly latency: Readonly<Record<string, LatencySummary | null | undefined>>;
  readonly series?: readonly SeriesSecond[];
}

interface LatencySummary {
  readonly count: number;
  readonly [percentile: string]: number;
}

interface SeriesSecond {
  readonly second: number;
  readonly sent?: number;
  readonly received?: number;
  readonly latency?: Readonly<Record<string, Readonly<Record<string, number>> | undefined>>;
}

export type Better = 'higher' | 'lower';

export interface ComparisonRow {
  /** 'throughput' or a histogram's name (endToEnd, send, receive, ack, …). */
  readonly group: string;
  /** sendPerSec / receivePerSec, or a percentile (p50, p90, p99, p999, max). */
  readonly metric: string;
  readonly better: Better;
  readonly baseline: number;
  readonly next: number;
  /** (next - baseline) / baseline in percent; null when the baseline is 0. */
  readonly changePct: number | null;
  /** Two standard errors of the difference, in percent of the baseline; null when the series cannot tell. */
  readonly noisePct: number | null;
  readonly beyondNoise: boolean;
  /** Worse by more than --max-regression (throughput and p99 rows only). */
  readonly regression: boolean;
}

export interface Comparison {
  readonly maxRegressionPct: number;
  readonly rows: readonly ComparisonRow[];
  readonly regressions: readonly ComparisonRow[];
  /** Histograms a run holds no sample of (count 0, e.g. a warm-up as long as the run): their rows are left out. */
  readonly noSamples: { readonly baseline: readonly string[]; readonly next: readonly string[] };
  /**
   * What differs between the runs, so the comparison may not be like for like: first the
   * store (key store: pgmq or sqlite; storeVersion; schema, e.g. "pgmq 1.13.0"), when both
   * reports recorded it, then the settings.
   */
  readonly configChanges: readonly { readonly key: string; readonly baseline: unknown; readonly next: unknown }[];
}

/** Histograms that measure the tester itself, not the queue: shown, never a regression. */
const OWN_LATENCY = new Set(['scheduleLag']);
/** Settings that describe the run, not its identity (queue names and run ids always differ). */
const IGNORED_CONFIG = new Set(['queue', 'runId', 'keep', 'hdrLogPath']);

export function compareReports(baseline: ComparableReport, next: ComparableReport, maxRegressionPct: number): Comparison {
  const rows: ComparisonRow[] = [];
  const throughputNoise = rateNoisePct(baseline, next);
  for (const metric of ['sendPerSec', 'receivePerSec'] as const) {
    const a = baseline.throughput[metric];
    const b = next.throughput[metric];
    if (a === 0 && b === 0) continue; // a role that did not run (--receivers 0)
    rows.push(row('throughput', metric, 'higher', a, b, throughputNoise, maxRegressionPct, true));
  }
  for (const [name, a] of Object.entries(baseline.latency)) {
    const b = next.latency[name];
    if (!a || !b || a.count === 0 || b.count === 0) continue;
    for (const p of PERCENTILES) {
      const va = a[p];
      const vb = b[p];
      if (typeof va !== 'number' || typeof vb !== 'number') continue;
      const judged = p === 'p99' && !OWN_LATENCY.has(name);
      rows.push(row(name, p, 'lower', va, vb, percentileNoisePct(baseline, next, name, p), maxRegressionPct, judged));
    }
  }
  const empty = (r: ComparableReport) =>
    Object.entries(r.latency)
      .filter(([, l]) => l?.count === 0)
      .map(([name]) => name);
  return {
    maxRegressionPct,
    rows,
    noSamples: { baseline: empty(baseline), next: empty(next) },
    regressions: rows.filter((r) => r.regression),
    configChanges: [...storeChanges(baseline.environment, next.environment), ...configChanges(baseline.config, next.config)],
  };
}

function row(
  group: string,
  metric: string,
  better: Better,
  baseline: number,
  next: number,
  noisePct: number | null,
  maxRegressionPct: number,
  judged: boolean,
): ComparisonRow {
  const changePct = baseline === 0 ? null : ((next - baseline) / baseline) * 100;
  const worsePct = changePct === null ? 0 : better === 'higher' ? -changePct : changePct;
  return {
    group,
    metric,
    better,
    baseline,
    next,
    changePct,
    noisePct,
    beyondNoise: changePct !== null && noisePct !== null && Math.abs(changePct) > noisePct,
    regression: judged && worsePct > maxRegressionPct,
  };
}

/** Seconds of a run that measure its steady state: after the warm-up, before the last (partial) second and the drain. */
function steadySeconds(r: ComparableReport): SeriesSecond[] {
  const series = r.series ?? [];
  const warmupSec = Math.ceil(Number(r.config['warmupMs'] ?? 0) / 1000);
  const sendingSec = typeof r.config['durationMs'] === 'number' ? Math.floor(r.config['durationMs'] / 1000) : Infinity;
  return series.filter((p) => p.second >= warmupSec && p.second < sendingSec && p.second < series.length - 1);
}

/** Mean and variance of the mean (variance / n) of per-second values; undefined below 3 seconds. */
function meanAndVarianceOfMean(values: readonly number[]): { mean: number; varMean: number } | undefined {
  if (values.length < 3) return undefined;
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1);
  return { mean, varMean: variance / values.length };
}

/** Two standard errors of the difference of the two runs' means, in percent of the baseline's mean. */
function noiseOf(a: readonly number[], b: readonly number[]): number | null {
  const sa = meanAndVarianceOfMean(a);
  const sb = meanAndVarianceOfMean(b);
  if (!sa || !sb || sa.mean === 0) return null;
  return ((2 * Math.sqrt(sa.varMean + sb.varMean)) / sa.mean) * 100;
}

function rateNoisePct(a: ComparableReport, b: ComparableReport): number | null {
  const per = (r: ComparableReport) => {
    const steady = steadySeconds(r);
    const receiving = steady.some((p) => (p.received ?? 0) > 0);
    return steady.map((p) => (receiving ? (p.received ?? 0) : (p.sent ?? 0)));
  };
  return noiseOf(per(a), per(b));
}

/** From per-second percentiles when the series carries them (series[i].latency[name][p]). */
function percentileNoisePct(a: ComparableReport, b: ComparableReport, name: string, p: string): number | null {
  const per = (r: ComparableReport) =>
    steadySeconds(r)
      .map((s) => s.latency?.[name]?.[p])
      .filter((v): v is number => typeof v === 'number');
  return noiseOf(per(a), per(b));
}

/** The store's identity in a report's environment, by the key a difference is named with. */
const STORE_KEYS = [
  ['store', 'backend'],
  ['storeVersion', 'serverVersion'],
  ['schema', 'schema'],
] as const;

/** The store, its version and its schema where they differ (only what both reports recorded). */
function storeChanges(a: ComparableReport['environment'], b: ComparableReport['environment']): Comparison['configChanges'] {
  const out: { key: string; baseline: unknown; next: unknown }[] = [];
  for (const [key, field] of STORE_KEYS) {
    const va = a?.[field];
    const vb = b?.[field];
    if (typeof va === 'string' && typeof vb === 'string' && va !== vb) out.push({ key, baseline: va, next: vb });
  }
  return out;
}

function configChanges(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): Comparison['configChanges'] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !IGNORED_CONFIG.has(k));
  return keys
    .filter((k) => JSON.stringify(a[k] ?? null) !== JSON.stringify(b[k] ?? null))
    .map((k) => ({ key: k, baseline: a[k] ?? null, next: b[k] ?? null }));
}
