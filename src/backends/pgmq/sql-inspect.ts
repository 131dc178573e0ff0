// SQL for what top asks about rather than changes: whether this role may change queues
// (writePrivileges). Values are bound; table names come from the server's own catalog.
import type { SearchMode } from '../search.js';
import { messageColumns, STATE_CASE, type Columns, type Query } from './sql.js';

/**
 * One row: the role, whether the server or the session is read-only, how many queue tables
 * (pgmq.q_*) there are and on how many of them the role may DELETE or UPDATE (what top's
 * delete, archive and make-visible do), and EXECUTE on pgmq.delete (NULL when it is absent).
 */
export const WRITE_PRIVILEGES: Query = {
  text: `/* smq:write-privileges */
SELECT current_user::text AS role,
       pg_is_in_recovery() AS standby,
       current_setting('transaction_read_only') = 'on' AS session_read_only,
       count(c.oid)::int AS tables,
       count(c.oid) FILTER (WHERE has_table_privilege(c.oid, 'DELETE') OR has_table_privilege(c.oid, 'UPDATE'))::int AS writable,
       has_function_privilege(to_regprocedure('pgmq.delete(text,bigint[])'), 'EXECUTE') AS delete_fn
FROM (SELECT 1) one
LEFT JOIN pg_class c ON c.relnamespace = to_regnamespace('pgmq') AND c.relname LIKE 'q\\_%' AND c.relkind IN ('r', 'p')`,
  values: [],
};

/**
 * One step of a search (searchMessages): the next `$2` rows by id after `$1`, how many and the
 * last id, and of them those matching `$3` (a jsonb object contained in the body or headers,
 * or an ILIKE pattern on their text), at most `$4`. `rel`: the server-quoted table name.
 */
export function searchQuery(
  rel: string,
  cols: Columns,
  mode: SearchMode,
  options: { afterId: bigint | null; scan: number; limit: number },
): Query {
  const match =
    mode.kind === 'json'
      ? `(message @> $3::jsonb${cols.headers ? ' OR headers @> $3::jsonb' : ''})`
      : `(message::text ILIKE $3::text ESCAPE '\\'${cols.headers ? " OR coalesce(headers::text, '') ILIKE $3::text ESCAPE '\\'" : ''})`;
  const text = `/* smq:search */
WITH page AS (
  SELECT * FROM ${rel} WHERE ($1::bigint IS NULL OR msg_id > $1::bigint) ORDER BY msg_id LIMIT $2::int
), hits AS (
  SELECT ${messageColumns(cols)}, ${STATE_CASE} AS state FROM page WHERE ${match} ORDER BY msg_id LIMIT $4::int
)
SELECT s.last_id, s.scanned, h.*
FROM (SELECT max(msg_id)::text AS last_id, count(*)::int AS scanned FROM page) s
LEFT JOIN hits h ON true
ORDER BY h.msg_id`;
  return { text, values: [options.afterId, options.scan, mode.kind === 'json' ? mode.json : mode.pattern, options.limit] };
}

/**
 * A queue's meta row, and with `notify` (pgmq 1.7+) its insert notification throttle (NULL: off).
 * The name matches as pgmq.meta keeps it, any letter case (as queueTableQuery).
 */
export function queueMetaQuery(queue: string, notify: boolean): Query {
  const throttle = notify
    ? `(SELECT n.throttle_interval_ms FROM pgmq.notify_insert_throttle n WHERE n.queue_name = m.queue_name LIMIT 1)`
    : 'NULL::integer';
  return {
    text: `/* smq:queue-details */
SELECT m.queue_name::text AS name, m.created_at, m.is_unlogged, m.is_partitioned, ${throttle} AS throttle_ms
FROM pgmq.meta m WHERE lower(m.queue_name) = lower($1::text)
ORDER BY m.queue_name = $1::text DESC LIMIT 1`,
    values: [queue],
  };
}

/**
 * The queue's q_ and a_ tables: sizes (partitions summed), the statistics collector's tuples
 * and vacuum times, and each index with its definition. `$1`: the name as pgmq.meta keeps it.
 */
export const QUEUE_TABLES_TEXT = `/* smq:queue-tables */
SELECT CASE WHEN c.relname LIKE 'q\\_%' THEN 'queue' ELSE 'archive' END AS role,
       c.oid::regclass::text AS name,
       CASE WHEN c.relkind = 'p' THEN (SELECT coalesce(sum(pg_table_size(t.relid)), 0) FROM pg_partition_tree(c.oid) t)
            ELSE pg_table_size(c.oid) END::bigint::text AS table_bytes,
       CASE WHEN c.relkind = 'p' THEN (SELECT coalesce(sum(pg_indexes_size(t.relid)), 0) FROM pg_partition_tree(c.oid) t)
            ELSE pg_indexes_size(c.oid) END::bigint::text AS index_bytes,
       s.n_live_tup::text AS live, s.n_dead_tup::text AS dead,
       s.last_autovacuum, s.last_vacuum, s.last_autoanalyze,
       coalesce((SELECT json_agg(json_build_object('name', i.relname, 'def', pg_get_indexdef(x.indexrelid)) ORDER BY i.relname)
                 FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = c.oid), '[]'::json) AS indexes
FROM pg_class c
LEFT JOIN pg_stat_all_tables s ON s.relid = c.oid
WHERE c.relnamespace = to_regnamespace('pgmq')
  AND c.relname IN ('q_' || lower($1::text), 'a_' || lower($1::text))
  AND c.relkind IN ('r', 'p')
ORDER BY 1 DESC`;
