// What the pgmq backend tells about the server rather than a queue: top's health line and
// the tester's connection budget and what a run cost the database (storeActivity).
import type { ConnectionBudget, HealthInfo, StoreActivity } from '../types.js';
import { showHost } from './connector.js';
import { horizonWords, type HorizonRow } from './health-words.js';
import { REPLICATION, replicationHealth, type ReplicationRow } from './replication.js';
import { toNumber, type PgmqSession } from './session.js';
import * as sql from './sql.js';

/** 50,078, as every count top shows. */
const grouped = (n: number) => n.toLocaleString('en-US');

export async function health(s: PgmqSession): Promise<HealthInfo> {
  const [rows, replication] = await Promise.all([
    s.run<HorizonRow & { dead: string | null; live: string | null }>(sql.HEALTH),
    s.run<ReplicationRow>(REPLICATION),
  ]);
  const r = rows[0]!;
  const standbys = replicationHealth(replication[0]!);
  // On a multi-host target: the server the latest connection went to.
  const current = s.connector?.multiHost ? s.connector.current : undefined;
  const parts: string[] = current ? [`on ${showHost(current)}`] : [];
  const warnings: string[] = [];
  const horizon = horizonWords(r);
  parts.push(...horizon.parts);
  warnings.push(...horizon.warnings);
  const dead = toNumber(r.dead);
  const live = toNumber(r.live);
  parts.push(`dead tuples in queue tables: ${grouped(dead)}`);
  if (dead > 100_000 && dead > live)
    warnings.push(`queue tables hold ${grouped(dead)} dead tuples (more than live ones): vacuum is falling behind`);
  warnings.push(...standbys.warnings);
  const standbyLine = standbys.parts.join(' · ');
  return { summary: parts.join(' · '), warnings, ...(standbyLine ? { replication: standbyLine } : {}) };
}

/**
 * How many more connections this role may open to this database now: max_connections
 * minus the reserved slots minus the client connections open (this one included), and
 * the database's and the role's own connection limits.
 */
export async function connectionBudget(s: PgmqSession): Promise<ConnectionBudget> {
  const rows = await s.run<{
    max_conn: number;
    su_reserved: number;
    reserved: number;
    in_use: number;
    db_limit: number | null;
    db_in_use: number;
    role_limit: number | null;
    role_in_use: number;
  }>(sql.CONNECTION_BUDGET);
  const r = rows[0]!;
  const reserved = r.su_reserved + r.reserved;
  let free = r.max_conn - reserved - r.in_use;
  let limitedBy: ConnectionBudget['limitedBy'] = 'server';
  if (r.db_limit !== null && r.db_limit >= 0 && r.db_limit - r.db_in_use < free) {
    free = r.db_limit - r.db_in_use;
    limitedBy = 'database';
  }
  if (r.role_limit !== null && r.role_limit >= 0 && r.role_limit - r.role_in_use < free) {
    free = r.role_limit - r.role_in_use;
    limitedBy = 'role';
  }
  const limit = limitedBy === 'database' ? r.db_limit! : limitedBy === 'role' ? r.role_limit! : r.max_conn;
  return { free: Math.max(0, free), maxConnections: r.max_conn, reserved, inUse: r.in_use, limitedBy, limit };
}

/** The counters of the queues' tables (q_ and a_, as pgmq names them: lower-cased) and the WAL position. */
export async function storeActivity(s: PgmqSession, queues: readonly string[]): Promise<StoreActivity> {
  const names = queues.map((q) => q.toLowerCase());
  const rows = await s.run<{
    wal: number;
    server: string | null;
    settings: Record<string, string> | null;
    table: string | null;
    inserted: string | null;
    updated: string | null;
    deleted: string | null;
    dead: string | null;
    autovacuums: string | null;
    autoanalyzes: string | null;
    table_bytes: string | null;
    index_bytes: string | null;
  }>(sql.STORE_ACTIVITY(names.flatMap((name) => [`q_${name}`, `a_${name}`])));
  return {
    server: rows[0]?.server ?? null,
    walBytes: Number(rows[0]?.wal ?? 0),
    settings: rows[0]?.settings ?? {},
    tables: rows
      .filter((r) => r.table !== null)
      .map((r) => ({
        table: r.table!,
        inserted: toNumber(r.inserted),
        updated: toNumber(r.updated),
        deleted: toNumber(r.deleted),
        deadTuples: toNumber(r.dead),
        autovacuums: toNumber(r.autovacuums),
        autoanalyzes: toNumber(r.autoanalyzes),
        tableBytes: toNumber(r.table_bytes),
        indexBytes: toNumber(r.index_bytes),
      })),
  };
}
