// --max-backlog end to end: real worker threads (dist/), a real Postgres and real SQLite
// files. The queue's own depth, read from another connection while the run goes on, stays
// within the bound; without the bound the same run piles up (so the probe can see a breach).
import { beforeAll, describe, expect, test } from 'vitest';
import type { TesterConfig } from '../../src/tester/index.js';
import { ensureBuilt } from '../helpers/run-cli.js';
import { baseConfig, loadBackends, loadTester, testerStores, type TesterStore } from '../helpers/tester-dist.js';

beforeAll(() => ensureBuilt());

const stores = testerStores();
type Store = TesterStore;

/** Runs the tester on a queue of its own while another connection samples the queue's depth. */
async function runWatched(store: Store, patch: Partial<TesterConfig>) {
  const { TesterRun } = await loadTester();
  const { openBackend } = await loadBackends();
  const target = store.target();
  const queue = `tt_backlog_${Date.now().toString(36)}`;
  const run = new TesterRun(baseConfig(target, { createSqlite: store.create, queue, keep: true, ...patch }));
  let sending = false;
  run.on('phase', (p) => (sending = p === 'sending'));
  let deepest = 0;
  let samples = 0;
  let watcher: Awaited<ReturnType<typeof openBackend>> | undefined;
  let done = false;
  const watching = (async () => {
    for (;;) {
      await new Promise((r) => setTimeout(r, 5));
      if (done) return;
      if (!sending) continue;
      try {
        watcher ??= await openBackend(target, {});
        const total = (await watcher.queueStats(queue)).total;
        deepest = Math.max(deepest, total);
        samples += 1;
      } catch {
        // the queue or the file is not there yet
      }
    }
  })();
  const report = await run.run();
  done = true;
  await watching;
  const backend = watcher ?? (await openBackend(target, {}));
  await backend.dropQueue(queue).catch(() => undefined);
  await backend.close();
  return { report, deepest, samples };
}

describe.each(stores)('--max-backlog on $name', (store) => {
  // 4 senders against 1 receiver: unbounded, the senders outrun the receiver.
  const load = { senders: 4, receivers: 1, messagesPerSender: 400, batch: 1 } satisfies Partial<TesterConfig>;

  test('the queue never holds more than the bound (plus one batch per receiver being acknowledged)', async () => {
    const max = 8;
    const { report, deepest, samples } = await runWatched(store, { ...load, maxBacklog: max });
    expect(report.verdict).toBe('clean');
    expect(report.counts).toMatchObject({ sent: 1600, received: 1600, acknowledged: 1600, ok: 1600, lost: 0, doubleDequeued: 0 });
    expect(samples).toBeGreaterThan(20);
    expect(deepest).toBeGreaterThan(0);
    expect(deepest).toBeLessThanOrEqual(max + load.receivers * load.batch);
    expect(report.backlog).toMatchObject({ max, stuck: 0 });
    expect(report.backlog!.senderWaitShare).toBeGreaterThan(0);
    expect(report.config['maxBacklog']).toBe(max);
    expect(report.tester.warnings.join('\n')).not.toMatch(/max-backlog/);
  }, 60_000);

  test('without the bound, the same run piles up past it (the probe sees a breach)', async () => {
    const { report, deepest } = await runWatched(store, load);
    expect(report.verdict).toBe('clean');
    expect(report.backlog).toBeNull();
    expect(deepest).toBeGreaterThan(8 + load.receivers * load.batch);
  }, 60_000);
});

describe.each(stores)('--max-backlog with messages that never come back, on $name', (store) => {
  test('a waiting sender goes on after the drain timeout with nothing received, and the report says so', async () => {
    const { TesterRun } = await loadTester();
    const started = Date.now();
    // Every receive's answer is lost: those messages stay claimed (vt 60 s), never received.
    const report = await new TesterRun(
      baseConfig(store.target(), {
        createSqlite: store.create,
        senders: 1,
        receivers: 1,
        messagesPerSender: 6,
        batch: 1,
        vtSec: 60,
        maxBacklog: 2,
        drainTimeoutMs: 1000,
        faults: { loseReceiveAnswerEvery: 1 },
      }),
    ).run();
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(report.counts.sent).toBe(6);
    expect(report.backlog!.stuck).toBeGreaterThanOrEqual(2);
    expect(report.tester.warnings.join('\n')).toMatch(/waiting under --max-backlog went on anyway: nothing was received for 1 s/);
  }, 60_000);
});
