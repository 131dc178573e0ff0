// What the live view explains beyond the counts, from what the workers reported: time left,
// the backlog and where it is going, and which worker lags behind the others of its role.
// Pure: the collector keeps the figures, these functions judge them.
import type { WorkerRole } from './protocol.js';
import type { SecondCounts } from './series.js';

export type BacklogTrend = 'growing' | 'shrinking' | 'steady';

/** Complete seconds the trend looks back over. */
export const TREND_SECONDS = 3;

/**
 * Where the backlog (sent − received) went over the last complete seconds: a change of more
 * than 5% of what moved in them (and more than a handful) is a trend, anything less is steady.
 */
export function backlogTrend(series: readonly Pick<SecondCounts, 'sent' | 'received'>[]): BacklogTrend {
  const recent = series.slice(-TREND_SECONDS);
  let change = 0;
  let moved = 0;
  for (const p of recent) {
    change += p.sent - p.received;
    moved += p.sent + p.received;
  }
  if (Math.abs(change) <= Math.max(10, moved * 0.05)) return 'steady';
  return change > 0 ? 'growing' : 'shrinking';
}

/**
 * A thread silent this long (it reports every 100 ms) is blocked in a call: its seconds since
 * count as reported, with nothing in them, in the live series (series.ts points).
 */
export const SILENT_SERIES_MS = 1000;

/** A worker silent (no report) this long is lagging whatever its rate was. */
export const SILENT_LAG_MS = 2000;
/** A worker at less than this share of its peers' median rate lags... */
export const LAG_SHARE = 0.25;
/** ...when its peers do at least this much (msg/s): idle receivers of an empty queue do not lag. */
export const LAG_MIN_PEER_RATE = 5;
/** Complete seconds a worker's rate is averaged over. */
export const RATE_SECONDS = 2;

export interface WorkerActivity {
  readonly role: WorkerRole;
  readonly indices: readonly number[];
  /** Messages sent (sender) or received (receiver) in each of its last complete seconds, oldest first. */
  readonly recent: readonly number[];
  /** Since its last report (ms). */
  readonly silentMs: number;
}

export interface WorkerRate {
  readonly role: WorkerRole;
  readonly indices: readonly number[];
  /** Messages per second over its last complete seconds (undefined: not RATE_SECONDS of them yet). */
  readonly perSec: number | undefined;
  /** Median of the other workers of its role (undefined: none to compare with). */
  readonly othersPerSec: number | undefined;
  readonly silentMs: number;
  readonly lagging: boolean;
}

const median = (xs: readonly number[]): number | undefined => {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * Each running worker's rate, and whether it lags: silent for SILENT_LAG_MS (a thread blocked
 * in a call), or below LAG_SHARE of the median of the others of its role over RATE_SECONDS
 * (a receiver whose calls hang while the others' go on shows 0/s).
 */
export function workerRates(workers: readonly WorkerActivity[]): WorkerRate[] {
  const rateOf = (w: WorkerActivity) =>
    w.recent.length >= RATE_SECONDS ? w.recent.slice(-RATE_SECONDS).reduce((a, b) => a + b, 0) / RATE_SECONDS : undefined;
  const rates = workers.map(rateOf);
  return workers.map((w, i) => {
    const others: number[] = [];
    workers.forEach((o, j) => {
      const r = rates[j];
      if (j !== i && o.role === w.role && r !== undefined && o.silentMs < SILENT_LAG_MS) others.push(r);
    });
    const perSec = rates[i];
    const othersPerSec = median(others);
    const slow =
      perSec !== undefined && othersPerSec !== undefined && othersPerSec >= LAG_MIN_PEER_RATE && perSec < othersPerSec * LAG_SHARE;
    return { role: w.role, indices: w.indices, perSec, othersPerSec, silentMs: w.silentMs, lagging: w.silentMs >= SILENT_LAG_MS || slow };
  });
}

/** No call of any thread answered for this long, with calls waiting: the store is stalled. */
export const STALLED_MS = 2000;

export interface ThreadWaiting {
  /** Since its last report (ms): a thread blocked in a call (SQLite) reports nothing. */
  readonly silentMs: number;
  readonly calls: number;
  /** Since one of its calls last answered (ms), as it reported; see CallWatch.waiting. */
  readonly quietMs: number;
}

/**
 * Every running thread waits on the store: its calls have had no answer for STALLED_MS (more
 * under --poll, whose reads wait by design), or it has not reported for as long (blocked in
 * a call). Undefined unless at least one of them reports calls waiting: threads that all
 * stopped reporting are the other line's (laggingLines), and idle threads wait for nothing.
 */
export function storeStalled(
  threads: readonly ThreadWaiting[],
  pollMs = 0,
): { readonly quietMs: number; readonly calls: number } | undefined {
  const limit = STALLED_MS + pollMs;
  let quietMs = Infinity;
  let calls = 0;
  for (const t of threads) {
    if (t.silentMs >= SILENT_LAG_MS) continue;
    if (t.calls === 0 || t.quietMs + t.silentMs < limit) return undefined;
    quietMs = Math.min(quietMs, t.quietMs + t.silentMs);
    calls += t.calls;
  }
  return calls > 0 ? { quietMs, calls } : undefined;
}
