// How the tester waits before trying again: one formula (a pause doubling from a first value
// up to a ceiling, with or without jitter) for every retry of a run: a worker loop after a
// failed call, a worker connecting, an empty receive, and the engine's calls after the run.
import { isSmqError } from '../errors.js';
import { monoUs } from './clock.js';
import { errorKind } from './failures.js';

export interface Backoff {
  /** The first pause (ms). */
  readonly firstMs: number;
  /** No pause is longer than this (ms). */
  readonly maxMs: number;
  /** Each pause is drawn between half and all of its value. */
  readonly jitter: boolean;
}

/**
 * After a failed call of a worker loop, and between attempts to connect: doubling up to 1 s,
 * with jitter so that many workers that lost their connections together do not come back in step.
 */
export const CALL_BACKOFF: Backoff = { firstMs: 50, maxMs: 1000, jitter: true };
/** Empty receives back off from 1 ms to 32 ms, so an idle queue is not hammered. */
export const EMPTY_RECEIVE_BACKOFF: Backoff = { firstMs: 1, maxMs: 32, jitter: false };
/** The engine's calls after the run (reading the queue, reading it back, dropping it). */
export const AFTER_RUN_BACKOFF: Backoff = { firstMs: 100, maxMs: 1000, jitter: false };

/** The pause before retry number `attempt` (0 first). */
export function backoffMs(attempt: number, backoff: Backoff = CALL_BACKOFF, random: () => number = Math.random): number {
  // The exponent is capped only so that a long run of attempts stays a finite number.
  const ms = Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.min(attempt, 30));
  return backoff.jitter ? ms * (0.5 + random() / 2) : ms;
}

/** A connection that fails while the run starts (a server restarting) is tried again for a while. */
const CONNECT_RETRY_MS = 10_000;

/**
 * A worker's connection: open() again after a lost connection, for up to
 * min(outageTimeoutMs, CONNECT_RETRY_MS), unless the run stops meanwhile.
 */
export async function openRetrying<T>(
  open: () => Promise<T>,
  outageTimeoutMs: number,
  stop: { readonly stopping: boolean; pause(ms: number): Promise<void> },
): Promise<T> {
  const since = monoUs();
  for (let attempt = 0; ; attempt++) {
    try {
      return await open();
    } catch (e) {
      const failingMs = (monoUs() - since) / 1000;
      if (stop.stopping || errorKind(e) !== 'connection' || failingMs >= Math.min(outageTimeoutMs, CONNECT_RETRY_MS)) throw e;
      await stop.pause(backoffMs(attempt));
    }
  }
}

const isLostConnection = (e: unknown) => isSmqError(e) && e.kind === 'connection';

/**
 * Runs fn; a lost connection is retried (the pool reconnects) until untilMs (Date.now()):
 * the engine's calls after the run.
 */
export async function retryLostConnection<T>(
  untilMs: number,
  fn: () => Promise<T>,
  sleep: (ms: number) => Promise<void> = defaultSleep,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const wait = backoffMs(attempt, AFTER_RUN_BACKOFF);
    try {
      return await fn();
    } catch (e) {
      if (!isLostConnection(e) || Date.now() + wait > untilMs) throw e;
      await sleep(wait);
    }
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
