// Issue 15, test 4: split brain. After the failover the old primary comes back writable while
// the run's workers can still reach it: the address they connect to moves back to it. The
// report names it: the old primary on timeline 1 after the new one's timeline 2, a violation
// (exit 4).
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { TesterReport } from '../../src/tester/index.js';
import { FrontDoor, sleep, startTester } from '../helpers/failover-run.js';
import { startReplicaPair, type ReplicaPair } from '../helpers/replica.js';
import { ensureBuilt } from '../helpers/run-cli.js';

let pair: ReplicaPair | undefined;
let door: FrontDoor | undefined;

beforeAll(async () => {
  ensureBuilt();
  pair = await startReplicaPair();
}, 120_000);

afterAll(async () => {
  await door?.close();
  await pair?.stop();
});

test('the old primary taking the run again after the promotion is named as a split brain', async () => {
  const { primary, standby } = pair!;
  // Until smq takes multi-host URLs (the connection side of issue 15), one address that the
  // test moves from the primary to the promoted standby, as a failover manager moves a VIP.
  door = await FrontDoor.open(primary.port);
  const tester = startTester(
    [
      ...['--url', door.url(primary), '--senders', '2', '--receivers', '2', '--rate', '200'],
      ...['--duration', '9s', '--vt', '2', '--drain-timeout', '3s', '--json'],
    ],
    55_000,
  );
  await tester.flowing;
  await pair!.killPrimary();
  await pair!.promoteStandby();
  await door.pointTo(standby.port);
  await sleep(1500); // the run goes on on the new primary
  await pair!.restartOldPrimaryWritable();
  // The address moves back to the old primary (a second manager, a stale DNS entry): every
  // connection is cut and comes back on it.
  await door.pointTo(primary.port);
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
