// smq tester end to end: real worker threads (from dist/), a real Postgres and real
// SQLite files. Safe strategies must come out clean and reconcile with the database; the
// naive ones, deleted messages and foreign messages must be caught; failed sends are
// uncertain, not lost.
import { afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Target } from '../../src/backends/target.js';
import { ensureBuilt } from '../helpers/run-cli.js';
import { baseConfig, loadBackends, loadTester, tempSqlite, testerStores } from '../helpers/tester-dist.js';

beforeAll(() => ensureBuilt());

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const stores = testerStores();

describe.each(stores)('tester on $name', (store) => {
  test('safe dequeue: clean, and the counts reconcile with the database', async () => {
    const { TesterRun } = await loadTester();
    const { openBackend } = await loadBackends();
    const target = store.target();
    const queue = `tt_safe_${Date.now().toString(36)}`;
    const run = new TesterRun(baseConfig(target, { createSqlite: store.create, queue, keep: true, receivers: 3 }));
    const phases: string[] = [];
    run.on('phase', (p) => phases.push(p));
    const report = await run.run();

    expect(report.verdict).toBe('clean');
    expect(report.counts).toMatchObject({
      sent: 600,
      received: 600,
      receivedUnique: 600,
      acknowledged: 600,
      ok: 600,
      lost: 0,
      doubleDequeued: 0,
      redelivered: 0,
      resurrected: 0,
      unexpected: 0,
      uncertain: 0,
    });
    expect(report.drain.complete).toBe(true);
    expect(phases).toEqual(['sending', 'draining', 'stopping', 'done']);
    expect(report.latency.endToEnd.count).toBe(600);
    expect(report.latency.send.count).toBe(120); // 2 senders x 300 messages / batch 5
    expect(report.throughput.sendPerSec).toBeGreaterThan(0);
    expect(report.series.reduce((a, p) => a + p.sent, 0)).toBe(600);
    if (store.name === 'pgmq') expect(report.environment['isolation']).toBe('read committed');

    // The database agrees: nothing left in the queue, every sent message deleted.
    const backend = await openBackend(target, {});
    try {
      const stats = await backend.queueStats(queue);
      expect(stats.total).toBe(0);
      expect(report.queue.messagesAfter).toBe(0);
      expect(report.counts.acknowledged).toBe(report.counts.sent);
    } finally {
      await backend.dropQueue(queue);
      await backend.close();
    }
  });

  test('naive dequeue: double-dequeues are found', async () => {
    const { TesterRun } = await loadTester();
    const run = new TesterRun(
      baseConfig(store.target(), {
        createSqlite: store.create,
        senders: 2,
        receivers: 4,
        messagesPerSender: 100,
        batch: 10,
        dequeue: 'naive',
        // Widen the window between the select and the update, and hold each batch before
        // acknowledging it for longer than that window: a receiver that chose the same
        // messages then updates them while the first still holds them. Without the hold the
        // first deletes its batch right after its update, and only two updates within about a
        // millisecond of each other show a double dequeue (30 to 60 of 800 messages here,
        // and once none on a loaded CI host).
        naivePauseMs: 20,
        ackDelayMs: 50,
        ...(store.name === 'pgmq' ? { isolation: 'read-committed' as const } : {}),
      }),
    );
    const report = await run.run();
    expect(report.counts.doubleDequeued).toBeGreaterThan(0);
    expect(report.examples.doubleDequeued.length).toBeGreaterThan(0);
    expect(report.examples.doubleDequeued.length).toBeLessThanOrEqual(10);
    expect(report.verdict).toBe('violations');
    expect(report.counts.lost).toBe(0);
    if (store.name === 'pgmq') expect(report.environment['isolation']).toBe('read committed');
  });

  test('messages deleted behind the tester’s back are lost', async () => {
    const { TesterRun } = await loadTester();
    const run = new TesterRun(
      baseConfig(store.target(), {
        createSqlite: store.create,
        receivers: 1,
        drainTimeoutMs: 1500,
        faults: { deleteAfterSendEvery: 6 },
      }),
    );
    const report = await run.run();
    expect(report.counts.faultDeleted).toBeGreaterThan(0);
    expect(report.counts.lost).toBeGreaterThan(0);
    // A receiver may win the race for a few of them; none is lost that was not deleted.
    expect(report.counts.lost).toBeLessThanOrEqual(report.counts.faultDeleted);
    expect(Number(report.counts.lost) + report.counts.ok).toBe(600);
    expect(report.examples.lost.length).toBeGreaterThan(0);
    expect(report.drain.timedOut).toBe(true);
    expect(report.verdict).toBe('violations');
  });

  test('failed sends are uncertain, not lost — whether or not they reached the queue', async () => {
    const { TesterRun } = await loadTester();
    const run = new TesterRun(
      baseConfig(store.target(), {
        createSqlite: store.create,
        faults: { failSendBeforeEvery: 7, failSendAfterEvery: 5 },
      }),
    );
    const report = await run.run();
    expect(report.counts.sendFailed).toBeGreaterThan(0);
    expect(report.counts.uncertain).toBe(report.counts.sendFailed);
    expect(report.counts.lost).toBe(0);
    expect(report.counts.unexpected).toBe(0);
    expect(report.counts.ok).toBe(report.counts.sent);
    expect(report.verdict).toBe('clean');
  });

  test('a foreign message carrying the run id is unexpected; other runs’ messages are only foreign, and stay', async () => {
    const { TesterRun } = await loadTester();
    const { openBackend } = await loadBackends();
    const target = store.target();
    const queue = `tt_foreign_${Date.now().toString(36)}`;
    const runId = `run${Date.now().toString(36)}`;
    const backend = await openBackend(target, { create: store.create });
    cleanups.push(async () => {
      await backend.dropQueue(queue).catch(() => undefined);
      await backend.close();
    });
    await backend.createQueue(queue);
    await backend.sendBatch(queue, [
      { body: JSON.stringify({ r: runId, s: 0, q: 999_999, t: 0 }) }, // past --messages
      { body: JSON.stringify({ r: runId, s: 9, q: 0, t: 0 }) }, // no such sender
      { body: JSON.stringify({ r: runId, s: 'x', q: 'y' }) }, // unreadable
      { body: JSON.stringify({ r: 'another-run', s: 0, q: 0, t: 0 }) },
    ]);
    const run = new TesterRun(baseConfig(target, { queue, runId, keep: true, messagesPerSender: 50, allowForeign: true }));
    const report = await run.run();
    expect(report.counts.unexpected).toBe(3);
    expect(report.counts.foreign).toBe(1);
    expect(report.counts.ok).toBe(100);
    expect(report.examples.unexpected).toHaveLength(3);
    expect(report.verdict).toBe('violations');
    // Those carrying the run id were deleted; the other run's message is still there.
    const left = await backend.peek(queue, { limit: 10, state: 'all' });
    expect(left.map((m) => JSON.parse(m.body).r)).toEqual(['another-run']);
  });
});

test('--receivers 0 only sends; --senders 0 --run-id drains that run’s messages and no other', async () => {
  const { TesterRun } = await loadTester();
  const { openBackend } = await loadBackends();
  const t = tempSqlite();
  cleanups.push(t.cleanup);
  const target: Target = { kind: 'sqlite', path: t.path };
  const queue = 'fill_then_drain';
  const runId = 'fill-run-1';
  const sendOnly = await new TesterRun(
    baseConfig(target, { createSqlite: true, queue, runId, receivers: 0, messagesPerSender: 2000 }),
  ).run();
  expect(sendOnly.counts.sent).toBe(4000);
  expect(sendOnly.counts.lost).toBe(0);
  expect(sendOnly.counts.notDrained).toBe(4000);
  expect(sendOnly.drain.skipped).toBe(true);
  expect(sendOnly.queue.messagesAfter).toBe(4000);
  // Someone else's message in the same queue: a drain never deletes it.
  const other = await openBackend(target, {});
  await other.send(queue, { body: JSON.stringify({ order: 1 }) });
  await other.close();

  // One message per receive: the drain takes many of the main thread's ticks, and must last
  // until the queue is empty, not end because no send of its own is awaited.
  const drain = await new TesterRun(
    baseConfig(target, { queue, runId, senders: 0, receivers: 2, batch: 1, messagesPerSender: undefined, drainTimeoutMs: 500 }),
  ).run();
  // The earlier run's messages are judged by their deliveries; the other one is handed back.
  // Loss and unexpected messages cannot be judged without that run's sends: not judged, and
  // the verdict says so (incomplete), never clean.
  expect(drain.counts).toMatchObject({
    received: 4000,
    receivedUnique: 4000,
    acknowledged: 4000,
    ok: 4000,
    lost: null,
    unexpected: null,
    foreign: 1,
  });
  expect(drain.notJudged.map((n) => n.class)).toEqual(['lost', 'unexpected']);
  expect(drain.drain.complete).toBe(true);
  expect(drain.verdict).toBe('incomplete');
  const backend = await openBackend(target, {});
  expect((await backend.queueStats(queue)).total).toBe(1);
  await backend.close();
});

test('--rate: latency from the intended send time, service time beside it, and an HdrHistogram log', async () => {
  const { TesterRun } = await loadTester();
  const t = tempSqlite();
  cleanups.push(t.cleanup);
  const hdrLog = `${t.path}.hlog`;
  const report = await new TesterRun(
    baseConfig(
      { kind: 'sqlite', path: t.path },
      { createSqlite: true, batch: 1, messagesPerSender: 200, ratePerSec: 400, hdrLogPath: hdrLog },
    ),
  ).run();
  expect(report.latencyFrom).toBe('intended');
  expect(report.latency.endToEndService?.count).toBe(400);
  expect(report.latency.sendService?.count).toBe(400);
  // Measured from the intended time, a latency is never shorter than the service time.
  expect(report.latency.send.p50).toBeGreaterThanOrEqual(report.latency.sendService!.p50 ?? NaN);
  // 400 msg/s offered for 400 messages: about one second of sending.
  expect(report.throughput.sendPerSec).toBeGreaterThan(250);
  expect(report.throughput.sendPerSec).toBeLessThan(500);
  const { readFileSync } = await import('node:fs');
  const log = readFileSync(hdrLog, 'utf8');
  expect(log).toContain('"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"');
  expect(log.split('\n').filter((l) => /^\d+\.\d+,1\.000,/.test(l)).length).toBeGreaterThan(0);
  expect(report.hdrLog).toBe(hdrLog); // written whole, so the report names it
});

test('--threads: several senders and receivers per thread, each with its own connection, same verdicts', async () => {
  const { TesterRun } = await loadTester();
  const target: Target = { kind: 'pgmq', url: inject('pgUrl') };
  const safe = await new TesterRun(baseConfig(target, { senders: 4, receivers: 4, threads: 2, messagesPerSender: 200 })).run();
  expect(safe.verdict).toBe('clean');
  expect(safe.counts).toMatchObject({ sent: 800, acknowledged: 800, ok: 800 });
  expect(safe.tester.workers.map((w) => [w.role, w.indices])).toEqual([
    ['sender', [0, 2]],
    ['sender', [1, 3]],
    ['receiver', [0, 2]],
    ['receiver', [1, 3]],
  ]);
  const naive = await new TesterRun(
    baseConfig(target, { senders: 2, receivers: 4, threads: 1, messagesPerSender: 300, batch: 10, dequeue: 'naive', naivePauseMs: 20 }),
  ).run();
  expect(naive.counts.doubleDequeued).toBeGreaterThan(0);
  expect(naive.verdict).toBe('violations');
});
