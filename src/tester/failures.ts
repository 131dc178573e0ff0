// When a worker's loop gives up after failed calls, and how long it waits before the next:
// the policy apart from the worker thread, so that it can be tested on its own.
import { isSmqError } from '../errors.js';
import { NoAnswer } from './calls.js';
import type { ErrorKind } from './protocol.js';

/** After an error, wait before the next call (doubling up to 1 s, with jitter). */
const ERROR_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 1000;
/**
 * This many failed calls in a row, none of them a connection failure, end a loop: the store
 * answers, but refuses the work. (Connection failures end it after the outage timeout.)
 */
const MAX_CONSECUTIVE_ERRORS = 40;

/** Failed calls of one loop since its last successful one. */
export interface FailureRun {
  consecutiveErrors: number;
  /** When the first of them failed (µs, monotonic); undefined after a success. */
  failingSinceUs: number | undefined;
}

export function succeeded(run: FailureRun): void {
  run.consecutiveErrors = 0;
  run.failingSinceUs = undefined;
}

/**
 * Counts a failed call into the loop's run of failures; returns why the loop gives up, or
 * undefined to go on.
 */
export function recordFailure(
  run: FailureRun,
  e: unknown,
  kind: ErrorKind,
  at: {
    readonly nowUs: number;
    /** When the failed call started (µs), if known. */
    readonly callStartUs?: number | undefined;
    readonly outageTimeoutMs: number;
    readonly stopping: boolean;
    readonly lastError: string;
  },
): string | undefined {
  run.consecutiveErrors += 1;
  // A call that never answered (given up on here, or timed out in the backend) failed when it
  // started: its wait counts toward the outage.
  const hung = e instanceof NoAnswer || (isSmqError(e) && e.kind === 'timeout');
  const since = e instanceof NoAnswer ? e.sinceMs * 1000 : hung && at.callStartUs !== undefined ? at.callStartUs : at.nowUs;
  run.failingSinceUs ??= Math.min(at.nowUs, since);
  const failingMs = (at.nowUs - run.failingSinceUs) / 1000;
  if (isSmqError(e) && e.kind === 'queue-not-found') return at.lastError;
  if (failingMs >= at.outageTimeoutMs) {
    const took = `${(failingMs / 1000).toFixed(1)} s, giving up`;
    if (hung && !at.stopping) return `no answer from the database for ${took}`;
    const what = kind === 'connection' ? 'the database has been unreachable' : 'every call has failed';
    return `${what} for ${took} (last error: ${at.lastError})`;
  }
  if (kind === 'other' && run.consecutiveErrors >= MAX_CONSECUTIVE_ERRORS) {
    return `${run.consecutiveErrors} calls failed in a row, giving up (last error: ${at.lastError})`;
  }
  return undefined;
}

/** The pause before retry number `attempt` (0 first): doubling, with jitter so that many workers that lost their connections together do not come back in step. */
export function backoffMs(attempt: number): number {
  return Math.min(MAX_BACKOFF_MS, ERROR_BACKOFF_MS * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random() / 2);
}
