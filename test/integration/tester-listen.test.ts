// smq tester --listen: real worker threads (dist/) on smq's compat schema and real pgmq 1.13.0
// (SMQ_TEST_PGMQ_DIR). At a low rate a run is clean, its receivers are woken by notifications
// and its end-to-end p50 is far below the fallback; with a throttle that lets only the first
// insert notify, the fallback still brings every message. A SmoothMQ file refuses --listen.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import type { TesterConfig } from '../../src/tester/index.js';
import { clonePgmq } from '../helpers/real-pgmq.js';
import { ensureBuilt } from '../helpers/run-cli.js';
import { baseConfig, loadTester, tempSqlite } from '../helpers/tester-dist.js';

beforeAll(() => ensureBuilt(), 300_000);

const installs = inject('pgmqInstalls').filter((i) => i.release === '1.13.0' && i.form === 'sql');
const stores = [
  { name: 'compat schema', url: async () => inject('pgUrl') },
  ...installs.map((i) => ({ name: i.label, url: () => clonePgmq(i.template, `listen_t_${randomBytes(4).toString('hex')}`) })),
];

async function run(target: TesterConfig['target'], patch: Partial<TesterConfig>) {
  const { TesterRun } = await loadTester();
  return new TesterRun(baseConfig(target, patch)).run();
}

const lowRate: Partial<TesterConfig> = {
  senders: 1,
  receivers: 2,
  messagesPerSender: undefined,
  durationMs: 4000,
  ratePerSec: 10,
  batch: 1,
};

describe.each(stores)('tester --listen on $name', (store) => {
  test('a low-rate run is clean, woken by notifications, end-to-end p50 far below the fallback', async () => {
    const report = await run({ kind: 'pgmq', url: await store.url() }, { ...lowRate, listen: true });
    expect(report.verdict).toBe('clean');
    expect(report.counts.lost).toBe(0);
    expect(report.config['listen']).toEqual({ throttleMs: 0, fallbackMs: 250 });
    expect(report.listen).toMatchObject({ throttleMs: 0, fallbackMs: 250 });
    // About one wake per message; the fallback ends few waits (none needed).
    expect(report.listen!.notified).toBeGreaterThanOrEqual(report.counts.ok / 2);
    expect(report.latency.endToEnd.p50).toBeLessThan(50);
    expect(report.queue.dropped).toBe(true);
  }, 120_000);

  test('notifications throttled to one an hour: the fallback poll still brings every message', async () => {
    const report = await run(
      { kind: 'pgmq', url: await store.url() },
      { ...lowRate, durationMs: 2000, listen: true, listenThrottleMs: 3_600_000 },
    );
    expect(report.verdict).toBe('clean');
    expect(report.listen!.fallbacks).toBeGreaterThan(0);
    expect(report.latency.endToEnd.p50).toBeLessThan(400);
  }, 120_000);
});

test('a SmoothMQ file has no insert notifications: --listen is refused in one line', async () => {
  const t = tempSqlite();
  try {
    await expect(run({ kind: 'sqlite', path: t.path }, { listen: true, createSqlite: true })).rejects.toMatchObject({
      kind: 'usage',
      message: expect.stringMatching(/^--listen waits for insert notifications \(pgmq 1\.7\+\), and this store \(SmoothMQ.*\) has none$/),
    });
  } finally {
    t.cleanup();
  }
});
