// The replicated servers the failover tests stand on: a row written on the primary reaches the
// standby; with the replication connection cut it does not; a promoted standby takes writes and
// starts a new timeline; the old primary can come back writable (split brain). With synchronous
// replication a commit waits for the standby.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { queryOnce, startReplicaPair, STANDBY_NAME, type ReplicaPair } from '../helpers/replica.js';

const rowsOf = async (url: string) => (await queryOnce<{ n: number }>(url, 'SELECT n FROM t ORDER BY n')).map((r) => r.n);
const timelineOf = async (url: string) =>
  (await queryOnce<{ tl: string }>(url, 'SELECT substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8) AS tl'))[0]?.tl;
const settled = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p.then(() => 'done' as const), new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);

describe('replica helper, asynchronous', () => {
  let pair: ReplicaPair | undefined;
  beforeAll(async () => {
    pair = await startReplicaPair();
  }, 120_000);
  afterAll(() => pair?.stop());

  test('replicates, falls behind while paused, fails over, and the old primary can come back', async () => {
    const { primary, standby } = pair!;
    await queryOnce(primary.url, 'CREATE TABLE t (n int); INSERT INTO t VALUES (1)');
    await pair!.waitCaughtUp();
    expect(await rowsOf(standby.url)).toEqual([1]);
    // The standby is read-only and has smq's schema from the primary.
    await expect(queryOnce(standby.url, 'INSERT INTO t VALUES (9)')).rejects.toMatchObject({ code: '25006' });
    expect(await queryOnce(standby.url, 'SELECT count(*)::int AS n FROM pgmq.meta')).toEqual([{ n: 0 }]);

    await pair!.pauseReplication();
    await queryOnce(primary.url, 'INSERT INTO t VALUES (2)');
    await expect(pair!.waitCaughtUp(1000)).rejects.toThrow(/timed out/);
    expect(await rowsOf(standby.url)).toEqual([1]);

    await pair!.killPrimary();
    await expect(queryOnce(primary.url, 'SELECT 1')).rejects.toThrow();
    await pair!.promoteStandby();
    await queryOnce(standby.url, 'INSERT INTO t VALUES (3)');
    expect(await rowsOf(standby.url)).toEqual([1, 3]);
    expect(await timelineOf(standby.url)).toBe('00000002');

    await pair!.restartOldPrimaryWritable();
    await queryOnce(primary.url, 'INSERT INTO t VALUES (4)');
    expect(await rowsOf(primary.url)).toEqual([1, 2, 4]);
    expect(await timelineOf(primary.url)).toBe('00000001');
  }, 120_000);
});

describe('replica helper, synchronous', () => {
  let pair: ReplicaPair | undefined;
  beforeAll(async () => {
    pair = await startReplicaPair({ sync: true });
  }, 120_000);
  afterAll(() => pair?.stop());

  test('a commit waits for the standby while replication is cut', async () => {
    const { primary, standby } = pair!;
    const [rep] = await queryOnce(primary.adminUrl, 'SELECT sync_state FROM pg_stat_replication WHERE application_name = $1', [
      STANDBY_NAME,
    ]);
    expect(rep).toEqual({ sync_state: 'sync' });
    await queryOnce(primary.url, 'CREATE TABLE t (n int); INSERT INTO t VALUES (1)');

    await pair!.pauseReplication();
    const commit = queryOnce(primary.url, 'INSERT INTO t VALUES (2)');
    expect(await settled(commit, 1000)).toBe('pending');
    await pair!.resumeReplication();
    await commit;
    await pair!.waitCaughtUp();
    expect(await rowsOf(standby.url)).toEqual([1, 2]);
  }, 120_000);
});
