// SQL for the pgmq backend, built by pure functions (unit-testable without a database).
// Queue names never enter SQL text from the client: they are bound as values, and table
// names are quoted by the server (format('%I') / regclass output).
import { invalidInput } from '../../errors.js';
import type { MessageState, PeekOptions } from '../types.js';

export * from './sql-base.js';
/** A transaction holding a snapshot for less than this is ordinary work, not a held-back horizon. */
export const HOLDER_MIN_SEC = 5;
export * from './sql-stats.js';
import { messageColumns, SEEN_AT, variant, type Columns, type Query } from './sql-base.js';
import { GROUP_KEY } from './sql-stats.js';

export const STATE_CASE = `CASE WHEN vt <= ${SEEN_AT} THEN 'ready' WHEN read_ct > 0 THEN 'inflight' ELSE 'delayed' END`;

export const STATE_WHERE: Record<Exclude<MessageState, 'failed'> | 'all', string> = {
  all: 'TRUE',
  ready: `vt <= ${SEEN_AT}`,
  inflight: `vt > ${SEEN_AT} AND read_ct > 0`,
  delayed: `vt > ${SEEN_AT} AND read_ct = 0`,
};

/**
 * Reads a queue's table directly (never pgmq.read, which would bump read_ct and hide the
 * message). `rel` is the server-quoted table name from queueTableQuery.
 */
export function peekQuery(rel: string, cols: Columns, options: PeekOptions): Query {
  const state = options.state ?? 'all';
  if (state === 'failed') throw new Error('pgmq has no failed state');
  // The state picks a fixed condition; anything else (even 'constructor') is refused.
  if (!Object.hasOwn(STATE_WHERE, state)) {
    throw invalidInput(`unknown state ${JSON.stringify(state)}`, 'use ready, inflight, delayed or all');
  }
  const newest = options.order === 'newest';
  const group = options.group !== undefined;
  const text = `SELECT ${messageColumns(cols)}, ${STATE_CASE} AS state
FROM ${rel}
WHERE ($1::bigint IS NULL OR msg_id = $1::bigint)
  AND ($2::bigint IS NULL OR msg_id ${newest ? '<' : '>'} $2::bigint)
  AND ${STATE_WHERE[state]}${group ? `\n  AND ${groupWhere(4)}` : ''}
ORDER BY msg_id ${newest ? 'DESC' : 'ASC'}
LIMIT $3::int`;
  return { text, values: [options.id ?? null, options.afterId ?? null, options.limit, ...(group ? [options.group] : [])] };
}

/** One FIFO group's messages (parameter $n; NULL: the group-less lane), where a peek or a count asks for one group. */
const groupWhere = (n: number) => `${GROUP_KEY} IS NOT DISTINCT FROM $${n}::text`;

/** How many messages of a state come before `id` in an order (countBefore); `rel` as in peekQuery. */
export function countBeforeQuery(
  rel: string,
  options: { id: bigint; state: Exclude<MessageState, 'failed'> | 'all'; order: 'oldest' | 'newest'; group?: string | null | undefined },
): Query {
  if (!Object.hasOwn(STATE_WHERE, options.state)) {
    throw invalidInput(`unknown state ${JSON.stringify(options.state)}`, 'use ready, inflight, delayed or all');
  }
  const group = options.group !== undefined;
  const text = `SELECT count(*)::bigint AS n FROM ${rel}
WHERE msg_id ${options.order === 'newest' ? '>' : '<'} $1::bigint AND ${STATE_WHERE[options.state]}${group ? ` AND ${groupWhere(2)}` : ''}`;
  return { text, values: [options.id.toString(), ...(group ? [options.group] : [])] };
}

export function readQuery(queue: string, vtSec: number, qty: number, cols: Columns): Query {
  return {
    name: `smq_read_${variant(cols)}`,
    text: `SELECT ${messageColumns(cols, 'r')} FROM pgmq.read($1::text, $2::integer, $3::integer) r`,
    values: [queue, vtSec, qty],
  };
}

/** Run id filter as pgmq's `conditional` (message @> condition): {"r": runId}. */
const runIdCondition = (runId: string) => JSON.stringify({ r: runId });

/**
 * Only this run's messages (the tester on a queue holding others'): pgmq 1.5+ read's
 * `conditional`, so foreign rows are neither locked nor counted. A separate statement: the
 * plain read stays exactly as it is for normal runs.
 */
export function readByRunIdQuery(queue: string, vtSec: number, qty: number, runId: string, cols: Columns): Query {
  return {
    name: `smq_read_run_${variant(cols)}`,
    text: `SELECT ${messageColumns(cols, 'r')} FROM pgmq.read($1::text, $2::integer, $3::integer, $4::jsonb) r`,
    values: [queue, vtSec, qty, runIdCondition(runId)],
  };
}

/**
 * read_with_poll: waits up to pollSec for messages (pgmq's own poll interval, 100 ms). With a
 * run id, 1.5+'s conditional form (the caller checks that the store has it).
 */
export function readWithPollQuery(
  queue: string,
  vtSec: number,
  qty: number,
  pollSec: number,
  runId: string | undefined,
  cols: Columns,
): Query {
  const cond = runId === undefined ? '' : ', 100, $5::jsonb';
  return {
    name: `smq_read_poll${runId === undefined ? '' : '_run'}_${variant(cols)}`,
    text: `SELECT ${messageColumns(cols, 'r')} FROM pgmq.read_with_poll($1::text, $2::integer, $3::integer, $4::integer${cond}) r`,
    values: runId === undefined ? [queue, vtSec, qty, pollSec] : [queue, vtSec, qty, pollSec, runIdCondition(runId)],
  };
}

/**
 * The deliberately unsafe dequeue: candidates are selected without a lock, then updated by id.
 * Under READ COMMITTED two sessions can pick the same ids; the second UPDATE waits for the
 * first, re-checks only `msg_id = ANY(...)`, and hands the message out again. The tester uses
 * this to prove its checker catches double-dequeues. Never use it for real work.
 */
export function naiveSelectQuery(rel: string, qty: number, runId?: string): Query {
  if (runId !== undefined) {
    return {
      text: `SELECT msg_id FROM ${rel} WHERE vt <= clock_timestamp() AND message @> $2::jsonb ORDER BY msg_id LIMIT $1::int`,
      values: [qty, runIdCondition(runId)],
    };
  }
  return {
    text: `SELECT msg_id FROM ${rel} WHERE vt <= clock_timestamp() ORDER BY msg_id LIMIT $1::int`,
    values: [qty],
  };
}

export function naiveUpdateQuery(rel: string, ids: readonly bigint[], vtSec: number, cols: Columns): Query {
  const setLastRead = cols.lastReadAt ? ', last_read_at = clock_timestamp()' : '';
  return {
    text: `UPDATE ${rel} SET vt = clock_timestamp() + make_interval(secs => $2::int), read_ct = read_ct + 1${setLastRead}
WHERE msg_id = ANY($1::bigint[])
RETURNING ${messageColumns(cols)}`,
    values: [ids.map(String), vtSec],
  };
}

export function sendQuery(
  queue: string,
  body: string,
  headers: Record<string, string> | undefined,
  delaySec: number,
  cols: Columns,
): Query {
  if (cols.headers) {
    return {
      name: 'smq_send_h',
      text: 'SELECT * FROM pgmq.send($1::text, $2::jsonb, $3::jsonb, $4::integer) AS id',
      values: [queue, body, headers ? JSON.stringify(headers) : null, delaySec],
    };
  }
  return { name: 'smq_send', text: 'SELECT * FROM pgmq.send($1::text, $2::jsonb, $3::integer) AS id', values: [queue, body, delaySec] };
}

export function sendBatchQuery(
  queue: string,
  bodies: readonly string[],
  headers: readonly (Record<string, string> | undefined)[] | null,
  delaySec: number,
  cols: Columns,
): Query {
  if (cols.headers && headers) {
    return {
      name: 'smq_send_batch_h',
      text: 'SELECT * FROM pgmq.send_batch($1::text, $2::jsonb[], $3::jsonb[], $4::integer) AS id',
      values: [queue, bodies, headers.map((h) => (h ? JSON.stringify(h) : null)), delaySec],
    };
  }
  return {
    name: 'smq_send_batch',
    text: 'SELECT * FROM pgmq.send_batch($1::text, $2::jsonb[], $3::integer) AS id',
    values: [queue, bodies, delaySec],
  };
}

export function setVisibilityQuery(queue: string, ids: readonly bigint[], vtSec: number): Query {
  // One round trip for many ids; set_vt is per message in pgmq 1.x.
  return {
    text: `SELECT s.msg_id FROM unnest($2::bigint[]) AS i(id), LATERAL pgmq.set_vt($1::text, i.id, $3::integer) s`,
    values: [queue, ids.map(String), vtSec],
  };
}

/**
 * Message ids as one bigint[] literal: `{1,2,3}`. Digits only (they are bigints), so nothing
 * needs quoting; node-postgres would otherwise escape each element of a JS array on every call.
 */
const idArray = (ids: readonly bigint[]) => `{${ids.join(',')}}`;

export function deleteQuery(queue: string, ids: readonly bigint[]): Query {
  return { name: 'smq_delete', text: 'SELECT * FROM pgmq.delete($1::text, $2::bigint[]) AS id', values: [queue, idArray(ids)] };
}

export function archiveQuery(queue: string, ids: readonly bigint[]): Query {
  return { name: 'smq_archive', text: 'SELECT * FROM pgmq.archive($1::text, $2::bigint[]) AS id', values: [queue, idArray(ids)] };
}

// ---- queue admin, server probes and transactions ---------------------------------------

export function createQueueQuery(queue: string, unlogged: boolean): Query {
  return { text: unlogged ? 'SELECT pgmq.create_unlogged($1::text)' : 'SELECT pgmq.create($1::text)', values: [queue] };
}

/** `queue` is the name as pgmq.meta stores it: pgmq's drop removes the meta row of that exact name. */
export function dropQueueQuery(queue: string): Query {
  return { text: 'SELECT pgmq.drop_queue($1::text)', values: [queue] };
}

/**
 * A drop of a queue confirmed as empty, in its transaction: first the queue's table locked
 * (`rel`, server-quoted by queueTableQuery) against every writer, so no send commits between
 * the count and the drop; a send in progress is waited for and then counted.
 */
export function lockQueueTableQuery(rel: string): Query {
  return { text: `LOCK TABLE ${rel} IN ACCESS EXCLUSIVE MODE`, values: [] };
}

/** How many messages the (locked) queue table `rel` holds. */
export function countQueueRowsQuery(rel: string): Query {
  return { text: `SELECT count(*)::bigint AS n FROM ${rel}`, values: [] };
}

export function purgeQueueQuery(queue: string): Query {
  return { text: 'SELECT pgmq.purge_queue($1::text) AS n', values: [queue] };
}

/** What opening a backend asks the server once: versions, isolation, which pgmq and its columns. */
export const PROBE = `
      SELECT current_setting('server_version') AS version,
             current_setting('transaction_isolation') AS isolation,
             (SELECT extversion FROM pg_extension WHERE extname = 'pgmq') AS ext,
             to_regclass('pgmq.smq_compat') IS NOT NULL AS compat,
             to_regclass('pgmq.meta') IS NOT NULL AS meta,
             to_regprocedure('pgmq.read(text,integer,integer,jsonb)') IS NOT NULL AS conditional,
             to_regprocedure('pgmq.read_grouped(text,integer,integer)') IS NOT NULL
               AND to_regprocedure('pgmq.read_grouped_rr(text,integer,integer)') IS NOT NULL AS groups,
             to_regprocedure('pgmq.read_grouped_head(text,integer,integer)') IS NOT NULL AS grouped_head,
             to_regprocedure('pgmq.bind_topic(text,text)') IS NOT NULL
               AND to_regprocedure('pgmq.send_topic(text,jsonb)') IS NOT NULL AS topics,
             to_regprocedure('pgmq.enable_notify_insert(text,integer)') IS NOT NULL AS notify_insert,
             to_regprocedure('pgmq._smq_notify_insert()') IS NOT NULL AS notify_capitals,
             to_regprocedure('pgmq.set_vt(text,bigint,timestamptz)') IS NOT NULL AS set_vt_at,
             to_regprocedure('pgmq.pop(text,integer)') IS NOT NULL AS pop_qty,
             (SELECT array_agg(attname::text) FROM pg_attribute
               WHERE attrelid = to_regclass('pgmq.message_record') AND attnum > 0 AND NOT attisdropped) AS cols`;

/**
 * top's health line: what holds back vacuum in this database (as pg_activity shows it): the
 * client transaction other than this connection holding the oldest snapshot for a while, and
 * the replication slot holding the oldest xmin; the queue tables' dead tuples.
 */
export const HEALTH: Query = {
  text: `SELECT h.pid, h.state, h.application_name AS app, host(h.client_addr) AS client, h.xids, h.secs,
        s.slot_name::text AS slot, s.active AS slot_active, s.slot_xids,
        (SELECT sum(n_dead_tup) FROM pg_stat_user_tables WHERE schemaname = 'pgmq') AS dead,
        (SELECT sum(n_live_tup) FROM pg_stat_user_tables WHERE schemaname = 'pgmq') AS live
      FROM (SELECT 1) one
      LEFT JOIN LATERAL (
        SELECT pid, state, application_name, client_addr, age(backend_xmin) AS xids,
               extract(epoch FROM now() - coalesce(xact_start, query_start, backend_start))::float8 AS secs
        FROM pg_stat_activity
        WHERE backend_xmin IS NOT NULL AND pid <> pg_backend_pid() AND backend_type = 'client backend'
          AND datname = current_database() AND now() - coalesce(xact_start, query_start, backend_start) >= interval '${HOLDER_MIN_SEC} seconds'
        ORDER BY age(backend_xmin) DESC, xact_start LIMIT 1) h ON true
      LEFT JOIN LATERAL (
        SELECT slot_name, active, greatest(age(xmin), age(catalog_xmin)) AS slot_xids
        FROM pg_replication_slots
        WHERE (xmin IS NOT NULL OR catalog_xmin IS NOT NULL) AND (database IS NULL OR database = current_database())
        ORDER BY greatest(age(xmin), age(catalog_xmin)) DESC LIMIT 1) s ON true`,
  values: [],
};

/** A queue's tables' counters and sizes, and the WAL position ($1: the table names). */
export const STORE_ACTIVITY = (tables: readonly string[]): Query => ({
  text: `SELECT pg_wal_lsn_diff(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END, '0/0')::float8 AS wal,
        concat(host(inet_server_addr()), ':', current_setting('port'), ', up since ',
          to_char(pg_postmaster_start_time() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US"Z"')) AS server,
        (SELECT json_object_agg(name, setting ORDER BY name) FROM pg_settings
          WHERE name IN ('synchronous_commit', 'fsync', 'full_page_writes', 'wal_level', 'synchronous_standby_names', 'autovacuum')) AS settings,
        c.relname::text AS table, s.n_tup_ins AS inserted, s.n_tup_upd AS updated, s.n_tup_del AS deleted,
        s.n_dead_tup AS dead, s.autovacuum_count AS autovacuums, s.autoanalyze_count AS autoanalyzes,
        pg_relation_size(c.oid) AS table_bytes, pg_indexes_size(c.oid) AS index_bytes
      FROM (SELECT 1) one
      LEFT JOIN pg_class c ON c.relnamespace = 'pgmq'::regnamespace AND c.relname = ANY($1::text[]) AND c.relkind IN ('r', 'p')
      LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
      ORDER BY c.relname DESC`,
  values: [tables],
});

/** The connection limits of the server, this database and this role, and what is in use. */
export const CONNECTION_BUDGET: Query = {
  text: `SELECT current_setting('max_connections')::int AS max_conn,
        current_setting('superuser_reserved_connections')::int AS su_reserved,
        coalesce(current_setting('reserved_connections', true)::int, 0) AS reserved,
        (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int AS in_use,
        (SELECT datconnlimit FROM pg_database WHERE datname = current_database()) AS db_limit,
        (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND datname = current_database())::int AS db_in_use,
        (SELECT rolconnlimit FROM pg_roles WHERE rolname = current_user) AS role_limit,
        (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND usename = current_user)::int AS role_in_use`,
  values: [],
};

export const BEGIN = 'BEGIN';
/** The naive dequeue's race needs READ COMMITTED, whatever the connection's default. */
export const BEGIN_READ_COMMITTED = 'BEGIN ISOLATION LEVEL READ COMMITTED';
export const COMMIT = 'COMMIT';
export const ROLLBACK = 'ROLLBACK';

// ---- sending: the body check (send.ts) ---------------------------------------------------

export const SERVER_ENCODING = 'SHOW server_encoding';

/** Parses each body as jsonb and stores nothing: the server's own refusal names the body. */
export function parseBodiesQuery(bodies: readonly string[]): Query {
  return { text: 'SELECT cardinality($1::jsonb[]) AS n', values: [bodies] };
}

// ---- smq init (install.ts) ---------------------------------------------------------------

export const EXTENSION_AVAILABLE = "SELECT 1 FROM pg_available_extensions WHERE name = 'pgmq'";
export const CREATE_EXTENSION = 'CREATE EXTENSION IF NOT EXISTS pgmq';
export const EXTENSION_VERSION = "SELECT extversion FROM pg_extension WHERE extname = 'pgmq'";
/** pgmq.meta exists but smq did not make it: pgmq installed from its SQL file. */
export const FOREIGN_PGMQ_SCHEMA = "SELECT to_regclass('pgmq.meta') IS NOT NULL AND to_regclass('pgmq.smq_compat') IS NULL AS is_foreign";
export const COMPAT_PRESENT = "SELECT to_regclass('pgmq.smq_compat') IS NOT NULL AS present";
export const COMPAT_VERSION = 'SELECT version FROM pgmq.smq_compat LIMIT 1';
export const ADVISORY_LOCK = 'SELECT pg_advisory_lock($1)';
export const ADVISORY_UNLOCK = 'SELECT pg_advisory_unlock($1)';
