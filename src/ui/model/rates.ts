// IN/s and OUT/s from two consecutive snapshots of one queue.
//
// Exact when the backend reports a monotonic enqueue counter (pgmq: the queue's msg_id
// sequence): in = Δenqueued, out = Δenqueued − Δdepth (deleted + archived + popped).
// Without one only the net change of the depth is known; then in/out are its positive
// and negative parts and the rate is flagged approximate (shown with `~`).

export interface RateSample {
  /** Client clock, ms. */
  readonly at: number;
  /** Messages in the live queue. */
  readonly total: number;
  /** Monotonic count of messages ever enqueued, when the backend has one. */
  readonly enqueuedTotal?: number | undefined;
  /** Counts are estimates (large queue). */
  readonly estimated: boolean;
}

export interface Rate {
  /** Messages per second entering the queue; null when unknown (first sample, counter reset). */
  readonly inPerSec: number | null;
  /** Messages per second leaving it (deleted, archived, popped). */
  readonly outPerSec: number | null;
  /** Derived from estimates or from the net depth change only. */
  readonly approximate: boolean;
}

export const UNKNOWN_RATE: Rate = { inPerSec: null, outPerSec: null, approximate: false };

export function computeRate(prev: RateSample | undefined, cur: RateSample): Rate {
  if (!prev) return UNKNOWN_RATE;
  const dtSec = (cur.at - prev.at) / 1000;
  if (!(dtSec > 0)) return UNKNOWN_RATE;
  const estimated = prev.estimated || cur.estimated;
  const dDepth = cur.total - prev.total;

  if (prev.enqueuedTotal !== undefined && cur.enqueuedTotal !== undefined) {
    const dIn = cur.enqueuedTotal - prev.enqueuedTotal;
    // A counter that goes backwards was reset (queue dropped and recreated, sequence
    // restarted): this interval's rate cannot be known.
    if (dIn < 0) return UNKNOWN_RATE;
    // With estimated depths, in − Δdepth can come out slightly negative; nothing leaves
    // a queue negatively.
    const dOut = Math.max(0, dIn - dDepth);
    return { inPerSec: dIn / dtSec, outPerSec: dOut / dtSec, approximate: estimated };
  }
  return {
    inPerSec: Math.max(0, dDepth) / dtSec,
    outPerSec: Math.max(0, -dDepth) / dtSec,
    approximate: true,
  };
}

/** Sum of the known rates of many queues (for the header's totals); null when none is known. */
export function sumRates(rates: Iterable<Rate>): Rate {
  let inSum: number | null = null;
  let outSum: number | null = null;
  let approximate = false;
  for (const r of rates) {
    if (r.inPerSec !== null) inSum = (inSum ?? 0) + r.inPerSec;
    if (r.outPerSec !== null) outSum = (outSum ?? 0) + r.outPerSec;
    approximate ||= r.approximate;
  }
  return { inPerSec: inSum, outPerSec: outSum, approximate };
}
