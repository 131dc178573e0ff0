// Deadlines for calls to a store. A server whose processes are stopped (or a statement
// waiting on a lock) answers nothing and closes nothing: without a deadline a call waits
// for ever. Every call of a Backend opened with OpenOptions.callTimeoutMs either settles
// within that time or rejects with a CallTimeout error (SmqError kind 'timeout').
//
// For callers that must tell a hung call from a failed one (the tester's outage timeout):
// `isCallTimeout(e)`. A timed-out call's effect is unknown: the server may have done it
// (a send may be committed) after the client stopped waiting.
import { SmqError } from '../errors.js';
import type { Backend } from './types.js';

/** Commands (and top's refreshes) give up on a call after this long unless --timeout says otherwise. */
export const DEFAULT_CALL_TIMEOUT_MS = 10_000;

/** "10 s", "1.5 s", "250 ms": how a deadline is named in messages. */
export function formatTimeout(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

export function callTimeout(location: string, ms: number, cause?: unknown): SmqError {
  return new SmqError('timeout', `no answer from ${location} within ${formatTimeout(ms)}`, {
    hint: 'the server is hung, overloaded or cut off, or a lock holds the call; raise --timeout if it is only slow',
    ...(cause === undefined ? {} : { cause }),
  });
}

/** True for the error a call gets when its deadline passed without an answer. */
export function isCallTimeout(e: unknown): e is SmqError {
  return e instanceof SmqError && e.kind === 'timeout';
}

/**
 * Settles like `promise`, or rejects with `onExpire()`'s error once `ms` have passed. The
 * timer keeps the process alive while the call is pending (a command must not end silently
 * mid-call) and is cleared as soon as the call settles.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, onExpire: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onExpire()), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/**
 * The same Backend, each call raced against the deadline. close() is left alone: each
 * backend's own close() returns promptly whatever the server does (pgmq destroys sockets that
 * do not close in time), and a close that failed late must not fail a command that worked.
 * The contract's optional methods (health, pgmq's connectionBudget) are guarded too;
 * other properties pass through. Calls inside the backend are not wrapped twice.
 */
export function guardBackend<B extends Backend>(backend: B, ms: number, location: string): B {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(backend, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || key === 'constructor' || key === 'close') return value;
      let fn = wrapped.get(key);
      if (fn === undefined) {
        const method = value as (...args: unknown[]) => unknown;
        fn = (...args: unknown[]) => {
          const out = method.apply(target, args);
          if (!(out instanceof Promise)) return out;
          return withDeadline(out, ms, () => callTimeout(location, ms));
        };
        wrapped.set(key, fn);
      }
      return fn;
    },
  });
}
