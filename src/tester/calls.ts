// A worker's calls in flight, watched: a hung server (stopped, or a network that drops
// packets without a reset) never answers and never closes the connection, so a call can
// wait for ever. The worker sees its calls through this and gives up on one that has waited
// too long, as on a call that failed; and on STOP it can give up on all of them, so that it
// still reports.
import { SmqError } from '../errors.js';

/** A call given up on: no answer since sinceMs. Counts as a lost connection. */
export class NoAnswer extends SmqError {
  constructor(
    message: string,
    /** When the call started (ms, the watch's clock). */
    readonly sinceMs: number,
  ) {
    super('connection', message);
  }
}

interface Tracked {
  readonly sinceMs: number;
  readonly giveUp: (e: NoAnswer) => void;
}

/** What a thread's calls in flight say at a report: how many, and how long none has answered. */
export interface CallsWaiting {
  readonly calls: number;
  /** Since a call last answered (or failed), to within a report's interval; 0 when one did since the last look. */
  readonly quietMs: number;
}

export class CallWatch {
  private readonly calls = new Set<Tracked>();
  /** Set by abandonAll: every call from then on is given up at once. */
  private abandoned: string | undefined;
  /** Calls settled so far, and when waiting() last saw that count change (ms). */
  private settled = 0;
  private seenSettled = -1;
  private seenAtMs = 0;

  constructor(private readonly nowMs: () => number) {}

  /**
   * The call's outcome, unless the watch gives up on it first; then a NoAnswer, and the
   * call's own outcome, whenever it comes, is dropped.
   */
  track<T>(call: Promise<T>, sinceMs: number = this.nowMs()): Promise<T> {
    if (this.abandoned !== undefined) {
      call.catch(() => undefined);
      return Promise.reject(new NoAnswer(this.abandoned, sinceMs));
    }
    return new Promise<T>((resolve, reject) => {
      const t: Tracked = { sinceMs, giveUp: reject };
      this.calls.add(t);
      call.then(
        (v) => {
          this.settled++;
          if (this.calls.delete(t)) resolve(v);
        },
        (e: unknown) => {
          this.settled++;
          if (this.calls.delete(t)) reject(e);
        },
      );
    });
  }

  get inFlight(): number {
    return this.calls.size;
  }

  /** Start of the oldest call still waiting (ms), or undefined. */
  oldestSinceMs(): number | undefined {
    let oldest: number | undefined;
    for (const t of this.calls) if (oldest === undefined || t.sinceMs < oldest) oldest = t.sinceMs;
    return oldest;
  }

  /**
   * Looked at once per report (a counter on the hot path, the clock only here): the calls in
   * flight, and how long since one last answered. A server stopped without closing anything
   * leaves every call waiting while the thread itself runs on and reports.
   */
  waiting(): CallsWaiting {
    const now = this.nowMs();
    if (this.settled !== this.seenSettled || this.calls.size === 0) {
      this.seenSettled = this.settled;
      this.seenAtMs = now;
    }
    return { calls: this.calls.size, quietMs: now - this.seenAtMs };
  }

  /** Gives up on every call that has waited limitMs or more; returns how many. */
  giveUpOlderThan(limitMs: number): number {
    const now = this.nowMs();
    let n = 0;
    for (const t of [...this.calls]) {
      const waitedMs = now - t.sinceMs;
      if (waitedMs < limitMs) continue;
      this.calls.delete(t);
      t.giveUp(new NoAnswer(`no answer from the database for ${(waitedMs / 1000).toFixed(1)} s`, t.sinceMs));
      n += 1;
    }
    return n;
  }

  /** Gives up on every call in flight, and on every later one at once (the worker is stopping). */
  abandonAll(reason: string): void {
    this.abandoned = reason;
    for (const t of [...this.calls]) {
      this.calls.delete(t);
      t.giveUp(new NoAnswer(reason, t.sinceMs));
    }
  }
}
