// Issue 15, test 1: asynchronous replication with the standby behind. The tester runs on the
// multi-host URL; the replication connection is cut, the run sends and acknowledges on the
// primary alone for two seconds (what it sends then held back from the receivers), the primary
// is killed and the standby promoted. The tester finishes on the new primary and reports as
// lost (and resurrected) exactly what the test finds from the two servers' tables: violations,
// exit 4, said in words with both servers.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { TesterReport } from '../../src/tester/index.js';
import { runRows, sleep, startTester } from '../helpers/failover-run.js';
import { queryOnce, startReplicaPair, type ReplicaPair } from '../helpers/replica.js';
import { ensureBuilt } from '../helpers/run-cli.js';

let pair: ReplicaPair | undefined;

beforeAll(async () => {
  ensureBuilt();
  pair = await startReplicaPair();
}, 120_000);

afterAll(() => pair?.stop());

test('lost and resurrected messages equal what the servers hold; the words name both servers and timelines', async () => {
  const { primary, standby } = pair!;
  const stamp = Date.now().toString(36);
  const queue = `ff_async_${stamp}`;
  const runId = `ffasync${stamp}`;
  // Archive, not delete: the old primary's archive then shows which acknowledgements it took.
  const tester = startTester(
    [
      ...['--url', pair!.multiHostUrl('read-write'), '--queue', queue, '--keep', '--run-id', runId],
      ...['--senders', '2', '--receivers', '2', '--rate', '300', '--duration', '8s', '--vt', '2', '--ack', 'archive'],
      ...['--drain-timeout', '3s', '--json'],
    ],
    55_000,
  );
  await tester.flowing;
  await pair!.pauseReplication();
  // Consumers behind their producers, made certain: on the primary alone (the standby never
  // gets this DDL) every message sent from now on stays invisible, so the receivers cannot
  // take it before the primary dies.
  await queryOnce(
    primary.url,
    `CREATE FUNCTION ff_hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.vt := now() + interval '1 hour'; RETURN NEW; END $$;
     CREATE TRIGGER ff_hold BEFORE INSERT ON pgmq.q_${queue} FOR EACH ROW EXECUTE FUNCTION ff_hold()`,
  );
  await sleep(2000); // sends and archives acknowledged by the primary alone
  // No call in flight when the primary dies: every call it took has its answer waiting on the
  // tester's side, so the tester heard of every commit the old primary made.
  tester.pause();
  await sleep(300);
  await pair!.killPrimary();
  tester.resume();
  await pair!.promoteStandby();
  const r = await tester.done;
  expect(r.stderr).not.toMatch(/^smq: /m);
  const report = JSON.parse(r.stdout) as TesterReport;

  // What the two servers hold (the old primary back on its own, after the run, for the test only).
  await pair!.restartOldPrimaryWritable();
  const before = await runRows(primary.url, queue, runId);
  const after = await runRows(standby.url, queue, runId);
  const onNew = (k: string) => after.live.has(k) || after.archived.has(k);
  // Sent on the old primary, never handed out there, and absent on the new one.
  const lost = [...before.live].filter(([k, readCount]) => readCount === 0 && !onNew(k)).length;
  // Archived on the old primary, and live on the new one (or archived there again, later).
  const resurrected = [...before.archived].filter(
    ([k, at]) => after.live.has(k) || (after.archived.has(k) && after.archived.get(k) !== at),
  ).length;
  expect(lost).toBeGreaterThan(0);
  expect(report.counts.lost).toBe(lost);
  expect(report.counts.resurrected).toBe(resurrected);
  expect(report.counts.duplicated).toBe(after.twice);
  expect(report.verdict).toBe('violations');
  expect(r.code).toBe(4);

  // It finished on the new primary, and says which server served which phase.
  const old = `127.0.0.1:${primary.port}`;
  const next = `127.0.0.1:${standby.port}`;
  expect(report.servers.failover).toBe(true);
  expect(report.servers.phases.filter((p) => !p.inRecovery).map((p) => [p.server, p.timeline])).toEqual([
    [old, 1],
    [next, 2],
  ]);
  expect(report.servers.readBackOn).toMatchObject({ server: next, timeline: 2 });
  expect(report.servers.splitBrain).toEqual([]);
  expect(report.servers.words).toContain(
    `${lost} lost: acknowledged by ${old} on timeline 1, absent after the failover to ${next} on timeline 2`,
  );
  if (resurrected > 0) {
    expect(report.servers.words).toContain(
      `${resurrected} resurrected: their delete was acknowledged by ${old} on timeline 1, back after the failover to ${next} on timeline 2`,
    );
  }
  // Writes were impossible from the kill until the promoted standby took them, not for ever.
  expect(report.writeUnavailable.windows.length).toBeGreaterThan(0);
  expect(report.writeUnavailable.windows.every((w) => w.toMs !== null)).toBe(true);
}, 60_000);
