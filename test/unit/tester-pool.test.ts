// The pool's plan and each worker's setup, without threads: which thread runs which senders
// and receivers, and what every worker is told. And the main thread's calls after the run:
// each with a deadline, retried over a lost connection (retry.ts) only while the run may wait.
import os from 'node:os';
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { TesterConfig } from '../../src/tester/config.js';
import { planHosts, planThreads, threadCounts, threadsPerRole, workerSetup, type RunSetup } from '../../src/tester/pool.js';
import { SmqError } from '../../src/errors.js';
import { afterRunCalls } from '../../src/tester/verify.js';

const base: TesterConfig = {
  target: { kind: 'pgmq', url: 'postgres://x@localhost/db' },
  senders: 3,
  receivers: 2,
  messagesPerSender: 10,
  sizeBytes: 64,
  batch: 1,
  vtSec: 5,
  ack: 'delete',
  dequeue: 'safe',
  ratePerSec: 0,
  warmupMs: 0,
  keep: false,
  drainTimeoutMs: 5000,
};

afterEach(() => {
  vi.useRealTimers();
});

describe('planThreads', () => {
  test("--threads: senders and receivers dealt round-robin over each role's threads", () => {
    expect(planThreads({ ...base, senders: 5, receivers: 2, threads: 2 })).toEqual([
      ['sender', [0, 2, 4], 0],
      ['sender', [1, 3], 1],
      ['receiver', [0], 0],
      ['receiver', [1], 1],
    ]);
    expect(threadCounts({ ...base, senders: 5, receivers: 2, threads: 2 })).toEqual({ senders: 2, receivers: 2, shared: 0 });
  });

  test('SQLite: one thread per sender and per receiver (its calls block their thread)', () => {
    const sqlite: TesterConfig = { ...base, target: { kind: 'sqlite', path: '/tmp/x.db' } };
    expect(threadsPerRole(sqlite, 7)).toBe(7);
    expect(planThreads(sqlite).map(([role, indices]) => `${role}:${indices.join(',')}`)).toEqual([
      'sender:0',
      'sender:1',
      'sender:2',
      'receiver:0',
      'receiver:1',
    ]);
  });

  test('Postgres by default: half the cores, at least one, never more threads than clients', () => {
    const half = Math.max(1, Math.floor(os.availableParallelism() / 2));
    expect(threadsPerRole(base, 100)).toBe(half);
    expect(threadCounts({ ...base, senders: 100, receivers: 0 })).toEqual({ senders: Math.min(100, half), receivers: 0, shared: 0 });
    expect(planThreads({ ...base, senders: 0, receivers: 0 })).toEqual([]);
  });
});

describe('planHosts', () => {
  const pg = (c: Partial<TesterConfig>) => ({ ...base, ...c });
  const hostsOf = (c: TesterConfig) => planHosts(c, planThreads(c));

  test('Postgres by default: the k-th sender thread and the k-th receiver thread are one thread', () => {
    // 3 senders, 2 receivers, half the cores per role: whatever this host has, the pairs share.
    const c = pg({ senders: 3, receivers: 2 });
    const threads = planThreads(c);
    const hosts = planHosts(c, threads);
    threads.forEach(([role, , roleSlot], i) => {
      if (role === 'receiver' && roleSlot < threadCounts(c).senders) expect(hosts[i]).toBe(roleSlot);
    });
    expect(new Set(hosts).size).toBe(Math.max(threadCounts(c).senders, threadCounts(c).receivers));
    const { senders, receivers, shared } = threadCounts(c);
    expect(shared).toBe(Math.min(senders, receivers));
    expect(new Set(hosts).size).toBe(senders + receivers - shared);
    expect(threadCounts({ ...c, ratePerSec: 100 }).shared).toBe(0);
  });

  test('more receiver threads than sender threads: the rest get threads of their own', () => {
    const c = pg({ senders: 2, receivers: 5, threads: undefined });
    const threads = planThreads({ ...c, threads: 2 });
    // As planned with 2 threads per role but no --threads given: pairs share.
    expect(planHosts(c, threads)).toEqual([0, 1, 0, 1]);
    const uneven = [
      ['sender', [0, 1], 0],
      ['receiver', [0, 2, 4], 0],
      ['receiver', [1, 3], 1],
    ] as const;
    expect(
      planHosts(
        c,
        uneven.map(([r, i, s]) => [r, [...i], s]),
      ),
    ).toEqual([0, 0, 1]);
  });

  test('send-only, receive-only, --threads, --rate and SQLite: every planned thread is its own', () => {
    expect(hostsOf(pg({ senders: 1, receivers: 1, ratePerSec: 200 }))).toEqual([0, 1]);
    expect(hostsOf(pg({ senders: 4, receivers: 0 }))).toEqual(planThreads(pg({ senders: 4, receivers: 0 })).map((_, i) => i));
    expect(hostsOf(pg({ senders: 0, receivers: 3, threads: 3 }))).toEqual([0, 1, 2]);
    expect(hostsOf(pg({ senders: 2, receivers: 2, threads: 1 }))).toEqual([0, 1]);
    expect(hostsOf({ ...base, target: { kind: 'sqlite', path: '/tmp/x.db' }, senders: 2, receivers: 2 })).toEqual([0, 1, 2, 3]);
  });
});

describe('workerSetup', () => {
  const run: RunSetup = {
    config: { ...base, ratePerSec: 300, maxBacklog: 50 },
    open: { connectTimeoutMs: 5000, poolSize: 1 },
    queue: 'q',
    runId: 'r1',
    receiveByRunId: true,
    backlogCells: new SharedArrayBuffer(16),
    backlogStuckMs: 5000,
    outageTimeoutMs: 30_000,
    writeOutage: new SharedArrayBuffer(8),
  };

  test("a worker gets the run's open options on a dedicated connection, its share of the rate, the backlog cells", () => {
    const s = workerSetup('sender', [1], run);
    expect(s.open).toEqual({ connectTimeoutMs: 5000, poolSize: 1, dedicated: true });
    expect(s.ratePerSec).toBe(100);
    expect(s.backlog).toEqual({ cells: run.backlogCells, max: 50, stuckMs: 5000, oneThread: false });
    expect(workerSetup('sender', [1], run, true, true).backlog?.oneThread).toBe(true);
    expect(s).toMatchObject({
      role: 'sender',
      indices: [1],
      queue: 'q',
      runId: 'r1',
      receiveByRunId: true,
      messages: 10,
      naivePauseMs: 0,
      outageTimeoutMs: 30_000,
      faults: {},
    });
  });

  test('no rate, no backlog bound', () => {
    const s = workerSetup('receiver', [0], { ...run, config: base });
    expect(s.ratePerSec).toBe(0);
    expect(s.backlog).toBeUndefined();
  });
});

describe('after the run', () => {
  const lost = () => new SmqError('connection', 'connection lost');

  test('after a failure or Ctrl-C every call gets a short deadline; a failed run does not retry', async () => {
    expect(afterRunCalls({ failed: false, interrupted: false, outageTimeoutMs: 30_000 }).callMs).toBe(10_000);
    expect(afterRunCalls({ failed: false, interrupted: true, outageTimeoutMs: 30_000 }).callMs).toBe(1000);
    const failed = afterRunCalls({ failed: true, interrupted: false, outageTimeoutMs: 30_000 });
    expect(failed.callMs).toBe(1000);
    let tries = 0;
    await expect(
      failed.call('reading the queue', () => {
        tries += 1;
        return Promise.reject(lost());
      }),
    ).rejects.toThrow('connection lost');
    expect(tries).toBe(1);
  });

  test('a call that never answers fails after its deadline, naming what got no answer', async () => {
    vi.useFakeTimers();
    const calls = afterRunCalls({ failed: true, interrupted: false, outageTimeoutMs: 30_000 });
    const settled = expect(calls.call('dropping the queue', () => new Promise<never>(() => undefined))).rejects.toThrow(
      'dropping the queue: no answer from the database for 1.0 s',
    );
    await vi.advanceTimersByTimeAsync(1000);
    await settled;
  });
});
