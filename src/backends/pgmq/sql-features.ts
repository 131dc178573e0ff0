// SQL of pgmq 1.9–1.13's features (features.ts): grouped reads, a queue's groups, topics and
// insert notifications. Every value is bound; table names come from queueTableQuery.
import { messageColumns, SEEN_AT, type Columns, type Query } from './sql.js';
import type { GroupedRead } from '../types.js';

const GROUPED_FUNCTION: Record<GroupedRead, string> = {
  grouped: 'pgmq.read_grouped',
  'grouped-rr': 'pgmq.read_grouped_rr',
  'grouped-head': 'pgmq.read_grouped_head',
};

/** pollSec: the _with_poll form, waiting up to that long (pgmq's own poll interval, 100 ms). */
export function readGroupedQuery(mode: GroupedRead, queue: string, vtSec: number, qty: number, cols: Columns, pollSec?: number): Query {
  // The mode picks a fixed function name; anything else is refused by the caller first.
  if (pollSec !== undefined) {
    return {
      text: `SELECT ${messageColumns(cols, 'r')} FROM ${GROUPED_FUNCTION[mode]}_with_poll($1::text, $2::integer, $3::integer, $4::integer) r`,
      values: [queue, vtSec, qty, pollSec],
    };
  }
  return {
    text: `SELECT ${messageColumns(cols, 'r')} FROM ${GROUPED_FUNCTION[mode]}($1::text, $2::integer, $3::integer) r`,
    values: [queue, vtSec, qty],
  };
}

/**
 * One row per group of a queue (the x-pgmq-group header as text, as pgmq groups; NULL: the
 * messages without it), oldest head first, with the head message's state and read count.
 * One scan of the queue table and a look-up of each head by id.
 */
export function groupsQuery(rel: string, cols: Columns): Query {
  return {
    text: `SELECT g.grp, g.ready, g.inflight, g.delayed, h.msg_id::text AS head_id, h.read_ct AS head_read_ct,
       CASE WHEN h.vt <= ${SEEN_AT} THEN 'ready' WHEN h.read_ct > 0 THEN 'inflight' ELSE 'delayed' END AS head_state,
       h.enqueued_at AS head_enqueued_at, h.vt AS head_vt,
       ${cols.lastReadAt ? 'h.last_read_at' : 'NULL::timestamptz'} AS head_last_read_at
FROM (SELECT headers->>'x-pgmq-group' AS grp,
             count(*) FILTER (WHERE vt <= ${SEEN_AT}) AS ready,
             count(*) FILTER (WHERE vt > ${SEEN_AT} AND read_ct > 0) AS inflight,
             count(*) FILTER (WHERE vt > ${SEEN_AT} AND read_ct = 0) AS delayed,
             min(msg_id) AS head
      FROM ${rel} GROUP BY 1) g
JOIN ${rel} h ON h.msg_id = g.head
ORDER BY g.head`,
    values: [],
  };
}

/** Many messages to a routing key, one delay: (queue_name, msg_id) per message per queue reached. */
export function sendBatchTopicQuery(
  routingKey: string,
  bodies: readonly string[],
  headers: readonly (string | null)[],
  delaySec: number,
): Query {
  return {
    text: 'SELECT queue_name::text, msg_id::text FROM pgmq.send_batch_topic($1::text, $2::jsonb[], $3::jsonb[], $4::integer)',
    values: [routingKey, bodies, headers, delaySec],
  };
}

export const TOPIC_BINDINGS: Query = {
  text: 'SELECT pattern, queue_name, bound_at FROM pgmq.list_topic_bindings() ORDER BY pattern, queue_name',
  values: [],
};

/** The bindings a routing key matches, with when each was bound (test_routing has no bound_at). */
export function testRoutingQuery(routingKey: string): Query {
  return {
    text: `SELECT r.pattern, r.queue_name, b.bound_at
FROM pgmq.test_routing($1::text) r
LEFT JOIN pgmq.topic_bindings b ON b.pattern = r.pattern AND b.queue_name = r.queue_name
ORDER BY r.queue_name, r.pattern`,
    values: [routingKey],
  };
}

/** Binds (idempotent); `had`: the binding existed before (the statement's snapshot predates the insert). */
export function bindTopicQuery(pattern: string, queue: string): Query {
  return {
    text: `SELECT EXISTS (SELECT 1 FROM pgmq.topic_bindings b WHERE b.pattern = $1::text AND b.queue_name = $2::text) AS had,
       pgmq.bind_topic($1::text, $2::text)::text AS done`,
    values: [pattern, queue],
  };
}

/** pgmq's unbind_topic takes any pattern: a malformed one is refused first, as bind_topic does. */
export function unbindTopicQuery(pattern: string, queue: string): Query {
  return {
    text: 'SELECT pgmq.validate_topic_pattern($1::text) AS valid, pgmq.unbind_topic($1::text, $2::text) AS removed',
    values: [pattern, queue],
  };
}

export function enableNotifyQuery(queue: string, throttleMs: number): Query {
  return { text: 'SELECT pgmq.enable_notify_insert($1::text, $2::integer)::text AS done', values: [queue, throttleMs] };
}

export function disableNotifyQuery(queue: string): Query {
  return { text: 'SELECT pgmq.disable_notify_insert($1::text)::text AS done', values: [queue] };
}

export const NOTIFY_SETTINGS: Query = {
  text: 'SELECT queue_name::text, throttle_interval_ms, last_notified_at FROM pgmq.list_notify_insert_throttles() ORDER BY queue_name',
  values: [],
};
