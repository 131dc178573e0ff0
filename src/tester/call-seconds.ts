// Per-second percentiles of the calls (send, receive, ack): each worker thread keeps one
// histogram per call kind and second, reports a second once it is over (recorder.ts), and the
// main thread merges a second's histograms from every thread of the role, then keeps only its
// p50/p99/max (a histogram per second would grow with the run). The report's series carries
// them beside the end-to-end ones (intervals.ts).
import { addEncoded, newMergedHistogram, newWorkerHistogram, recordUs, type Histogram } from './histograms.js';
import type { SecondLatency } from './intervals.js';

export const CALL_KINDS = ['send', 'receive', 'ack'] as const;
export type CallKind = (typeof CALL_KINDS)[number];

/** Worker side: a histogram per call kind and second, handed out once the second is over. */
export class CallSeconds {
  private readonly bySecond: Record<CallKind, Map<number, Histogram>> = { send: new Map(), receive: new Map(), ack: new Map() };

  record(kind: CallKind, second: number, us: number): void {
    const m = this.bySecond[kind];
    let h = m.get(second);
    if (!h) {
      h = newWorkerHistogram();
      m.set(second, h);
    }
    recordUs(h, us);
  }

  /** Seconds before `current` (all when undefined), encoded, removed. */
  take(current: number | undefined, encode: (h: Histogram) => string): { kind: CallKind; second: number; histogram: string }[] {
    const out: { kind: CallKind; second: number; histogram: string }[] = [];
    for (const kind of CALL_KINDS) {
      for (const [second, h] of this.bySecond[kind]) {
        if (current !== undefined && second >= current) continue;
        out.push({ kind, second, histogram: encode(h) });
        this.bySecond[kind].delete(second);
      }
    }
    return out;
  }
}

/** Main side, one per call kind: a second is summarised once every thread of its role has reported past it. */
export class CallSecondsMerger {
  private readonly pending = new Map<number, Histogram>();
  private upTo: number[];
  readonly perSecond = new Map<number, SecondLatency>();

  constructor(threads: number) {
    this.upTo = new Array<number>(threads).fill(0);
  }

  add(second: number, encoded: string): void {
    let h = this.pending.get(second);
    if (!h) {
      h = newMergedHistogram();
      this.pending.set(second, h);
    }
    addEncoded(h, encoded);
  }

  /** A thread has reported every second before upToSecond (Infinity: it is done). */
  reported(slot: number, upToSecond: number): void {
    this.upTo[slot] = Math.max(this.upTo[slot] ?? 0, upToSecond >= Number.MAX_SAFE_INTEGER ? Infinity : upToSecond);
    this.release(false);
  }

  finished(slot: number): void {
    this.upTo[slot] = Infinity;
    this.release(false);
  }

  /** Summarises the seconds every thread is past (all: every second held). */
  release(all: boolean): void {
    const complete = all ? Infinity : Math.min(...this.upTo, Infinity);
    for (const [second, h] of this.pending) {
      if (second >= complete) continue;
      const ms = (v: number) => Math.round(v) / 1000;
      this.perSecond.set(second, { p50: ms(h.getValueAtPercentile(50)), p99: ms(h.getValueAtPercentile(99)), max: ms(h.maxValue) });
      this.pending.delete(second);
    }
  }
}
