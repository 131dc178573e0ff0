// A primary and a streaming standby for the failover tests, both throwaway PostgreSQL 15
// servers on free ports (see pg-server.ts). The standby is a base backup of the primary
// (`pg_basebackup -R`); its replication connection goes through a TcpProxy, so a test can cut
// it (the standby falls behind) and restore it. Replication is asynchronous unless `sync` is
// given: then the standby is the primary's synchronous standby and commits wait for its flush.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, launchPgServer, makeOwnedRoot, runAsOwner, startPgServer, TEST_PG_PASSWORD, type PgServer } from './pg-server.js';
import { installSchema } from './schema.js';
import { TcpProxy } from './tcp-proxy.js';

/** The standby's application_name, as pg_stat_replication and synchronous_standby_names see it. */
export const STANDBY_NAME = 'smq_standby';

export interface ReplicaOptions {
  /** Synchronous replication: synchronous_standby_names = the standby, synchronous_commit = on. */
  readonly sync?: boolean;
  /** Extra settings for both servers. */
  readonly settings?: Readonly<Record<string, string | number>>;
}

export interface ReplicaPair {
  readonly primary: PgServer;
  readonly standby: PgServer;
  /** The standby's replication connection to the primary runs through this. */
  readonly replicationProxy: TcpProxy;
  /** `postgres://user:pw@127.0.0.1:PRIMARY,127.0.0.1:STANDBY/smq_test`, with `?target_session_attrs=` when given. */
  multiHostUrl(targetSessionAttrs?: string, order?: 'primary-first' | 'standby-first'): string;
  /** Cuts the replication connection: the standby stops receiving WAL (sync commits wait). */
  pauseReplication(): Promise<void>;
  resumeReplication(): Promise<void>;
  /** Waits until the standby has replayed everything the primary has written so far. */
  waitCaughtUp(timeoutMs?: number): Promise<void>;
  /** `pg_ctl stop -m immediate` on the primary (its data stays for restartOldPrimaryWritable). */
  killPrimary(): Promise<void>;
  /** `pg_promote()` on the standby, then waits until it takes writes. */
  promoteStandby(): Promise<void>;
  /** Starts the old primary's data folder again, standalone and writable, on its old port (split brain). */
  restartOldPrimaryWritable(): Promise<void>;
  /** Stops both servers and the proxy, and removes their folders. */
  stop(): Promise<void>;
}

/** One short-lived connection for one statement. */
export async function queryOnce<R extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

async function poll(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (err) {
      last = err;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
}

export async function startReplicaPair(options: ReplicaOptions = {}): Promise<ReplicaPair> {
  // synchronous_commit = on in both modes (the suite's default is off): an acknowledged commit is
  // in the primary's WAL, so what a failover loses is what replication had not carried. Without a
  // standby attached synchronous_standby_names would hold every commit, so it is set (ALTER
  // SYSTEM) only once the standby streams.
  const settings = { synchronous_commit: 'on', wal_retrieve_retry_interval: '200ms', ...options.settings };
  const primary = await startPgServer({ settings });
  const cleanup: Array<() => void | Promise<void>> = [() => primary.stop()];
  try {
    await installSchema(primary.url);
    const proxy = new TcpProxy(await freePort(), { host: '127.0.0.1', port: primary.port });
    await proxy.up();
    cleanup.unshift(() => proxy.down());

    const root = makeOwnedRoot();
    const dataDir = join(root, 'data');
    // Over the primary's socket (local replication is trusted); -R writes standby.signal.
    runAsOwner('pg_basebackup', [
      '-D',
      dataDir,
      '-h',
      primary.socketDir,
      '-p',
      String(primary.port),
      '-U',
      primary.user,
      '-X',
      'stream',
      '-c',
      'fast',
      '-R',
      '--no-sync',
    ]);
    // The last primary_conninfo in the file wins: the proxy's, with the name sync replication needs.
    const conninfo = `host=127.0.0.1 port=${proxy.port} user=${primary.user} password=${TEST_PG_PASSWORD} application_name=${STANDBY_NAME}`;
    appendFileSync(join(dataDir, 'postgresql.auto.conf'), `primary_conninfo = '${conninfo}'\n`);
    const standby = await launchPgServer({ root, dataDir, settings });
    cleanup.unshift(() => standby.stop());

    const replication = () =>
      queryOnce<{ state: string; sync_state: string }>(
        primary.adminUrl,
        'SELECT state, sync_state FROM pg_stat_replication WHERE application_name = $1',
        [STANDBY_NAME],
      );
    await poll('the standby to stream', async () => (await replication())[0]?.state === 'streaming');
    if (options.sync) {
      await queryOnce(primary.adminUrl, `ALTER SYSTEM SET synchronous_standby_names = '${STANDBY_NAME}'`);
      await queryOnce(primary.adminUrl, 'SELECT pg_reload_conf()');
      await poll('the standby to be synchronous', async () => (await replication())[0]?.sync_state === 'sync');
    }
    return makePair(primary, standby, proxy, cleanup);
  } catch (err) {
    await runAll(cleanup);
    throw err;
  }
}

async function runAll(steps: Array<() => void | Promise<void>>): Promise<void> {
  for (const step of steps) {
    try {
      await step();
    } catch {
      // Best effort: the next server must still be stopped.
    }
  }
}

function makePair(primary: PgServer, standby: PgServer, proxy: TcpProxy, cleanup: Array<() => void | Promise<void>>): ReplicaPair {
  return {
    primary,
    standby,
    replicationProxy: proxy,
    multiHostUrl(attrs, order = 'primary-first') {
      const hosts = [primary.port, standby.port].map((port) => `127.0.0.1:${port}`);
      if (order === 'standby-first') hosts.reverse();
      const query = attrs ? `?target_session_attrs=${attrs}` : '';
      return `postgres://${primary.user}:${encodeURIComponent(TEST_PG_PASSWORD)}@${hosts.join(',')}/smq_test${query}`;
    },
    pauseReplication: () => proxy.down(),
    resumeReplication: () => proxy.up(),
    async waitCaughtUp(timeoutMs = 30_000) {
      const [row] = await queryOnce<{ lsn: string }>(primary.adminUrl, 'SELECT pg_current_wal_insert_lsn()::text AS lsn');
      const sql = 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done';
      await poll(
        'the standby to catch up',
        async () => (await queryOnce(standby.adminUrl, sql, [row?.lsn]))[0]?.['done'] === true,
        timeoutMs,
      );
    },
    killPrimary: () => primary.kill(),
    async promoteStandby() {
      await queryOnce(standby.adminUrl, 'SELECT pg_promote(true, 60)');
      // txid_current() assigns a transaction id, which a server in recovery refuses.
      await poll('the promoted standby to take writes', async () => {
        await queryOnce(standby.adminUrl, 'SELECT txid_current()');
        return true;
      });
    },
    async restartOldPrimaryWritable() {
      // Alone, it must not wait for a synchronous standby that is now someone else's.
      await primary.start({ synchronous_standby_names: "''" });
      await poll('the old primary to take writes', async () => {
        await queryOnce(primary.adminUrl, 'SELECT txid_current()');
        return true;
      });
    },
    stop: () => runAll(cleanup),
  };
}
