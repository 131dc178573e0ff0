// The live view's judgements: the backlog's trend and which worker lags (live-facts.ts).
import { describe, expect, test } from 'vitest';
import { backlogTrend, workerRates, type WorkerActivity } from '../../src/tester/live-facts.js';

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
