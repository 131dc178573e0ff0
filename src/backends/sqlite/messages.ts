// SmoothMQ messages: send, receive (safe and naive), delete, visibility and peek.
// better-sqlite3 is synchronous: these are plain functions; the backend makes them async.
import { invalidInput } from '../../errors.js';
import { validateQueueName } from '../names.js';
import type { CountBeforeOptions, Message, MessageId, PeekOptions, ReceiveOptions, SendInput } from '../types.js';
import * as validate from '../validate.js';
import { DATA_TYPE_SUFFIX, idsJson, inInputOrder, STRING_DATA_TYPE, unixNow, type MessageRow } from './rows.js';
import type { SqliteSession } from './session.js';
import * as SQL from './sql.js';

// One shared cell to sleep on: Atomics.wait blocks the current thread (main or worker).
const pauseCell = new Int32Array(new SharedArrayBuffer(4));
function blockingPause(ms: number): void {
  if (ms > 0) Atomics.wait(pauseCell, 0, 0, ms);
}

function checkAttributes(headers: SendInput['headers']): [string, string][] {
  if (headers === undefined) return [];
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    throw invalidInput('attributes must be an object of name -> text');
  }
  const entries = Object.entries(headers);
  for (const [k, v] of entries) {
    if (k === '') throw invalidInput('an attribute name is empty');
    if (k.endsWith(DATA_TYPE_SUFFIX)) {
      throw invalidInput(
        `attribute name ${JSON.stringify(k)} ends in ${DATA_TYPE_SUFFIX}`,
        'SmoothMQ keeps attribute types under that suffix; choose another name',
      );
    }
    if (typeof v !== 'string') throw invalidInput(`attribute ${JSON.stringify(k)} must be text`);
  }
  return entries;
}

export function sendBatch(s: SqliteSession, queue: string, messages: readonly SendInput[]): MessageId[] {
  const name = validateQueueName('sqlite', queue);
  const delays = validate.sendInputs(messages);
  const prepared = messages.map((m, i) => ({ body: m.body, delay: BigInt(delays[i]!), attributes: checkAttributes(m.headers) }));
  return s.run(() =>
    s.withFreshIds(() =>
      s.writeTx(() => {
        const q = s.requireQueue(name);
        const now = unixNow();
        const insertMessage = s.stmt(SQL.INSERT_MESSAGE);
        const insertKv = s.stmt(SQL.INSERT_KV);
        const ids: bigint[] = [];
        for (const m of prepared) {
          const id = s.snowflakes.next();
          insertMessage.run({
            id,
            tenant: s.tenant,
            queue: q.id,
            deliverAt: now + m.delay,
            maxTries: q.maxRetries,
            body: m.body,
          });
          for (const [k, v] of m.attributes) {
            const row = { tenant: s.tenant, queue: q.id, message: id };
            insertKv.run({ ...row, k, v });
            insertKv.run({ ...row, k: k + DATA_TYPE_SUFFIX, v: STRING_DATA_TYPE });
          }
          ids.push(id);
        }
        return ids;
      }),
    ),
  );
}

export function receive(s: SqliteSession, queue: string, options: ReceiveOptions): Message[] {
  const name = validateQueueName('sqlite', queue);
  const { qty, vtSec, dequeue: mode, naivePauseMs: pauseMs } = validate.receiveOptions(options);
  if (options.pollSec !== undefined) throw invalidInput('SmoothMQ has no read with poll', 'receive without a poll time');
  const vtOverride = vtSec === undefined ? undefined : BigInt(vtSec);
  const runId = options.runId;
  return s.run(() =>
    mode === 'safe' ? claimSafely(s, name, qty, vtOverride, runId) : claimNaively(s, name, qty, vtOverride, pauseMs, runId),
  );
}

/** One BEGIN IMMEDIATE transaction: choose, claim and read attributes under the write lock. */
function claimSafely(s: SqliteSession, name: string, qty: number, vtOverride: bigint | undefined, runId: string | undefined): Message[] {
  return s.writeTx(() => {
    const q = s.requireQueue(name);
    const now = unixNow();
    const limit = s.rateAllowance(q, now, qty);
    if (limit === 0) return [];
    const vt = vtOverride ?? q.visibilityTimeoutSec;
    const params = { tenant: s.tenant, queue: q.id, now, visibleAt: now + vt, limit: BigInt(limit) };
    const rows =
      runId === undefined
        ? s.stmt<MessageRow>(SQL.CLAIM_MESSAGES).all(params)
        : s.stmt<MessageRow>(SQL.CLAIM_RUN_MESSAGES).all({ ...params, runId });
    rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    s.recordRate(q, now, rows.length);
    return s.toMessages(q, rows, now);
  });
}

/**
 * SmoothMQ's own dequeue, deliberately unsafe across connections: SELECT the candidates,
 * then UPDATE them by id in a separate statement without checking they are still visible.
 * Two connections that select in the same window both get the same messages.
 */
function claimNaively(
  s: SqliteSession,
  name: string,
  qty: number,
  vtOverride: bigint | undefined,
  pauseMs: number,
  runId: string | undefined,
): Message[] {
  const q = s.requireQueue(name);
  const now = unixNow();
  const limit = s.rateAllowance(q, now, qty);
  if (limit === 0) return [];
  const key = { tenant: s.tenant, queue: q.id };
  const candidates =
    runId === undefined
      ? s.column<bigint>(SQL.NAIVE_SELECT_CANDIDATES).all({ ...key, now, limit: BigInt(limit) })
      : s.column<bigint>(SQL.NAIVE_SELECT_RUN_CANDIDATES).all({ ...key, now, limit: BigInt(limit), runId });
  if (candidates.length === 0) return [];
  blockingPause(pauseMs);
  const vt = vtOverride ?? q.visibilityTimeoutSec;
  const rows = s.stmt<MessageRow>(SQL.NAIVE_UPDATE_BY_ID).all({ ...key, now, visibleAt: now + vt, ids: idsJson(candidates) });
  rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  s.recordRate(q, now, rows.length);
  return s.toMessages(q, rows, now);
}

export function deleteMessages(s: SqliteSession, queue: string, ids: readonly MessageId[]): MessageId[] {
  const name = validateQueueName('sqlite', queue);
  const wanted = validate.messageIds(ids);
  return s.run(() =>
    s.writeTx(() => {
      const q = s.requireQueue(name);
      if (wanted.length === 0) return [];
      const key = { tenant: s.tenant, queue: q.id };
      const deleted = s.column<bigint>(SQL.DELETE_MESSAGES).all({ ...key, ids: idsJson(wanted) });
      if (deleted.length > 0) s.stmt(SQL.DELETE_MESSAGE_KVS).run({ ...key, ids: idsJson(deleted) });
      return inInputOrder(wanted, deleted);
    }),
  );
}

export function setVisibility(s: SqliteSession, queue: string, ids: readonly MessageId[], vtSec: number): MessageId[] {
  const name = validateQueueName('sqlite', queue);
  const wanted = validate.messageIds(ids);
  const vt = BigInt(validate.wholeSeconds(vtSec, 'visibility timeout'));
  return s.run(() =>
    s.writeTx(() => {
      const q = s.requireQueue(name);
      if (wanted.length === 0) return [];
      const changed = s
        .column<bigint>(SQL.SET_VISIBILITY)
        .all({ tenant: s.tenant, queue: q.id, visibleAt: unixNow() + vt, ids: idsJson(wanted) });
      return inInputOrder(wanted, changed);
    }),
  );
}

export function countBefore(s: SqliteSession, queue: string, options: CountBeforeOptions): number {
  const name = validateQueueName('sqlite', queue);
  const { state, order, afterId } = validate.peekOptions({ limit: 1, state: options.state, order: options.order, afterId: options.id });
  return s.run(() => {
    const q = s.requireQueue(name);
    const sql = order === 'oldest' ? SQL.COUNT_BEFORE_OLDEST : SQL.COUNT_BEFORE_NEWEST;
    const n = s.stmt<{ n: number | bigint }>(sql).get({ tenant: s.tenant, queue: q.id, now: unixNow(), state, id: afterId! });
    return Number(n?.n ?? 0);
  });
}

export function peek(s: SqliteSession, queue: string, options: PeekOptions): Message[] {
  const name = validateQueueName('sqlite', queue);
  const { limit, state, order, afterId, id } = validate.peekOptions(options);
  const after = afterId ?? null;

  // A deferred transaction: one consistent snapshot for messages and their attributes,
  // and nothing but SELECTs inside.
  return s.run(() =>
    s.db
      .transaction(() => {
        const q = s.requireQueue(name);
        const now = unixNow();
        const params = { tenant: s.tenant, queue: q.id, now, state };
        let rows: MessageRow[];
        if (id !== undefined) {
          rows = s.stmt<MessageRow>(SQL.PEEK_ONE).all({ ...params, id });
        } else {
          const sql = order === 'oldest' ? SQL.PEEK_OLDEST : SQL.PEEK_NEWEST;
          rows = s.stmt<MessageRow>(sql).all({ ...params, after, limit: BigInt(limit) });
        }
        return s.toMessages(q, rows, now);
      })
      .deferred(),
  );
}
