// Issue 15, test 4: split brain. After the failover the old primary comes back writable while
// the run's workers can still reach it (it is first in the multi-host URL); the test ends the
// run's connections on the new primary, and they land on the old one. The report names it:
// the old primary on timeline 1 after the new one's timeline 2, a violation (exit 4).
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { TesterReport } from '../../src/tester/index.js';
import { sleep, startTester } from '../helpers/failover-run.js';
import { queryOnce, startReplicaPair, type ReplicaPair } from '../helpers/replica.js';
import { ensureBuilt } from '../helpers/run-cli.js';

let pair: ReplicaPair | undefined;

beforeAll(async () => {
  ensureBuilt();
  pair = await startReplicaPair();
}, 120_000);

afterAll(() => pair?.stop());

test('the old primary taking the run again after the promotion is named as a split brain', async () => {
  const { primary, standby } = pair!;
  const tester = startTester(
    [
      ...['--url', pair!.multiHostUrl('read-write'), '--senders', '2', '--receivers', '2', '--rate', '200'],
      ...['--duration', '9s', '--vt', '2', '--drain-timeout', '3s', '--json'],
    ],
    55_000,
  );
  await tester.flowing;
  await pair!.killPrimary();
  await pair!.promoteStandby();
  await sleep(1500); // the run goes on on the new primary
  await pair!.restartOldPrimaryWritable();
  // The test's own SQL ends the run's connections on the new primary: they come back on the
  // first host of the URL that takes writes, the old primary.
  await queryOnce(standby.adminUrl, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'smq-tester-%'");
  const r = await tester.done;
  const report = JSON.parse(r.stdout) as TesterReport;
  const old = `127.0.0.1:${primary.port}`;
  const next = `127.0.0.1:${standby.port}`;
  expect(report.servers.splitBrain.length).toBeGreaterThan(0);
  expect(report.servers.splitBrain[0]).toMatchObject({ server: old, timeline: 1 });
  expect(report.servers.splitBrain[0]!.text).toMatch(
    new RegExp(
      `^${old} on timeline 1 took the run's connections as a primary at \\d+\\.\\d s, after ${next} had been promoted to timeline 2: two primaries \\(split brain\\)$`,
    ),
  );
  expect(report.verdict).toBe('violations');
  expect(r.code).toBe(4);
}, 60_000);
