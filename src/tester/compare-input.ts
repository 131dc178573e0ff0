// Whether a parsed document is a report of `smq tester --json` that compare can judge: the
// parts it reads are there, and every number it reads is finite and in a range a run can
// give (a doctored `sendPerSec: -1e308` is refused, not printed 400 columns wide). Pure.

/** The percentiles compared, in the report's names. */
export const PERCENTILES = ['p50', 'p90', 'p99', 'p999', 'max'] as const;

/** msg/s: far above any store's throughput. */
const MAX_RATE = 1e9;
/** ms: a latency over 11 days is no measurement. */
const MAX_MS = 1e9;
/** Messages (or calls) counted in one run. */
const MAX_COUNT = 1e15;
/** Seconds of a series, and a run's durations in ms. */
const MAX_SECOND = 1e8;
const MAX_DURATION_MS = 1e12;

type Obj = Readonly<Record<string, unknown>>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const shown = (v: unknown) => (typeof v === 'number' ? String(v) : (JSON.stringify(v)?.slice(0, 40) ?? String(v)));

/** undefined when v is a number in 0..max (an integer when integer); else what is wrong with it. */
function numberProblem(field: string, v: unknown, max: number, what: string, integer = false): string | undefined {
  const ok = typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= max && (!integer || Number.isInteger(v));
  return ok
    ? undefined
    : `${field} is ${shown(v)}: ${what} is a${integer ? 'n integer' : ' number'} from 0 to ${max.toExponential(0).replace('e+', 'e')}`;
}

function latencyProblem(field: string, l: unknown, withCount: boolean): string | undefined {
  if (l === null || l === undefined) return undefined;
  if (!isObject(l)) return `${field} is not an object`;
  if (withCount) {
    const p = numberProblem(`${field}.count`, l['count'], MAX_COUNT, 'a count', true);
    if (p) return p;
  }
  for (const name of PERCENTILES) {
    if (l[name] === undefined || l[name] === null) continue;
    const p = numberProblem(`${field}.${name}`, l[name], MAX_MS, 'a latency in ms');
    if (p) return p;
  }
  return undefined;
}

function seriesProblem(series: unknown): string | undefined {
  if (series === undefined || series === null) return undefined;
  if (!Array.isArray(series)) return 'series is not a list';
  for (const [i, point] of (series as unknown[]).entries()) {
    const at = `series[${i}]`;
    if (!isObject(point)) return `${at} is not an object`;
    const p = numberProblem(`${at}.second`, point['second'], MAX_SECOND, 'a second', true);
    if (p) return p;
    for (const k of ['sent', 'received'] as const) {
      if (point[k] === undefined) continue;
      const q = numberProblem(`${at}.${k}`, point[k], MAX_COUNT, 'a count', true);
      if (q) return q;
    }
    const latency = point['latency'];
    if (latency === undefined || latency === null) continue;
    if (!isObject(latency)) return `${at}.latency is not an object`;
    for (const [name, l] of Object.entries(latency)) {
      const q = latencyProblem(`${at}.latency.${name}`, l, false);
      if (q) return q;
    }
  }
  return undefined;
}

/** What is wrong with a parsed document that should be a tester report; undefined when it is one. */
export function reportProblem(doc: unknown): string | undefined {
  if (!isObject(doc)) return 'it is not a JSON object';
  const t = doc['throughput'];
  if (!isObject(t) || typeof t['sendPerSec'] !== 'number' || typeof t['receivePerSec'] !== 'number') return 'it has no throughput';
  if (!isObject(doc['latency'])) return 'it has no latency';
  const config = doc['config'];
  if (!isObject(config)) return 'it has no config';
  for (const k of ['sendPerSec', 'receivePerSec'] as const) {
    const p = numberProblem(`throughput.${k}`, t[k], MAX_RATE, 'a rate in msg/s');
    if (p) return p;
  }
  for (const [name, l] of Object.entries(doc['latency'])) {
    const p = latencyProblem(`latency.${name}`, l, true);
    if (p) return p;
  }
  // Printed in compare's header: only what a report holds there.
  const verdict = doc['verdict'];
  if (verdict !== undefined && !['clean', 'incomplete', 'violations', 'failed', 'interrupted'].includes(verdict as string)) {
    return `verdict is ${shown(verdict)}: a verdict is clean, incomplete, violations, failed or interrupted`;
  }
  const startedAt = doc['startedAt'];
  if (startedAt !== undefined && (typeof startedAt !== 'string' || !/^[0-9T:.+-]{10,40}Z?$/.test(startedAt))) {
    return `startedAt is ${shown(startedAt)}: a start time is an ISO date such as 2026-12-07T15:00:00.000Z`;
  }
  for (const k of ['durationMs', 'warmupMs'] as const) {
    if (config[k] === undefined || config[k] === null) continue;
    const p = numberProblem(`config.${k}`, config[k], MAX_DURATION_MS, 'a duration in ms');
    if (p) return p;
  }
  return seriesProblem(doc['series']);
}
