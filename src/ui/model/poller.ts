// A plain poller (no React): runs a load now, then again an interval after the previous one
// finished (a slow database slows the loop down instead of piling up calls), and retries a
// failed load with backoff. Two policies tell the loops of top apart; usePolling wraps this.
import { retryDelay } from './interval.js';

export type PollResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

export interface PollPolicy {
  /**
   * A poll asked for while one is running: 'skip' drops the ask (the running one counts);
   * 'restart' starts a new load and drops the running one's result when it comes.
   */
  readonly overlap: 'skip' | 'restart';
  /** Failed loads keep being retried while paused (a page shows its error until it loads). */
  readonly retryWhilePaused: boolean;
  /** A new interval restarts the wait for the next poll, counted from now. */
  readonly rescheduleOnInterval: boolean;
}

/**
 * The queue list: one listQueues at a time (an ask while one runs is dropped); pausing stops
 * the loop, retries included; a new interval counts from now.
 */
export const LIST_POLICY: PollPolicy = { overlap: 'skip', retryWhilePaused: false, rescheduleOnInterval: true };

/**
 * A page of messages (or one message): what is asked for last wins (the page changed while
 * the previous one loaded); a failed load is retried even while paused; a new interval
 * applies from the next wait on.
 */
export const PAGE_POLICY: PollPolicy = { overlap: 'restart', retryWhilePaused: true, rescheduleOnInterval: false };

export interface PollerOptions<T> {
  readonly load: () => Promise<T>;
  readonly intervalMs: number;
  readonly paused: boolean;
  readonly policy: PollPolicy;
  /** A load starts. */
  readonly onStart?: () => void;
  /** A load that is still wanted finished (results of superseded loads and after stop() are dropped). */
  readonly onResult: (result: PollResult<T>) => void;
}

export class Poller<T> {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Numbers the loads: a result counts only while its number is the latest. */
  private seq = 0;
  private running = false;
  private stopped = false;
  private failureCount = 0;
  private intervalMs: number;
  private paused: boolean;

  constructor(private readonly options: PollerOptions<T>) {
    this.intervalMs = options.intervalMs;
    this.paused = options.paused;
  }

  /** Consecutive failed loads (0 after a success). */
  get failures(): number {
    return this.failureCount;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Loads now, paused or not (the first load, an explicit refresh, a change of what is loaded). */
  pollNow(): void {
    if (this.stopped) return;
    if (this.running && this.options.policy.overlap === 'skip') return;
    this.clearTimer();
    const mine = ++this.seq;
    this.running = true;
    this.options.onStart?.();
    let loading: Promise<T>;
    try {
      loading = this.options.load();
    } catch (error) {
      loading = Promise.reject(error);
    }
    loading.then(
      (value) => this.settle(mine, { ok: true, value }),
      (error: unknown) => this.settle(mine, { ok: false, error }),
    );
  }

  /** Pausing stops the waiting poll (retries too, unless the policy keeps them); resuming polls at once. */
  setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    this.paused = paused;
    if (!paused) this.pollNow();
    else if (!this.options.policy.retryWhilePaused || this.failureCount === 0) this.clearTimer();
  }

  setIntervalMs(intervalMs: number): void {
    if (intervalMs === this.intervalMs) return;
    this.intervalMs = intervalMs;
    if (!this.options.policy.rescheduleOnInterval || this.running || this.failureCount > 0) return;
    this.clearTimer();
    if (!this.paused && !this.stopped) this.schedule(intervalMs);
  }

  /** No more loads; a result still on its way is dropped. */
  stop(): void {
    this.stopped = true;
    this.seq++;
    this.running = false;
    this.clearTimer();
  }

  private settle(mine: number, result: PollResult<T>): void {
    if (this.stopped || mine !== this.seq) return;
    this.running = false;
    this.failureCount = result.ok ? 0 : this.failureCount + 1;
    this.options.onResult(result);
    if (this.stopped || mine !== this.seq) return; // onResult stopped us or asked for a new load
    if (result.ok) {
      if (!this.paused) this.schedule(this.intervalMs);
    } else if (!this.paused || this.options.policy.retryWhilePaused) {
      this.schedule(retryDelay(this.intervalMs, this.failureCount));
    }
  }

  private schedule(delayMs: number): void {
    this.clearTimer();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pollNow();
    }, delayMs);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
