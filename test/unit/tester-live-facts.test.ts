// The live view's judgements: the backlog's trend and which worker lags (live-facts.ts).
import { describe, expect, test } from 'vitest';
import { backlogTrend, storeStalled, workerRates, type WorkerActivity } from '../../src/tester/live-facts.js';
import { CallWatch } from '../../src/tester/calls.js';

const sec = (sent: number, received: number) => ({ sent, received });

describe('backlog trend', () => {
  test('growing when more is sent than received over the last seconds, shrinking the other way', () => {
    expect(backlogTrend([sec(1000, 1000), sec(3000, 1000), sec(3000, 1100), sec(3000, 900)])).toBe('growing');
    expect(backlogTrend([sec(3000, 1000), sec(0, 2000), sec(0, 2000), sec(0, 1900)])).toBe('shrinking');
  });
  test('steady within 5% of what moved, and with nothing moving', () => {
    expect(backlogTrend([sec(1000, 990), sec(1000, 1010), sec(1000, 995)])).toBe('steady');
    expect(backlogTrend([])).toBe('steady');
    expect(backlogTrend([sec(0, 0), sec(0, 0)])).toBe('steady');
    // An early surge older than the window does not count.
    expect(backlogTrend([sec(9000, 0), sec(500, 500), sec(500, 500), sec(500, 500)])).toBe('steady');
  });
});

const w = (role: 'sender' | 'receiver', i: number, recent: number[], silentMs = 100): WorkerActivity => ({
  role,
  indices: [i],
  recent,
  silentMs,
});

describe('worker rates', () => {
  test('a receiver at 0/s for 2 s while the others receive lags; its peers do not', () => {
    const r = workerRates([w('receiver', 0, [1200, 1180, 1210]), w('receiver', 1, [1150, 1250, 1190]), w('receiver', 2, [1100, 0, 0])]);
    expect(r.map((x) => x.lagging)).toEqual([false, false, true]);
    expect(r[2]).toMatchObject({ perSec: 0, othersPerSec: (1195 + 1220) / 2 });
  });
  test('one slow second is not lagging yet (the rate is over 2 s)', () => {
    const r = workerRates([w('receiver', 0, [1000, 1000]), w('receiver', 1, [1000, 0])]);
    expect(r[1]!.lagging).toBe(false);
  });
  test('a worker silent for 2 s lags whatever it did before; senders are compared with senders only', () => {
    const r = workerRates([w('sender', 0, [500, 500]), w('receiver', 0, [10, 10]), w('receiver', 1, [1000, 1000], 2500)]);
    expect(r.map((x) => x.lagging)).toEqual([false, false, true]);
    // The silent one is no peer: the other receiver is not judged against it.
    expect(r[1]!.othersPerSec).toBeUndefined();
  });
  test('idle receivers of an empty queue, or a lone worker, do not lag', () => {
    expect(workerRates([w('receiver', 0, [0, 0]), w('receiver', 1, [3, 2])]).some((x) => x.lagging)).toBe(false);
    expect(workerRates([w('receiver', 0, [0, 0])])[0]!.lagging).toBe(false);
  });
});

describe('a stalled store: threads that report, with calls nobody answers', () => {
  const t = (calls: number, quietMs: number, silentMs = 50) => ({ calls, quietMs, silentMs });
  test('every running thread waiting 2 s or more: stalled, since the most recent answer, all their calls', () => {
    expect(storeStalled([t(4, 2500), t(4, 3100)])).toEqual({ quietMs: 2550, calls: 8 });
  });
  test('one thread still answered, or waits for nothing (paced, idle, --listen): not stalled', () => {
    expect(storeStalled([t(4, 2500), t(4, 300)])).toBeUndefined();
    expect(storeStalled([t(4, 2500), t(0, 9000)])).toBeUndefined();
    expect(storeStalled([])).toBeUndefined();
  });
  test('threads that stopped reporting are the other line; with one still reporting calls, the store is stalled', () => {
    expect(storeStalled([t(1, 0, 3000), t(1, 0, 3000)])).toBeUndefined();
    expect(storeStalled([t(1, 0, 3000), t(2, 2400)])).toEqual({ quietMs: 2450, calls: 2 });
  });
  test('--poll reads wait by design: the limit grows by the poll', () => {
    expect(storeStalled([t(4, 4000)], 5000)).toBeUndefined();
    expect(storeStalled([t(4, 7500)], 5000)).toEqual({ quietMs: 7550, calls: 4 });
  });
  test('the watch: quiet counts from the last answer, and not while nothing is in flight', async () => {
    let now = 0;
    const watch = new CallWatch(() => now);
    expect(watch.waiting()).toEqual({ calls: 0, quietMs: 0 });
    let answer!: (v: number) => void;
    const call = watch.track(new Promise<number>((r) => (answer = r)));
    now = 100;
    // Counted from the last look with nothing in flight (reports are 100 ms apart).
    expect(watch.waiting()).toEqual({ calls: 1, quietMs: 100 });
    now = 2600;
    expect(watch.waiting()).toEqual({ calls: 1, quietMs: 2600 });
    answer(1);
    await call;
    void watch.track(new Promise(() => undefined));
    now = 2700;
    expect(watch.waiting()).toEqual({ calls: 1, quietMs: 0 });
    now = 3000;
    expect(watch.waiting()).toEqual({ calls: 1, quietMs: 300 });
  });
});
