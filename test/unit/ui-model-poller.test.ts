// The poller behind both loops of top, without React: the list's policy (one load at a
// time, pause stops everything) and the page's (last ask wins, retries while paused).
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { LIST_POLICY, PAGE_POLICY, Poller, type PollPolicy, type PollResult } from '../../src/ui/model/poller.js';

interface Pending {
  readonly resolve: (v: number) => void;
  readonly reject: (e: unknown) => void;
}

/** A poller whose loads wait until the test answers them. */
function harness(policy: PollPolicy, intervalMs = 1000, paused = false) {
  const pending: Pending[] = [];
  const results: PollResult<number>[] = [];
  let starts = 0;
  const poller = new Poller<number>({
    load: () =>
      new Promise<number>((resolve, reject) => {
        pending.push({ resolve, reject });
      }),
    intervalMs,
    paused,
    policy,
    onStart: () => starts++,
    onResult: (r) => results.push(r),
  });
  const flush = () => vi.advanceTimersByTimeAsync(0);
  return {
    poller,
    pending,
    results,
    starts: () => starts,
    async answer(i: number, v: number) {
      pending[i]!.resolve(v);
      await flush();
    },
    async fail(i: number) {
      pending[i]!.reject(new Error('down'));
      await flush();
    },
    advance: (ms: number) => vi.advanceTimersByTimeAsync(ms),
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the list policy', () => {
  test('the next load starts an interval after the previous one finished, not before', async () => {
    const h = harness(LIST_POLICY);
    h.poller.pollNow();
    await h.advance(5000); // a slow load: nothing piles up
    expect(h.starts()).toBe(1);
    await h.answer(0, 1);
    await h.advance(999);
    expect(h.starts()).toBe(1);
    await h.advance(1);
    expect(h.starts()).toBe(2);
    h.poller.stop();
  });

  test('an ask while a load runs is dropped; the running one counts', async () => {
    const h = harness(LIST_POLICY);
    h.poller.pollNow();
    h.poller.pollNow();
    expect(h.starts()).toBe(1);
    await h.answer(0, 7);
    expect(h.results).toEqual([{ ok: true, value: 7 }]);
    h.poller.stop();
  });

  test('failures are retried with backoff (1 s, 2 s, ...) and counted; a success resets', async () => {
    const h = harness(LIST_POLICY, 5000);
    h.poller.pollNow();
    await h.fail(0);
    expect(h.poller.failures).toBe(1);
    await h.advance(1000);
    expect(h.starts()).toBe(2);
    await h.fail(1);
    await h.advance(1999);
    expect(h.starts()).toBe(2);
    await h.advance(1);
    expect(h.starts()).toBe(3);
    await h.answer(2, 1);
    expect(h.poller.failures).toBe(0);
    h.poller.stop();
  });

  test('pausing stops the loop, retries included; resuming loads at once', async () => {
    const h = harness(LIST_POLICY);
    h.poller.pollNow();
    await h.fail(0);
    h.poller.setPaused(true);
    await h.advance(60_000);
    expect(h.starts()).toBe(1);
    h.poller.setPaused(false);
    expect(h.starts()).toBe(2);
    h.poller.stop();
  });

  test('a new interval counts from now', async () => {
    const h = harness(LIST_POLICY, 10_000);
    h.poller.pollNow();
    await h.answer(0, 1);
    await h.advance(9000);
    h.poller.setIntervalMs(2000);
    await h.advance(1999);
    expect(h.starts()).toBe(1);
    await h.advance(1);
    expect(h.starts()).toBe(2);
    h.poller.stop();
  });

  test('after stop, nothing loads and a late result is dropped', async () => {
    const h = harness(LIST_POLICY);
    h.poller.pollNow();
    h.poller.stop();
    await h.answer(0, 1);
    await h.advance(10_000);
    h.poller.pollNow();
    expect(h.results).toEqual([]);
    expect(h.starts()).toBe(1);
  });
});

describe('the page policy', () => {
  test("a new ask restarts: only the last load's result counts", async () => {
    const h = harness(PAGE_POLICY);
    h.poller.pollNow();
    h.poller.pollNow();
    expect(h.starts()).toBe(2);
    await h.answer(0, 1);
    expect(h.results).toEqual([]);
    await h.answer(1, 2);
    expect(h.results).toEqual([{ ok: true, value: 2 }]);
    h.poller.stop();
  });

  test('a failed load is retried even while paused; a loaded one is not reloaded while paused', async () => {
    const h = harness(PAGE_POLICY, 2000, true);
    h.poller.pollNow(); // the first load happens paused or not
    await h.fail(0);
    await h.advance(1000);
    expect(h.starts()).toBe(2);
    await h.answer(1, 5);
    await h.advance(60_000);
    expect(h.starts()).toBe(2);
    h.poller.setPaused(false);
    expect(h.starts()).toBe(3);
    h.poller.stop();
  });

  test('a new interval applies from the next wait on', async () => {
    const h = harness(PAGE_POLICY, 10_000);
    h.poller.pollNow();
    await h.answer(0, 1);
    h.poller.setIntervalMs(1000);
    await h.advance(9999);
    expect(h.starts()).toBe(1);
    await h.advance(1);
    expect(h.starts()).toBe(2);
    await h.answer(1, 1);
    await h.advance(1000);
    expect(h.starts()).toBe(3);
    h.poller.stop();
  });

  test('a load that throws at once counts as a failed load', async () => {
    const results: PollResult<number>[] = [];
    const p = new Poller<number>({
      load: () => {
        throw new Error('bad');
      },
      intervalMs: 1000,
      paused: false,
      policy: PAGE_POLICY,
      onResult: (r) => results.push(r),
    });
    p.pollNow();
    await vi.advanceTimersByTimeAsync(0);
    expect(results[0]?.ok).toBe(false);
    expect(p.failures).toBe(1);
    p.stop();
  });
});
