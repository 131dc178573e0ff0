// IN/s and OUT/s from two consecutive snapshots of one queue.
//
// Exact when the backend reports cumulative counters (pgmq: the statistics collector's
// inserted and deleted tuples of q_<name>): in = Δinserted, out = Δremoved. With only one
// of them, the other follows from the change of depth (in − out = Δdepth). With neither,
// only the net change is known: in/out are its positive and negative parts, flagged
// approximate (shown with `~`), as are rates that lean on estimated depths.

export interface RateSample {
  /** Client clock, ms. */
  readonly at: number;
  /** Messages in the live queue. */
  readonly total: number;
  /** Cumulative count of messages that entered the queue, when the backend keeps one. */
  readonly insertedTotal?: number | undefined;
  /** Cumulative count of messages that left it (deleted, archived, popped). */
  readonly removedTotal?: number | undefined;
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

function counterDelta(prev: number | undefined, cur: number | undefined): number | undefined {
  return prev === undefined || cur === undefined ? undefined : cur - prev;
}

export function computeRate(prev: RateSample | undefined, cur: RateSample): Rate {
  if (!prev) return UNKNOWN_RATE;
  const dtSec = (cur.at - prev.at) / 1000;
  if (!(dtSec > 0)) return UNKNOWN_RATE;
  const estimated = prev.estimated || cur.estimated;
  const dDepth = cur.total - prev.total;
  const dIn = counterDelta(prev.insertedTotal, cur.insertedTotal);
  const dOut = counterDelta(prev.removedTotal, cur.removedTotal);

  // A counter that goes backwards was reset (queue dropped and recreated, statistics
  // reset): this interval's rate cannot be known.
  if ((dIn !== undefined && dIn < 0) || (dOut !== undefined && dOut < 0)) return UNKNOWN_RATE;
  if (dIn !== undefined && dOut !== undefined) {
    return { inPerSec: dIn / dtSec, outPerSec: dOut / dtSec, approximate: false };
  }
  // With estimated depths the derived side can come out slightly negative; nothing moves
  // through a queue negatively.
  if (dIn !== undefined) {
    return { inPerSec: dIn / dtSec, outPerSec: Math.max(0, dIn - dDepth) / dtSec, approximate: estimated };
  }
  if (dOut !== undefined) {
    return { inPerSec: Math.max(0, dDepth + dOut) / dtSec, outPerSec: dOut / dtSec, approximate: estimated };
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
