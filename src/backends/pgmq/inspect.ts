// What the pgmq backend tells top about a role's rights and a queue's insides, changing
// nothing: whether this role may change queues at all (writePrivileges).
import { queueNotFound } from '../../errors.js';
import type { Capabilities, QueueDetails, SearchOptions, SearchStep } from '../types.js';
import { checkSearch, nextAfter, searchMode } from '../search.js';
import { toMessage, type MessageRow } from './messages.js';
import type { PgmqSession } from './session.js';
import { QUEUE_TABLES_TEXT, queueMetaQuery, searchQuery, WRITE_PRIVILEGES } from './sql-inspect.js';

/**
 * Why this connection may not change queues (a standby, a read-only session, a role that may
 * not delete from or update any queue table, or not run pgmq.delete), or undefined when it may.
 */
export async function cannotWrite(s: PgmqSession): Promise<string | undefined> {
  const rows = await s.run<{
    role: string;
    standby: boolean;
    session_read_only: boolean;
    tables: number;
    writable: number;
    delete_fn: boolean | null;
  }>(WRITE_PRIVILEGES);
  const r = rows[0];
  if (!r) return undefined;
  if (r.standby) return 'the server is a standby (in recovery)';
  if (r.session_read_only) return `role ${r.role}'s sessions are read-only (default_transaction_read_only)`;
  if (r.tables > 0 && r.writable === 0) return `role ${r.role} may not delete from pgmq.q_*`;
  if (r.delete_fn === false) return `role ${r.role} may not execute pgmq.delete`;
  return undefined;
}

/** One bounded step of a search in a queue's bodies and headers (Backend.searchMessages). */
export async function searchMessages(s: PgmqSession, queue: string, options: SearchOptions): Promise<SearchStep> {
  const { scan, limit } = checkSearch(options);
  const mode = searchMode(options.text, true);
  const rel = await s.table(queue);
  const rows = await s.run<MessageRow & { last_id: string | null; scanned: number }>(
    searchQuery(rel, s.columns, mode, { afterId: options.afterId ?? null, scan, limit }),
    queue,
  );
  const matches = rows.filter((r) => r.msg_id !== null).map((r) => toMessage(r));
  const first = rows[0];
  const scanned = first?.scanned ?? 0;
  const last = first?.last_id ? BigInt(first.last_id) : null;
  return {
    matches,
    scanned,
    nextAfterId: nextAfter(
      matches.map((m) => m.id),
      limit,
      scanned,
      scan,
      last,
    ),
    mode: mode.kind,
  };
}

/** A queue's storage: created at, unlogged / partitioned, its tables' sizes, tuples and vacuum, the FIFO index, notifications. */
export async function queueDetails(s: PgmqSession, queue: string, caps: Capabilities): Promise<QueueDetails> {
  s.name(queue);
  const meta = (
    await s.run<{
      name: string;
      created_at: Date | null;
      is_unlogged: boolean | null;
      is_partitioned: boolean | null;
      throttle_ms: number | null;
    }>(queueMetaQuery(queue, caps.notifyInsert), queue)
  )[0];
  if (!meta) throw queueNotFound(queue);
  const rows = await s.run<{
    role: 'queue' | 'archive';
    name: string;
    table_bytes: string;
    index_bytes: string;
    live: string | null;
    dead: string | null;
    last_autovacuum: Date | null;
    last_vacuum: Date | null;
    last_autoanalyze: Date | null;
    indexes: { name: string; def: string }[];
  }>({ text: QUEUE_TABLES_TEXT, values: [meta.name] }, queue);
  const num = (v: string | null) => (v === null ? null : Number(v));
  const tables = rows.map((r) => ({
    role: r.role,
    name: r.name,
    tableBytes: Number(r.table_bytes),
    indexBytes: Number(r.index_bytes),
    liveTuples: num(r.live),
    deadTuples: num(r.dead),
    lastAutovacuum: r.last_autovacuum,
    lastVacuum: r.last_vacuum,
    lastAutoanalyze: r.last_autoanalyze,
    indexes: r.indexes.map((i) => i.name),
  }));
  // create_fifo_index: pgmq 1.9+ makes <table>_fifo_idx, a GIN index on headers; the compat
  // schema a btree on the group header.
  const fifo = rows
    .find((r) => r.role === 'queue')
    ?.indexes.find((i) => i.name.endsWith('_fifo_idx') || /USING gin \(headers\)|x-pgmq-group/i.test(i.def));
  return {
    name: meta.name,
    createdAt: meta.created_at,
    unlogged: meta.is_unlogged ?? false,
    partitioned: meta.is_partitioned ?? false,
    tables,
    ...(caps.notifyInsert ? { notifyThrottleMs: meta.throttle_ms } : {}),
    ...(caps.groups ? { fifoIndex: fifo?.name ?? null } : {}),
  };
}
