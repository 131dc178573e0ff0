// What top keeps between refreshes stays bounded however long it runs: the one-minute
// depth history, the rate snapshot, queues that come and go. (A guard: these were bounded
// already when top's memory leak was found; the leak was React's development build and
// Ink's text caches, see test/integration/top-memory.test.ts.)
import { describe, expect, test } from 'vitest';
import type { QueueStats } from '../../src/backends/types.js';
import { HISTORY_WINDOW_MS } from '../../src/ui/model/history.js';
import { INITIAL_MONITOR, refreshFailed, refreshSucceeded, type MonitorState } from '../../src/ui/model/monitor.js';

const stats = (name: string, total: number): QueueStats => ({
  name,
  ready: total,
  inFlight: 0,
  delayed: 0,
  total,
  oldestAgeSec: null,
  newestAgeSec: null,
  estimated: false,
  insertedTotal: total,
  removedTotal: 0,
});

describe("top's state between refreshes", () => {
  test('an hour at 0.5 s on 200 queues, a tenth of them replaced every minute: bounded', () => {
    const intervalMs = 500;
    const perWindow = HISTORY_WINDOW_MS / intervalMs;
    let state: MonitorState = INITIAL_MONITOR;
    let at = 1_000_000;
    for (let i = 0; i < 3600 * 2; i++) {
      at += intervalMs;
      const generation = Math.floor(i / 120); // a new set of 20 queues every minute
      const names = [
        ...Array.from({ length: 180 }, (_, k) => `stable_${k}`),
        ...Array.from({ length: 20 }, (_, k) => `churn_${generation}_${k}`),
      ];
      state = refreshSucceeded(
        state,
        names.map((n, k) => stats(n, (i * 7 + k) % 1000)),
        at,
      );
      // Now and then the database is away for a refresh.
      if (i % 500 === 0) state = refreshFailed(state, new Error('connection lost'), at + 1);
    }
    expect(state.rows.rows).toHaveLength(200);
    expect(state.rows.history.size).toBe(200);
    for (const samples of state.rows.history.values()) expect(samples.length).toBeLessThanOrEqual(perWindow + 1);
    expect(state.rows.snapshot?.samples.size).toBe(200);
    for (const row of state.rows.rows) expect(row.depth.length).toBeLessThanOrEqual(perWindow + 1);
  });

  test('a clock that jumps back does not keep samples from the "future"', () => {
    let state: MonitorState = INITIAL_MONITOR;
    for (let i = 0; i < 100; i++) state = refreshSucceeded(state, [stats('q', i)], 10_000_000 + i * 500);
    // The clock goes back an hour; the history starts again from there.
    for (let i = 0; i < 10; i++) state = refreshSucceeded(state, [stats('q', i)], 10_000_000 - 3_600_000 + i * 500);
    expect(state.rows.history.get(state.rows.rows[0]!.key)!.length).toBeLessThanOrEqual(10);
  });
});
