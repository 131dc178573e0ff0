// Per-second series. Workers count what happened in each second of the run (seconds since
// the run's start) and report a second once it is over; the main thread sums a second
// only when every worker has reported it, so a slow worker never shows up as a dip.

export interface SecondCounts {
  sent: number;
  sendFailed: number;
  received: number;
  acknowledged: number;
  emptyReceives: number;
  errors: number;
}

export interface SeriesPoint extends SecondCounts {
  /** Seconds since the start of the run. */
  readonly second: number;
}

export const zeroCounts = (): SecondCounts => ({ sent: 0, sendFailed: 0, received: 0, acknowledged: 0, emptyReceives: 0, errors: 0 });

export function addCounts(into: SecondCounts, c: Readonly<SecondCounts>): void {
  into.sent += c.sent;
  into.sendFailed += c.sendFailed;
  into.received += c.received;
  into.acknowledged += c.acknowledged;
  into.emptyReceives += c.emptyReceives;
  into.errors += c.errors;
}

/** Worker side: counts keyed by second, handed out once a second is over. */
export class SecondCounter {
  private readonly bySecond = new Map<number, SecondCounts>();

  at(second: number): SecondCounts {
    let c = this.bySecond.get(second);
    if (!c) {
      c = zeroCounts();
      this.bySecond.set(second, c);
    }
    return c;
  }

  /** Seconds before `second` (all of them when undefined), in order, removed from the counter. */
  takeBefore(second?: number): SeriesPoint[] {
    const out: SeriesPoint[] = [];
    for (const [s, c] of this.bySecond) {
      if (second === undefined || s < second) out.push({ second: s, ...c });
    }
    for (const p of out) this.bySecond.delete(p.second);
    return out.sort((a, b) => a.second - b.second);
  }
}

/** Main side: sums the workers' seconds; a second is complete once every worker reported past it. */
export class SeriesAggregator {
  private readonly totals: SecondCounts[] = [];
  /** Per worker: every second before this one is reported. */
  private readonly reportedThrough: number[];

  constructor(workerCount: number) {
    this.reportedThrough = new Array<number>(workerCount).fill(0);
  }

  /** points: a worker's finished seconds; upTo: it has reported every second before this. */
  add(worker: number, points: readonly SeriesPoint[], upTo: number): void {
    for (const p of points) {
      while (this.totals.length <= p.second) this.totals.push(zeroCounts());
      addCounts(this.totals[p.second]!, p);
    }
    if (upTo > (this.reportedThrough[worker] ?? 0)) this.reportedThrough[worker] = upTo;
  }

  /** A worker that ended: it will report nothing more. */
  finish(worker: number): void {
    this.reportedThrough[worker] = Infinity;
  }

  /**
   * Number of leading seconds that every worker has reported, those in which nothing happened
   * (a frozen server) included: they are zeros, so the live rate falls to 0. Once every worker
   * has ended: up to the last second that had anything. presumed: see points().
   */
  completeSeconds(presumed?: PresumedSilent): number {
    let min = Infinity;
    for (const [worker, r] of this.reportedThrough.entries()) {
      const through = presumed?.workers.has(worker) ? Math.max(r, presumed.through) : r;
      if (through < min) min = through;
    }
    return min === Infinity ? this.totals.length : min;
  }

  get complete(): number {
    return this.completeSeconds();
  }

  /**
   * Complete seconds (all of them, including the partial last one, once every worker finished).
   * presumed: workers silent so long that their thread is blocked in a call (a locked SQLite
   * file: the driver answers synchronously, so the thread cannot report), taken as having
   * reported every second before `through`. A blocked call moves nothing until it returns, so
   * those seconds are zeros for it, and the live rates fall to 0 instead of repeating the last
   * second before the block; whatever it reports later is still added to its seconds.
   */
  points(presumed?: PresumedSilent): SeriesPoint[] {
    const n = this.completeSeconds(presumed);
    const out: SeriesPoint[] = [];
    for (let s = 0; s < n; s++) out.push({ second: s, ...(this.totals[s] ?? zeroCounts()) });
    return out;
  }
}

/** Workers (by position) that have not reported for a while, and the second they are taken to have reported up to. */
export interface PresumedSilent {
  readonly workers: ReadonlySet<number>;
  readonly through: number;
}
