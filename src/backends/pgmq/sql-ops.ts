// SQL for top's operator actions on pgmq (ops.ts): counting a selection, acting on it, moving
// it between a queue, its archive and other queues, and reading the archive. Pure functions;
// table names are server-quoted (regclass output), every value is bound.
import { invalidInput } from '../../errors.js';
import type { MessageSelection, MessageSource, PeekOptions } from '../types.js';
import { STATE_WHERE, type Columns, type Query } from './sql.js';

/** The server-quoted archive table of a queue (null when missing); no row when there is no such queue. */
export function archiveTableQuery(queue: string): Query {
  return {
    text: `SELECT m.queue_name, to_regclass(format('pgmq.%I', 'a_' || lower(m.queue_name)))::text AS rel
           FROM pgmq.meta m WHERE lower(m.queue_name) = lower($1::text)
           ORDER BY m.queue_name = $1::text DESC, m.queue_name LIMIT 1`,
    values: [queue],
  };
}

/**
 * The WHERE condition of a selection, its values bound from $`first` on. The archive has no
 * states: only 'all' is taken there.
 */
export function selectionWhere(sel: MessageSelection, source: MessageSource, first: number): { cond: string; values: unknown[] } {
  const state = sel.state ?? 'all';
  if (state === 'failed') throw invalidInput('pgmq has no failed state', 'use ready, inflight, delayed or all');
  if (!Object.hasOwn(STATE_WHERE, state))
    throw invalidInput(`unknown state ${JSON.stringify(state)}`, 'use ready, inflight, delayed or all');
  if (source === 'archive' && state !== 'all') throw invalidInput('archived messages have no state', 'select all of them');
  if (sel.kind === 'ids') {
    const still = state === 'all' ? '' : ` AND ${STATE_WHERE[state]}`;
    return { cond: `msg_id = ANY($${first}::bigint[])${still}`, values: [sel.ids.map(String)] };
  }
  const cond = `${STATE_WHERE[state]} AND read_ct >= $${first}::int AND ($${first + 1}::bigint IS NULL OR msg_id <= $${first + 1}::bigint)`;
  return { cond, values: [sel.minReadCount ?? 0, sel.maxId?.toString() ?? null] };
}

export function countSelectedQuery(rel: string, sel: MessageSelection, source: MessageSource): Query {
  const w = selectionWhere(sel, source, 1);
  return { text: `SELECT count(*)::bigint AS n FROM ${rel} WHERE ${w.cond}`, values: w.values };
}

/** The ids of a selection, oldest first, at most `limit`. */
export function selectedIdsQuery(rel: string, sel: MessageSelection, source: MessageSource, limit: number): Query {
  const w = selectionWhere(sel, source, 2);
  return { text: `SELECT msg_id::text AS id FROM ${rel} WHERE ${w.cond} ORDER BY msg_id LIMIT $1::int`, values: [limit, ...w.values] };
}

/**
 * Delete or archive through pgmq's own functions (they know the archive's columns on every
 * version), with the ids chosen by the selection; make visible where not visible yet.
 */
export function actOnQuery(queue: string, rel: string, action: 'delete' | 'archive' | 'makeVisible', sel: MessageSelection): Query {
  if (action === 'makeVisible') {
    const w = selectionWhere(sel, 'queue', 1);
    return {
      text: `WITH changed AS (UPDATE ${rel} SET vt = clock_timestamp() WHERE ${w.cond} AND vt > clock_timestamp() RETURNING 1)
SELECT count(*)::bigint AS n FROM changed`,
      values: w.values,
    };
  }
  const w = selectionWhere(sel, 'queue', 2);
  const fn = action === 'delete' ? 'pgmq.delete' : 'pgmq.archive';
  // FOR UPDATE: a row a consumer is reading is waited for and its state checked again once
  // the read commits, so "ready" marks never take a message the consumer has just taken.
  return {
    text: `SELECT count(*)::bigint AS n FROM ${fn}($1::text, ARRAY(SELECT msg_id FROM ${rel} WHERE ${w.cond} ORDER BY msg_id FOR UPDATE))`,
    values: [queue, ...w.values],
  };
}

/**
 * Moves up to `limit` messages of the selection from `from` (a live or archive table) to the
 * live table `to`, in one statement, so in one transaction: the rows are deleted from the
 * source and inserted into the target together, or neither. Rows another session holds
 * (a consumer's read in progress) are skipped, not waited for. The moved messages are new in
 * the target: new ids, visible now, read count 0, body and headers as they were.
 */
export function moveChunkQuery(
  from: string,
  to: string,
  cols: Columns,
  sel: MessageSelection,
  source: MessageSource,
  limit: number,
): Query {
  const w = selectionWhere(sel, source, 2);
  const h = cols.headers ? ', headers' : '';
  return {
    text: `WITH picked AS (
  SELECT msg_id FROM ${from} WHERE ${w.cond} ORDER BY msg_id LIMIT $1::int FOR UPDATE SKIP LOCKED
), moved AS (
  DELETE FROM ${from} src USING picked WHERE src.msg_id = picked.msg_id RETURNING src.msg_id, src.message${h ? ', src.headers' : ''}
), inserted AS (
  INSERT INTO ${to} (vt, message${h}) SELECT clock_timestamp(), message${h} FROM moved ORDER BY msg_id RETURNING 1
)
SELECT count(*)::bigint AS n FROM inserted`,
    values: [limit, ...w.values],
  };
}

/** The highest id of a table now: a filter's moves stop there (new messages keep arriving). */
export function maxIdQuery(rel: string): Query {
  return { text: `SELECT max(msg_id)::text AS id FROM ${rel}`, values: [] };
}

/** A page of the archive, as peekQuery reads the live table (plus archived_at). */
export function peekArchiveQuery(rel: string, cols: Columns, options: PeekOptions): Query {
  const newest = options.order === 'newest';
  const text = `SELECT msg_id, read_ct, enqueued_at, vt, message::text AS message,
  ${cols.headers ? 'headers' : 'NULL::jsonb AS headers'}, NULL::timestamptz AS last_read_at, archived_at
FROM ${rel}
WHERE ($1::bigint IS NULL OR msg_id = $1::bigint)
  AND ($2::bigint IS NULL OR msg_id ${newest ? '<' : '>'} $2::bigint)
ORDER BY msg_id ${newest ? 'DESC' : 'ASC'}
LIMIT $3::int`;
  return { text, values: [options.id?.toString() ?? null, options.afterId?.toString() ?? null, options.limit] };
}
