// pgmq 1.9–1.13's features behind optional Backend methods: grouped reads and a queue's
// FIFO groups, topic routing, insert notifications. Each checks the capability first (a
// caller other than the commands gets the same one line) and goes through pgmq's own functions.
import { invalidInput, queueNotFound } from '../../errors.js';
import type {
  Capabilities,
  GroupStats,
  GroupedRead,
  Message,
  MessageState,
  NotifyInsertSetting,
  ReceiveOptions,
  SendInput,
  TopicBinding,
  TopicDelivery,
} from '../types.js';
import { GROUPED_READS } from '../types.js';
import { need } from '../features.js';
import * as validate from '../validate.js';
import { toMessage, type MessageRow } from './messages.js';
import { toNumber, type PgmqSession } from './session.js';
import type { Query } from './sql.js';
import * as sql from './sql-features.js';

/** Topic sends per statement (as smq send's batches). */
const TOPIC_CHUNK = 500;

export async function receiveGrouped(
  s: PgmqSession,
  caps: Capabilities,
  queue: string,
  mode: GroupedRead,
  options: Pick<ReceiveOptions, 'qty' | 'vtSec' | 'pollSec'>,
): Promise<Message[]> {
  if (!(GROUPED_READS as readonly string[]).includes(mode)) {
    throw invalidInput(`unknown grouped read ${JSON.stringify(mode)}`, `use ${GROUPED_READS.join(', ')}`);
  }
  need(caps, mode === 'grouped-head' ? 'groupedHead' : 'groups');
  s.name(queue);
  const checked = validate.receiveOptions({
    qty: options.qty,
    ...(options.vtSec === undefined ? {} : { vtSec: options.vtSec }),
    ...(options.pollSec === undefined ? {} : { pollSec: options.pollSec }),
  });
  const vt = checked.vtSec ?? validate.DEFAULT_VT_SEC;
  // pgmq's functions on a missing queue raise an error the mapper may not name: look first.
  await s.table(queue);
  const rows = await s.run<MessageRow>(sql.readGroupedQuery(mode, queue, vt, checked.qty, s.columns, checked.pollSec), queue);
  return rows.map((r) => toMessage(r, 'inflight'));
}

interface GroupRow {
  grp: string | null;
  ready: string;
  inflight: string;
  delayed: string;
  head_id: string;
  head_read_ct: number;
  head_state: MessageState;
  head_enqueued_at: Date | null;
  head_vt: Date;
  head_last_read_at: Date | null;
}

export async function groups(s: PgmqSession, caps: Capabilities, queue: string): Promise<GroupStats[]> {
  need(caps, 'groups');
  const rel = await s.table(queue);
  const rows = await s.run<GroupRow>(sql.groupsQuery(rel, s.columns), queue);
  return rows.map((r) => ({
    group: r.grp,
    ready: toNumber(r.ready),
    inFlight: toNumber(r.inflight),
    delayed: toNumber(r.delayed),
    headId: BigInt(r.head_id),
    headState: r.head_state,
    headReadCount: r.head_read_ct,
    headEnqueuedAt: r.head_enqueued_at,
    headVisibleAt: r.head_vt,
    headLastReadAt: r.head_last_read_at,
  }));
}

export async function sendTopic(
  s: PgmqSession,
  caps: Capabilities,
  routingKey: string,
  messages: readonly SendInput[],
): Promise<TopicDelivery[]> {
  need(caps, 'topics');
  const delays = validate.sendInputs(messages);
  if (messages.length === 0) return [];
  // Runs of one delay, each in chunks: one statement each, all in one transaction.
  const statements: Query[] = [];
  let start = 0;
  for (let i = 1; i <= messages.length; i++) {
    if (i < messages.length && delays[i] === delays[start] && i - start < TOPIC_CHUNK) continue;
    const run = messages.slice(start, i);
    statements.push(
      sql.sendBatchTopicQuery(
        routingKey,
        run.map((m) => m.body),
        run.map((m) => (m.headers ? JSON.stringify(m.headers) : null)),
        delays[start]!,
      ),
    );
    start = i;
  }
  const run = async (q: Query, query: (q: Query) => Promise<{ queue_name: string; msg_id: string }[]>) =>
    (await query(q)).map((r) => ({ queue: r.queue_name, id: BigInt(r.msg_id) }));
  if (statements.length === 1) return run(statements[0]!, (q) => s.run(q));
  return s.transaction(undefined, async (client) => {
    const out: TopicDelivery[] = [];
    for (const q of statements)
      out.push(...(await run(q, async (x) => (await client.query<{ queue_name: string; msg_id: string }>(x.text, x.values)).rows)));
    return out;
  });
}

export async function topicBindings(s: PgmqSession, caps: Capabilities): Promise<TopicBinding[]> {
  need(caps, 'topics');
  const rows = await s.run<{ pattern: string; queue_name: string; bound_at: Date | null }>(sql.TOPIC_BINDINGS);
  return rows.map((r) => ({ pattern: r.pattern, queue: r.queue_name, boundAt: r.bound_at }));
}

export async function testRouting(s: PgmqSession, caps: Capabilities, routingKey: string): Promise<TopicBinding[]> {
  need(caps, 'topics');
  const rows = await s.run<{ pattern: string; queue_name: string; bound_at: Date | null }>(sql.testRoutingQuery(routingKey));
  return rows.map((r) => ({ pattern: r.pattern, queue: r.queue_name, boundAt: r.bound_at }));
}

export async function bindTopic(s: PgmqSession, caps: Capabilities, pattern: string, queue: string): Promise<boolean> {
  need(caps, 'topics');
  const stored = await storedName(s, queue);
  const rows = await s.run<{ had: boolean }>(sql.bindTopicQuery(pattern, stored), queue);
  return !rows[0]!.had;
}

export async function unbindTopic(s: PgmqSession, caps: Capabilities, pattern: string, queue: string): Promise<boolean> {
  need(caps, 'topics');
  const stored = await storedName(s, queue);
  const rows = await s.run<{ removed: boolean }>(sql.unbindTopicQuery(pattern, stored), queue);
  return rows[0]!.removed;
}

/** The name pgmq.meta keeps for the queue (bindings and notification settings use it); exit 3 when none. */
export async function storedName(s: PgmqSession, queue: string): Promise<string> {
  s.name(queue);
  const stored = await s.stored(queue);
  if (stored === undefined) throw queueNotFound(queue);
  return stored;
}

/** pgmq's channel for a queue's insert notifications: its table's name (lower case). */
export const notifyChannel = (stored: string) => `pgmq.q_${stored.toLowerCase()}.INSERT`;

export async function setNotifyInsert(s: PgmqSession, caps: Capabilities, queue: string, throttleMs: number | null): Promise<void> {
  need(caps, 'notifyInsert');
  if (throttleMs !== null && (!Number.isSafeInteger(throttleMs) || throttleMs < 0 || throttleMs > 2_147_483_647)) {
    throw invalidInput(`invalid throttle ${String(throttleMs)} ms`, 'give a whole number of milliseconds, 0 or more');
  }
  // pgmq keeps the setting under the name as pgmq.meta spells it.
  const stored = await storedName(s, queue);
  await s.run(throttleMs === null ? sql.disableNotifyQuery(stored) : sql.enableNotifyQuery(stored, throttleMs), queue);
}

export async function notifyInsertSettings(s: PgmqSession, caps: Capabilities): Promise<NotifyInsertSetting[]> {
  need(caps, 'notifyInsert');
  const rows = await s.run<{ queue_name: string; throttle_interval_ms: number; last_notified_at: Date | null }>(sql.NOTIFY_SETTINGS);
  return rows.map((r) => ({
    queue: r.queue_name,
    throttleMs: r.throttle_interval_ms,
    // pgmq starts the clock at the epoch: never notified yet.
    lastNotifiedAt: r.last_notified_at === null || r.last_notified_at.getTime() <= 0 ? null : r.last_notified_at,
    channel: notifyChannel(r.queue_name),
  }));
}
