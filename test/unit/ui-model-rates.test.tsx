import { describe, expect, test } from 'vitest';
import type { QueueStats } from '../../src/backends/types.js';
import { computeRate, sumRates, UNKNOWN_RATE } from '../../src/ui/model/rates.js';
import { applyQueueStats, EMPTY_ROWS, totalsOf, distinctTenants } from '../../src/ui/model/rows.js';
import { INITIAL_MONITOR, refreshFailed, refreshSucceeded, errorText } from '../../src/ui/model/monitor.js';
import { SmqError } from '../../src/errors.js';
import { mapPgError, whileConnecting } from '../../src/backends/pgmq/errors.js';

const stats = (name: string, total: number, extra: Partial<QueueStats> = {}): QueueStats =>
  ({
    name,
    ready: total,
    inFlight: 0,
    delayed: 0,
    total,
    oldestAgeSec: total > 0 ? 10 : null,
    newestAgeSec: total > 0 ? 1 : null,
    estimated: false,
    ...extra,
  }) as QueueStats;

describe('computeRate', () => {
  test('no previous sample: unknown', () => {
    expect(computeRate(undefined, { at: 1000, total: 5, estimated: false })).toEqual(UNKNOWN_RATE);
  });

  test('with both counters: exact in and out', () => {
    const r = computeRate(
      { at: 0, total: 100, insertedTotal: 1000, removedTotal: 900, estimated: true },
      { at: 2000, total: 80, insertedTotal: 1040, removedTotal: 960, estimated: true },
    );
    // Counters are exact even when the depth is estimated.
    expect(r).toEqual({ inPerSec: 20, outPerSec: 30, approximate: false });
  });

  test('with an insert counter only: out from counter minus depth change', () => {
    const r = computeRate(
      { at: 0, total: 100, insertedTotal: 1000, estimated: false },
      { at: 2000, total: 80, insertedTotal: 1040, estimated: false },
    );
    // 40 in over 2 s; depth fell by 20, so 60 left.
    expect(r).toEqual({ inPerSec: 20, outPerSec: 30, approximate: false });
  });

  test('with a remove counter only: in from depth change plus removals', () => {
    const r = computeRate(
      { at: 0, total: 10, removedTotal: 5, estimated: false },
      { at: 1000, total: 12, removedTotal: 8, estimated: false },
    );
    expect(r).toEqual({ inPerSec: 5, outPerSec: 3, approximate: false });
  });

  test('a counter going backwards (queue recreated, stats reset) makes the interval unknown', () => {
    expect(
      computeRate(
        { at: 0, total: 100, insertedTotal: 1000, removedTotal: 900, estimated: false },
        { at: 1000, total: 3, insertedTotal: 3, removedTotal: 0, estimated: false },
      ),
    ).toEqual(UNKNOWN_RATE);
    expect(
      computeRate(
        { at: 0, total: 1, insertedTotal: 10, removedTotal: 9, estimated: false },
        { at: 1000, total: 1, insertedTotal: 12, removedTotal: 2, estimated: false },
      ),
    ).toEqual(UNKNOWN_RATE);
  });

  test('estimated depths can never make the derived side negative', () => {
    const r = computeRate(
      { at: 0, total: 1_000_000, insertedTotal: 5000, estimated: true },
      { at: 1000, total: 1_000_500, insertedTotal: 5100, estimated: true },
    );
    expect(r.inPerSec).toBe(100);
    expect(r.outPerSec).toBe(0);
    expect(r.approximate).toBe(true);
  });

  test('without a counter: net change split into in and out, approximate', () => {
    expect(computeRate({ at: 0, total: 10, estimated: false }, { at: 500, total: 20, estimated: false })).toEqual({
      inPerSec: 20,
      outPerSec: 0,
      approximate: true,
    });
    expect(computeRate({ at: 0, total: 20, estimated: false }, { at: 1000, total: 5, estimated: false })).toEqual({
      inPerSec: 0,
      outPerSec: 15,
      approximate: true,
    });
  });

  test('a clock that did not advance gives no rate (no division by zero)', () => {
    expect(computeRate({ at: 5, total: 1, estimated: false }, { at: 5, total: 9, estimated: false })).toEqual(UNKNOWN_RATE);
    expect(computeRate({ at: 9, total: 1, estimated: false }, { at: 5, total: 9, estimated: false })).toEqual(UNKNOWN_RATE);
  });

  test('sumRates adds the known ones', () => {
    expect(
      sumRates([{ inPerSec: 1, outPerSec: 2, approximate: false }, UNKNOWN_RATE, { inPerSec: 3, outPerSec: null, approximate: true }]),
    ).toEqual({ inPerSec: 4, outPerSec: 2, approximate: true });
    expect(sumRates([])).toEqual({ inPerSec: null, outPerSec: null, approximate: false });
  });
});

describe('rates across refreshes', () => {
  test('queues appearing and disappearing between refreshes', () => {
    const c = (ins: number, rem: number) => ({ insertedTotal: ins, removedTotal: rem });
    let s = applyQueueStats(EMPTY_ROWS, [stats('a', 10, c(10, 0)), stats('b', 5, c(5, 0))], 0);
    expect(s.rows.map((r) => r.rate)).toEqual([UNKNOWN_RATE, UNKNOWN_RATE]);

    // b is dropped, c appears.
    s = applyQueueStats(s, [stats('a', 4, c(20, 16)), stats('c', 7, c(7, 0))], 2000);
    expect(s.rows.map((r) => [r.name, r.rate.inPerSec, r.rate.outPerSec])).toEqual([
      ['a', 5, 8],
      ['c', null, null],
    ]);
    expect([...s.history.keys()].length).toBe(2);

    // b comes back under the same name: a fresh start, not a rate against its old life.
    s = applyQueueStats(s, [stats('a', 4, c(20, 16)), stats('b', 1, c(1, 0))], 4000);
    const b = s.rows.find((r) => r.name === 'b')!;
    expect(b.rate).toEqual(UNKNOWN_RATE);
    expect(b.depth).toEqual([{ at: 4000, depth: 1 }]);
  });

  test('same name in two tenants are two queues', () => {
    const s = applyQueueStats(EMPTY_ROWS, [stats('jobs', 1, { tenant: 1 }), stats('jobs', 2, { tenant: 2 })], 0);
    expect(new Set(s.rows.map((r) => r.key)).size).toBe(2);
    expect(distinctTenants(s.rows)).toBe(2);
  });

  test('pgmq-driver names are decoded into tenant and name', () => {
    const s = applyQueueStats(EMPTY_ROWS, [stats('tnt_1f_b3JkZXJz', 1), stats('plain', 1)], 0);
    expect(s.rows.map((r) => [r.name, r.tenant, r.rawName])).toEqual([
      ['orders', '31', 'tnt_1f_b3JkZXJz'],
      ['plain', undefined, 'plain'],
    ]);
  });

  test('totals', () => {
    const s = applyQueueStats(EMPTY_ROWS, [stats('a', 3), stats('b', 4, { estimated: true, inFlight: 1 })], 0);
    expect(totalsOf(s.rows)).toEqual({ queues: 2, ready: 7, inFlight: 1, delayed: 0, total: 7, estimated: true });
  });
});

describe('monitor: outages', () => {
  test('a failed refresh keeps the rows and records the outage; success clears it', () => {
    let m = refreshSucceeded(INITIAL_MONITOR, [stats('a', 1)], 1000);
    m = refreshFailed(m, new Error('connect ECONNREFUSED 127.0.0.1:5432'), 3000);
    m = refreshFailed(m, new Error('connect ECONNREFUSED 127.0.0.1:5432'), 5000);
    expect(m.rows.rows).toHaveLength(1);
    expect(m.outage).toEqual({ message: 'connect ECONNREFUSED 127.0.0.1:5432', since: 3000, failures: 2 });
    expect(m.refreshes).toBe(3);
    m = refreshSucceeded(m, [stats('a', 2)], 7000);
    expect(m.outage).toBeUndefined();
    expect(m.lastRefreshAt).toBe(7000);
  });

  test('error text keeps the server code and escapes control characters', () => {
    const pgErr = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    expect(errorText(pgErr)).toBe('terminating connection due to administrator command [57P01]');
    expect(errorText(new Error('bad\u001b[31mred'))).toBe('bad\\e[31mred');
    expect(errorText(new SmqError('connection', 'cannot connect', { hint: 'is it running?' }))).toBe('cannot connect: is it running?');
  });

  // The header names the store already: the banner's room goes to why (it is cut at the
  // terminal's edge), and a code the line says already is not said twice.
  test('the outage banner says why, not the location again, and the code once', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 1 });
    const e = mapPgError(whileConnecting(refused), { location: 'postgres://u:***@db.example:5432/app', secrets: [] });
    expect(errorText(e)).toBe(
      'cannot connect to postgres://u:***@db.example:5432/app: connection refused at 127.0.0.1 port 1 (ECONNREFUSED): check --url and that the server is running',
    );
    const m = refreshFailed(INITIAL_MONITOR, e, 1000);
    expect(m.outage?.message).toBe(
      'cannot connect: connection refused at 127.0.0.1 port 1 (ECONNREFUSED): check --url and that the server is running',
    );
    const lost = mapPgError(new Error('Connection terminated unexpectedly'), { location: 'postgres://u@h/db', secrets: [] });
    expect(refreshFailed(INITIAL_MONITOR, lost, 1000).outage?.message).toBe(
      'lost the connection: the server closed it (restarted, crashed or ended the session); check that it is running',
    );
  });
});
