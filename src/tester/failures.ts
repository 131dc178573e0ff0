// When a worker's loop gives up after failed calls (how long it waits before the next is
// retry.ts): the policy apart from the worker thread, so that it can be tested on its own.
import { isSmqError } from '../errors.js';
import { NoAnswer } from './calls.js';
import type { ErrorKind } from './protocol.js';

/**
 * This many failed calls in a row, none of them a connection failure, end a loop: the store
 * answers, but refuses the work. (Connection failures end it after the outage timeout.)
 */
const MAX_CONSECUTIVE_ERRORS = 40;

export const errorText = (e: unknown) => (isSmqError(e) ? e.line() : e instanceof Error ? e.message : String(e));
/**
 * A call that timed out (deadline.ts) found no server either, and a write refused as read-only
 * found a standby where a primary was (its connection is dropped and the next one chosen
 * again, as after a failover): both are counted with lost connections.
 */
export const errorKind = (e: unknown): ErrorKind =>
  isSmqError(e) && (e.kind === 'connection' || e.kind === 'timeout' || e.kind === 'read-only') ? 'connection' : 'other';

/** Failed calls of one loop since its last successful one. */
export interface FailureRun {
  consecutiveErrors: number;
  /** When the first of them failed (µs, monotonic); undefined after a success. */
  failingSinceUs: number | undefined;
  /**
   * Which server the loop's connection is on is not known (it has not connected yet, or lost
   * its connection: the next one may be on another server); see loops/server-check.ts.
   */
  serverUnknown?: boolean;
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
