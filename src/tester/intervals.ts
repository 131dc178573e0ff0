// End-to-end latency by second, merged across receivers: the live percentiles and the
// HdrHistogram log (--hdr-log, hdr-log.ts). A second is released once every receiver has reported it.
import type { HdrLog } from './hdr-log.js';
import { addEncoded, newMergedHistogram, type Histogram } from './histograms.js';

/** One second's end-to-end latency in ms (the JSON series' `latency.endToEnd`). */
export interface SecondLatency {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export class EndToEndIntervals {
  private readonly bySecond = new Map<number, Histogram>();
  /** Per receiver thread: every second before this one is reported (Infinity: finished). */
  private upTo: number[] = [];
  private nextSecond = 0;
  /** Each released second that had deliveries, warm-up included: the report's per-second percentiles. */
  readonly perSecond = new Map<number, SecondLatency>();
  /** Every released second after the warm-up. */
  readonly running: Histogram = newMergedHistogram();

  constructor(
    private readonly warmupMs: number,
    /** --hdr-log: every released second after the warm-up is written there. */
    private readonly log: HdrLog | undefined,
  ) {}

  receiverThreads(n: number): void {
    this.upTo = new Array<number>(n).fill(0);
  }

  add(second: number, encoded: string): void {
    let h = this.bySecond.get(second);
    if (!h) {
      h = newMergedHistogram();
      this.bySecond.set(second, h);
    }
    addEncoded(h, encoded);
  }

  /** A receiver thread has reported every second before upToSecond (its last report: all of them). */
  reported(slot: number, upToSecond: number): void {
    const upTo = upToSecond >= Number.MAX_SAFE_INTEGER ? Infinity : upToSecond;
    this.upTo[slot] = Math.max(this.upTo[slot] ?? 0, upTo);
    this.release(false);
  }

  /** A receiver thread is done (its result came, or it died): it holds nothing back. */
  finished(slot: number): void {
    this.upTo[slot] = Infinity;
  }

  /** Seconds every receiver has reported (all: every second there is) go into the running histogram and the log. */
  release(all: boolean): void {
    let complete = Infinity;
    for (const u of this.upTo) if (u < complete) complete = u;
    if (all || complete === Infinity) {
      complete = this.nextSecond;
      for (const s of this.bySecond.keys()) if (s + 1 > complete) complete = s + 1;
    }
    const warmupSeconds = Math.ceil(this.warmupMs / 1000);
    for (; this.nextSecond < complete; this.nextSecond++) {
      const s = this.nextSecond;
      const h = this.bySecond.get(s);
      this.bySecond.delete(s);
      if (h && h.totalCount > 0) {
        const ms = (v: number) => Math.round(v) / 1000;
        this.perSecond.set(s, { p50: ms(h.getValueAtPercentile(50)), p99: ms(h.getValueAtPercentile(99)), max: ms(h.maxValue) });
      }
      if (s < warmupSeconds) continue;
      if (h) this.running.add(h);
      if (this.log) this.log.interval(h ?? newMergedHistogram(), s);
    }
  }

  /** Running p50 and p99 in ms; undefined before the first released second. */
  percentiles(): { readonly p50: number; readonly p99: number } | undefined {
    const r = this.running;
    return r.totalCount > 0 ? { p50: r.getValueAtPercentile(50) / 1000, p99: r.getValueAtPercentile(99) / 1000 } : undefined;
  }
}
