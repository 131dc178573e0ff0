// pgmq queue statistics for `smq queues` and top's list (sql.ts re-exports this file).
import { createHash } from 'node:crypto';
import pg from 'pg';
import { SEEN_AT, type Query } from './sql-base.js';

const escapeLiteral = (text: string) => pg.escapeLiteral(text);

// Queue statistics in two steps, so that a refresh never grows into a scan of every queue:
// 1. one catalog query: each queue's tables, quoted by the server (regclass output), and the
//    statistics collector's live-tuple counts and insert/delete counters;
// 2. one UNION ALL over those tables (in chunks of STATS_CHUNK queues). Small queues are
//    counted exactly in one scan; above the threshold the total is the live-tuple estimate
//    and only the invisible part (vt in the future, served by the vt index) is counted.
// Table names in step 2 are the server's own quoted output from step 1, never a name typed
// by a user.

/**
 * Step 1. With `notify` (pgmq 1.7+: pgmq.notify_insert_throttle exists) each queue's insert
 * notification throttle too (null: off).
 */
export function queueCatalogQuery(queue: string | null, notify = false): Query {
  const notifyMs = notify
    ? `(SELECT n.throttle_interval_ms FROM pgmq.notify_insert_throttle n
          WHERE lower(n.queue_name) = lower(m.queue_name) ORDER BY n.queue_name = m.queue_name DESC LIMIT 1)`
    : 'NULL::integer';
  return {
    name: notify ? 'smq_queue_catalog_n' : 'smq_queue_catalog',
    text: `/* smq:queue-catalog */
WITH t AS (
  SELECT m.queue_name, m.is_partitioned, m.is_unlogged, m.created_at,
         to_regclass(format('pgmq.%I', 'q_' || lower(m.queue_name))) AS q,
         to_regclass(format('pgmq.%I', 'a_' || lower(m.queue_name))) AS a,
         ${notifyMs} AS notify_ms
  FROM pgmq.meta m
  WHERE $1::text IS NULL OR lower(m.queue_name) = lower($1::text)
)
SELECT queue_name, is_partitioned, is_unlogged, created_at,
       q::text AS qrel, a::text AS arel,
       pg_stat_get_live_tuples(q) AS q_live, pg_stat_get_live_tuples(a) AS a_live,
       pg_stat_get_tuples_inserted(q) AS q_inserted, pg_stat_get_tuples_deleted(q) AS q_deleted,
       notify_ms
FROM t WHERE q IS NOT NULL
ORDER BY queue_name = $1::text DESC NULLS LAST, queue_name`,
    values: [queue],
  };
}

export interface StatsTarget {
  /** Server-quoted table names from queueCatalogQuery. */
  readonly qrel: string;
  readonly arel: string | null;
  /** Count this queue (or its archive) exactly, or estimate it from the statistics collector. */
  readonly estimate: boolean;
  readonly estimateArchive: boolean;
}

/** Queues per statement of step 2: planning cost stays small, round trips stay few. */
export const STATS_CHUNK = 100;

/** A queue's FIFO groups are counted among at most this many of its oldest messages when its counts are estimated. */
export const GROUPS_SAMPLE = 1_000;

/** The FIFO group of a message, as pgmq's grouped reads take it. */
export const GROUP_KEY = `headers->>'x-pgmq-group'`;

const exactStats = (rel: string, groups: boolean) => `SELECT count(*) FILTER (WHERE vt <= ${SEEN_AT}) AS ready,
  count(*) FILTER (WHERE vt > ${SEEN_AT} AND read_ct > 0) AS inflight,
  count(*) FILTER (WHERE vt > ${SEEN_AT} AND read_ct = 0) AS delayed,
  count(*) AS total,
  extract(epoch FROM ${SEEN_AT} - min(enqueued_at)) AS oldest,
  extract(epoch FROM ${SEEN_AT} - max(enqueued_at)) AS newest,
  false AS estimated,
  ${groups ? `count(DISTINCT ${GROUP_KEY})` : 'NULL::bigint'} AS groups
FROM ${rel}`;

const liveTuples = (rel: string) => `pg_stat_get_live_tuples(${escapeLiteral(rel)}::regclass)`;

// A large queue's groups: among its oldest messages only (read through the msg_id index).
const sampledGroups = (rel: string) =>
  `(SELECT count(DISTINCT g) FROM (SELECT ${GROUP_KEY} AS g FROM ${rel} ORDER BY msg_id LIMIT ${GROUPS_SAMPLE}) s)`;

const estimatedStats = (
  rel: string,
  groups: boolean,
) => `SELECT greatest(${liveTuples(rel)} - i.inflight - i.delayed, 0) AS ready, i.inflight, i.delayed,
  greatest(${liveTuples(rel)}, i.inflight + i.delayed) AS total,
  (SELECT extract(epoch FROM ${SEEN_AT} - enqueued_at) FROM ${rel} ORDER BY msg_id LIMIT 1) AS oldest,
  (SELECT extract(epoch FROM ${SEEN_AT} - enqueued_at) FROM ${rel} ORDER BY msg_id DESC LIMIT 1) AS newest,
  true AS estimated,
  ${groups ? sampledGroups(rel) : 'NULL::bigint'} AS groups
FROM (SELECT count(*) FILTER (WHERE read_ct > 0) AS inflight, count(*) FILTER (WHERE read_ct = 0) AS delayed
      FROM ${rel} WHERE vt > ${SEEN_AT}) i`;

/**
 * Step 2 for up to STATS_CHUNK queues: one row per target, `i` its index in `targets`.
 * The text depends only on the set of queues and which are estimated, not on any count, so
 * it is named and prepared: planning a union over a hundred tables costs more than running
 * it, and a refresh of an unchanged list then reuses the plan. With `groups` (pgmq 1.9+) each
 * queue's count of FIFO groups too, in the same scan.
 */
export function queueStatsQuery(targets: readonly StatsTarget[], groups = false): Query {
  const parts = targets.map((t, i) => {
    const stats = t.estimate ? estimatedStats(t.qrel, groups) : exactStats(t.qrel, groups);
    let archived = 'NULL::bigint';
    if (t.arel !== null) archived = t.estimateArchive ? liveTuples(t.arel) : `(SELECT count(*) FROM ${t.arel})`;
    return `SELECT ${i} AS i, s.*, ${archived} AS archived, ${t.estimateArchive} AS archived_estimated FROM (${stats}) s`;
  });
  const text = `/* smq:queue-stats */\n${parts.join('\nUNION ALL\n')}`;
  return { text, values: [], name: `smq_stats_${createHash('sha1').update(text).digest('hex').slice(0, 20)}` };
}

/**
 * The queue a name stands for, as pgmq resolves it: by the lower-cased name its tables carry
 * ('Orders' is the queue 'orders'). One row, the name as stored in pgmq.meta (the exact
 * spelling first, where another client stored two) and the server-quoted name of its live
 * table (null when the table is missing); no row when there is no such queue.
 */
export function queueTableQuery(queue: string): Query {
  return {
    text: `SELECT m.queue_name, to_regclass(format('pgmq.%I', 'q_' || lower(m.queue_name)))::text AS rel
           FROM pgmq.meta m WHERE lower(m.queue_name) = lower($1::text)
           ORDER BY m.queue_name = $1::text DESC, m.queue_name LIMIT 1`,
    values: [queue],
  };
}
