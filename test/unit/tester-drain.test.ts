// The drain's end without threads or a database: every way it ends, as a function of the
// checker's counts and the clock.
import { describe, expect, test } from 'vitest';
import {
  decideDrain,
  drainIdleMs,
  drainTimeoutMs,
  INTERRUPT_DRAIN_MS,
  UNCERTAIN_GRACE_MS,
  type DrainState,
} from '../../src/tester/drain.js';

const S = 1_000_000; // µs per second
const base: DrainState = {
  drainOnly: false,
  ackedSends: 10,
  ackedDelivered: 5,
  uncertainSends: 0,
  drainStartUs: 100 * S,
  lastProgressUs: 100 * S,
  interrupted: false,
  interruptedAtUs: 0,
  timeoutMs: 5000,
};
const state = (over: Partial<DrainState>): DrainState => ({ ...base, ...over });

describe('decideDrain', () => {
  test('messages still awaited and deliveries coming: keep draining', () => {
    expect(decideDrain(base, 101 * S)).toBeUndefined();
  });

  test('every acknowledged send delivered: complete, then settle', () => {
    expect(decideDrain(state({ ackedDelivered: 10 }), 100 * S)).toEqual({ outcome: 'complete', next: 'settle' });
  });

  test('all in but sends uncertain: waits the grace after the last delivery, no longer', () => {
    const s = state({ ackedDelivered: 10, uncertainSends: 3, lastProgressUs: 100 * S });
    expect(decideDrain(s, 100 * S + (UNCERTAIN_GRACE_MS - 1) * 1000)).toBeUndefined();
    expect(decideDrain(s, 100 * S + UNCERTAIN_GRACE_MS * 1000)).toEqual({ outcome: 'complete', next: 'settle' });
  });

  test('the grace is never longer than the drain timeout', () => {
    const s = state({ ackedDelivered: 10, uncertainSends: 3, timeoutMs: 200 });
    expect(decideDrain(s, 100 * S + 200_000)).toEqual({ outcome: 'complete', next: 'settle' });
  });

  test('nothing delivered for the drain timeout: timed out, then settle', () => {
    expect(decideDrain(state({}), 100 * S + 4_999_000)).toBeUndefined();
    expect(decideDrain(state({}), 105 * S)).toEqual({ outcome: 'timedOut', next: 'settle' });
  });

  test('idle is counted from the last delivery, or from the drain start if that is later', () => {
    expect(drainIdleMs({ drainStartUs: 100 * S, lastProgressUs: 102 * S }, 103 * S)).toBe(1000);
    expect(drainIdleMs({ drainStartUs: 100 * S, lastProgressUs: 50 * S }, 103 * S)).toBe(3000);
    expect(decideDrain(state({ lastProgressUs: 103 * S }), 105 * S)).toBeUndefined();
  });

  test('a drain-only run (--senders 0) awaits nothing: idle for the timeout is its normal end', () => {
    const s = state({ drainOnly: true, ackedSends: 0, ackedDelivered: 0 });
    expect(decideDrain(s, 104 * S)).toBeUndefined();
    expect(decideDrain(s, 105 * S)).toEqual({ outcome: 'complete', next: 'settle' });
  });

  test('interrupted with everything in: complete, receivers stop without settling', () => {
    const s = state({ ackedDelivered: 10, interrupted: true, interruptedAtUs: 100 * S });
    expect(decideDrain(s, 100 * S)).toEqual({ outcome: 'complete', next: 'stop' });
  });

  test('interrupted: stopped once the (short) timeout has passed since the interrupt, however busy', () => {
    const timeoutMs = drainTimeoutMs(5000, true);
    const s = state({ interrupted: true, interruptedAtUs: 100 * S, timeoutMs, lastProgressUs: 100.4 * S });
    expect(decideDrain(s, 100 * S + (timeoutMs - 1) * 1000)).toBeUndefined();
    expect(decideDrain(s, 100 * S + timeoutMs * 1000)).toEqual({ outcome: 'stopped', next: 'stop' });
  });

  test('interrupted and idle for the timeout: stopped, never timed out', () => {
    const s = state({ interrupted: true, interruptedAtUs: 200 * S, timeoutMs: 500 });
    expect(decideDrain(s, 100.5 * S)).toEqual({ outcome: 'stopped', next: 'stop' });
  });
});

describe('drainTimeoutMs', () => {
  test('the configured timeout, or after an interrupt at most INTERRUPT_DRAIN_MS', () => {
    expect(drainTimeoutMs(30_000, false)).toBe(30_000);
    expect(drainTimeoutMs(30_000, true)).toBe(INTERRUPT_DRAIN_MS);
    expect(drainTimeoutMs(200, true)).toBe(200);
  });
});
