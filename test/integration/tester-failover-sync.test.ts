// Issue 15, test 2: synchronous replication, the same sequence as the asynchronous test. With
// the replication connection cut, commits wait for the standby and are never acknowledged; the
// primary dies with them waiting. Nothing acknowledged is lost or comes back: those sends are
// uncertain, and the verdict is clean (exit 0), on the new primary.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { TesterReport } from '../../src/tester/index.js';
import { runRows, sleep, startTester } from '../helpers/failover-run.js';
import { startReplicaPair, type ReplicaPair } from '../helpers/replica.js';
import { ensureBuilt } from '../helpers/run-cli.js';

let pair: ReplicaPair | undefined;

beforeAll(async () => {
  ensureBuilt();
  pair = await startReplicaPair({ sync: true });
}, 120_000);

afterAll(() => pair?.stop());

test('zero lost, zero resurrected; sends waiting for the standby when the primary died are uncertain; clean', async () => {
  const { primary, standby } = pair!;
  const stamp = Date.now().toString(36);
  const queue = `ff_sync_${stamp}`;
  const runId = `ffsync${stamp}`;
  const tester = startTester(
    [
      ...['--url', pair!.multiHostUrl('read-write'), '--queue', queue, '--keep', '--run-id', runId],
      ...['--senders', '2', '--receivers', '2', '--rate', '300', '--duration', '7s', '--vt', '2', '--ack', 'archive'],
      ...['--drain-timeout', '3s', '--json'],
    ],
    55_000,
  );
  await tester.flowing;
  await pair!.pauseReplication();
  await sleep(1500); // every commit now waits for the standby
  await pair!.killPrimary();
  await pair!.promoteStandby();
  const r = await tester.done;
  expect(r.stderr).not.toMatch(/^smq: /m);
  const report = JSON.parse(r.stdout) as TesterReport;
  expect(report.counts.lost).toBe(0);
  expect(report.counts.resurrected).toBe(0);
  expect(report.counts.duplicated).toBe(0);
  expect(report.counts.uncertain).toBeGreaterThan(0);
  expect(report.verdict).toBe('clean');
  expect(r.code).toBe(0);
  expect(report.servers.failover).toBe(true);
  expect(report.servers.readBackOn).toMatchObject({ server: `127.0.0.1:${standby.port}`, timeline: 2 });
  // The tables' counters before the run were the old primary's, after it the new one's: no figures, and why.
  expect(report.database).toBeNull();
  expect(report.tester.warnings.join('\n')).toMatch(
    new RegExp(
      `^no database figures: the counters were read on 127\\.0\\.0\\.1:${primary.port}, up since .* and on 127\\.0\\.0\\.1:${standby.port}, up since .* \\(a failover or a restart\\)`,
      'm',
    ),
  );

  // The servers agree: whatever the old primary committed and the new one lacks was never
  // acknowledged (an uncertain send, or a receive or archive whose commit waited).
  await pair!.restartOldPrimaryWritable();
  const before = await runRows(primary.url, queue, runId);
  const after = await runRows(standby.url, queue, runId);
  const missing = [...before.live.keys()].filter((k) => !after.live.has(k) && !after.archived.has(k));
  expect(missing.length).toBeLessThanOrEqual(report.counts.uncertain);
}, 60_000);
