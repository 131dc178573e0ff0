// pgmq queue administration: listing with stats, create, drop and purge.
import { QueueNotEmptyError, SmqError, queueNotFound } from '../../errors.js';
import type { Capabilities, CreateQueueOptions, DropQueueOptions, ListQueuesOptions, QueueStats } from '../types.js';
import { toNumber, type PgmqSession } from './session.js';
import * as sql from './sql.js';

// Above this many live rows a queue's counts are estimated (marked ~) in listings: a refresh
// of many queues then costs index look-ups, not scans. One queue's stats count further.
const DEFAULT_EXACT_THRESHOLD = 1_000;
const SINGLE_QUEUE_EXACT_THRESHOLD = 100_000;
/** Distinct stats statements a backend prepares at most; later ones run unprepared. */
const MAX_PREPARED_STATS = 64;

/** What a listing says beyond the counts: FIFO groups and insert notifications, where pgmq has them. */
type Extras = Pick<Capabilities, 'groups' | 'notifyInsert'>;
const NO_EXTRAS: Extras = { groups: false, notifyInsert: false };

export async function listQueues(s: PgmqSession, options: ListQueuesOptions = {}, extras: Extras = NO_EXTRAS): Promise<QueueStats[]> {
  return stats(s, null, options.exactThreshold ?? DEFAULT_EXACT_THRESHOLD, extras);
}

export async function queueStats(s: PgmqSession, queue: string, extras: Extras = NO_EXTRAS, exact = false): Promise<QueueStats> {
  const [found] = await stats(s, s.name(queue), exact ? Number.POSITIVE_INFINITY : SINGLE_QUEUE_EXACT_THRESHOLD, extras);
  if (!found) throw queueNotFound(queue);
  return found;
}

/** 1 + ceil(queues / STATS_CHUNK) round trips; see sql.ts for why two steps. */
async function stats(s: PgmqSession, queue: string | null, exactThreshold: number, extras: Extras): Promise<QueueStats[]> {
  const catalog = await s.run<CatalogRow>(sql.queueCatalogQuery(queue, extras.notifyInsert), queue ?? undefined);
  const out: QueueStats[] = [];
  for (let start = 0; start < catalog.length; start += sql.STATS_CHUNK) {
    const chunk = catalog.slice(start, start + sql.STATS_CHUNK);
    const targets = chunk.map((c) => ({
      qrel: c.qrel,
      arel: c.arel,
      estimate: toNumber(c.q_live) > exactThreshold,
      estimateArchive: toNumber(c.a_live) > exactThreshold,
    }));
    const q = sql.queueStatsQuery(targets, extras.groups);
    // Bound the statements prepared on a long-lived connection (queues come and go).
    const named = s.preparedStats.size < MAX_PREPARED_STATS || s.preparedStats.has(q.name!);
    if (named) s.preparedStats.add(q.name!);
    const rows = await s.run<StatsRow>(named ? q : { text: q.text, values: q.values }, queue ?? undefined);
    for (const r of rows) out[start + r.i] = toStats(chunk[r.i]!, r, extras);
  }
  return out.filter((x) => x !== undefined);
}

export async function createQueue(s: PgmqSession, queue: string, options: CreateQueueOptions = {}): Promise<boolean> {
  s.name(queue, 'create');
  const existing = await s.stored(queue);
  if (existing === queue) return false;
  // pgmq names a queue's tables by the lower-cased name: "Orders" beside "orders" (or
  // "ЗАКАЗЫ" beside "заказы") would share one table, and smq's compat schema would
  // create nothing at all. Say so instead of reporting a queue that is not there.
  if (existing !== undefined) {
    throw new SmqError('invalid-queue-name', `queue ${JSON.stringify(queue)} clashes with the existing queue ${JSON.stringify(existing)}`, {
      hint: `pgmq keeps both in one table named by the lower-cased name; use ${JSON.stringify(existing)}`,
    });
  }
  await s.run(sql.createQueueQuery(queue, options.unlogged === true), queue);
  return true;
}

export async function dropQueue(s: PgmqSession, queue: string, options: DropQueueOptions = {}): Promise<void> {
  s.name(queue);
  // pgmq's drop_queue removes the meta row of the exact name it is given: give it the stored one.
  const existing = await s.stored(queue);
  if (existing === undefined) throw queueNotFound(queue);
  s.forgetTables();
  const { atMost } = options;
  if (atMost === undefined) {
    await s.run(sql.dropQueueQuery(existing), queue);
    return;
  }
  // Locked, counted and dropped in one transaction: a send cannot commit in between.
  await s.transaction(queue, async (client) => {
    const run = async <R extends object>(q: sql.Query) => (await client.query<R & Record<string, unknown>>(q.text, q.values)).rows;
    const rel = (await run<{ rel: string | null }>(sql.queueTableQuery(existing)))[0]?.rel;
    if (!rel) throw queueNotFound(queue);
    await run(sql.lockQueueTableQuery(rel));
    const n = toNumber((await run<{ n: string }>(sql.countQueueRowsQuery(rel)))[0]?.n);
    if (n > atMost) throw new QueueNotEmptyError(queue, n, atMost);
    await run(sql.dropQueueQuery(existing));
  });
}

export async function purgeQueue(s: PgmqSession, queue: string): Promise<number> {
  s.name(queue);
  const existing = await s.stored(queue);
  if (existing === undefined) throw queueNotFound(queue);
  const rows = await s.run<{ n: string }>(sql.purgeQueueQuery(existing), queue);
  return toNumber(rows[0]?.n);
}

interface CatalogRow {
  queue_name: string;
  is_partitioned: boolean;
  is_unlogged: boolean;
  created_at: Date | null;
  qrel: string;
  arel: string | null;
  q_live: string | null;
  a_live: string | null;
  q_inserted: string | null;
  q_deleted: string | null;
  notify_ms: number | null;
}

interface StatsRow {
  i: number;
  ready: string | null;
  inflight: string | null;
  delayed: string | null;
  total: string | null;
  oldest: string | null;
  newest: string | null;
  estimated: boolean | null;
  archived: string | null;
  archived_estimated: boolean | null;
  groups: string | null;
}

const age = (v: string | null): number | null => (v === null ? null : Math.max(0, Number(v)));

function toStats(c: CatalogRow, r: StatsRow, extras: Extras): QueueStats {
  return {
    name: c.queue_name,
    ready: toNumber(r.ready),
    inFlight: toNumber(r.inflight),
    delayed: toNumber(r.delayed),
    total: toNumber(r.total),
    archived: toNumber(r.archived),
    oldestAgeSec: age(r.oldest),
    newestAgeSec: age(r.newest),
    estimated: Boolean(r.estimated) || Boolean(r.archived_estimated),
    createdAt: c.created_at,
    isUnlogged: c.is_unlogged,
    isPartitioned: c.is_partitioned,
    insertedTotal: c.q_inserted === null ? undefined : toNumber(c.q_inserted),
    removedTotal: c.q_deleted === null ? undefined : toNumber(c.q_deleted),
    ...(extras.groups ? { groups: toNumber(r.groups) } : {}),
    ...(extras.notifyInsert ? { notifyThrottleMs: c.notify_ms } : {}),
  };
}
