// top's operator actions on a SmoothMQ file: count a selection, delete or make it visible,
// move it to another queue (or, from the failed messages, back to the queue: restore), and
// read the failed messages as the queue's "archive". Each write is one BEGIN IMMEDIATE
// transaction per chunk: a moved message is inserted into the target and deleted from the
// source together, or neither.
import { invalidInput, SmqError } from '../../errors.js';
import { validateQueueName } from '../names.js';
import type { BulkAction, Message, MessageSelection, MessageSource, PeekOptions } from '../types.js';
import * as validate from '../validate.js';
import * as messages from './messages.js';
import { idsJson, unixNow, type ResolvedQueue } from './rows.js';
import type { SqliteSession } from './session.js';
import * as SQL from './sql.js';
import * as OPS from './sql-ops.js';

/** Messages per transaction when moving or deleting a filter's worth. */
export const CHUNK = 500;

interface Bound {
  readonly q: ResolvedQueue;
  readonly params: Record<string, unknown>;
}

/** The statement parameters of a selection; the archive is the failed messages. */
function bind(s: SqliteSession, q: ResolvedQueue, sel: MessageSelection, source: MessageSource): Bound {
  const state = source === 'archive' ? 'failed' : (sel.state ?? 'all');
  const base = { tenant: s.tenant, queue: q.id, now: unixNow(), state };
  if (sel.kind === 'ids') return { q, params: { ...base, ids: idsJson(validate.messageIds(sel.ids)) } };
  if (source === 'archive' && sel.state !== 'all' && sel.state !== 'failed') {
    throw invalidInput('the failed messages have one state', 'select all of them');
  }
  const minReads = sel.minReadCount === undefined ? 0 : validate.wholeSeconds(sel.minReadCount, 'read count');
  return { q, params: { ...base, minReads: BigInt(minReads), maxId: sel.maxId ?? null } };
}

export function countSelected(s: SqliteSession, queue: string, sel: MessageSelection, source: MessageSource): number {
  const name = validateQueueName('sqlite', queue);
  return s.run(() => {
    const b = bind(s, s.requireQueue(name), sel, source);
    const row = s.stmt<{ n: number | bigint }>(sel.kind === 'ids' ? OPS.COUNT_IDS : OPS.COUNT_FILTERED).get(b.params);
    return Number(row?.n ?? 0);
  });
}

/** The ids of a selection now, oldest first, at most `limit`. */
export function selectedIds(s: SqliteSession, queue: string, sel: MessageSelection, source: MessageSource, limit: number): bigint[] {
  const name = validateQueueName('sqlite', queue);
  validate.positiveWhole(limit, 'limit');
  return s.run(() => {
    const b = bind(s, s.requireQueue(name), sel, source);
    if (sel.kind === 'ids') return s.column<bigint>(OPS.PICK_IDS).all(b.params).slice(0, limit);
    return s.column<bigint>(OPS.PICK_FILTERED).all({ ...b.params, limit: BigInt(limit) });
  });
}

/** The ids a chunk takes: all of an ids selection, up to CHUNK of a filter's. */
function pick(s: SqliteSession, b: Bound, sel: MessageSelection): bigint[] {
  if (sel.kind === 'ids') return s.column<bigint>(OPS.PICK_IDS).all(b.params);
  return s.column<bigint>(OPS.PICK_FILTERED).all({ ...b.params, limit: BigInt(CHUNK) });
}

/** A filter works on what is there when asked, not on what arrives meanwhile. */
function bounded(s: SqliteSession, q: ResolvedQueue, sel: MessageSelection): MessageSelection {
  if (sel.kind === 'ids' || sel.maxId !== undefined) return sel;
  const max = s.column<bigint | null>(OPS.MAX_ID).get({ tenant: s.tenant, queue: q.id });
  return { ...sel, maxId: max ?? -1n };
}

/** Runs `step` in one write transaction per chunk until a chunk takes fewer than CHUNK (an ids selection: once). */
function chunked(s: SqliteSession, sel: MessageSelection, step: () => number): number {
  let total = 0;
  for (;;) {
    const n = s.writeTx(step);
    total += n;
    if (sel.kind === 'ids' || n < CHUNK) return total;
  }
}

export function actOn(s: SqliteSession, queue: string, action: BulkAction, sel: MessageSelection): number {
  const name = validateQueueName('sqlite', queue);
  if (action === 'archive') {
    throw new SmqError('invalid-input', 'archive is not supported on SmoothMQ SQLite', {
      hint: 'SmoothMQ has no archive table; delete the messages instead',
    });
  }
  return s.run(() => {
    const q = s.requireQueue(name);
    const sel2 = bounded(s, q, sel);
    if (action === 'makeVisible') {
      // One statement: what it changes no longer matches (visible already), so no chunks.
      const b = bind(s, q, sel2, 'queue');
      return s.writeTx(() => s.column<bigint>(sel2.kind === 'ids' ? OPS.MAKE_VISIBLE_IDS : OPS.MAKE_VISIBLE_FILTERED).all(b.params).length);
    }
    return chunked(s, sel2, () => {
      const b = bind(s, q, sel2, 'queue');
      const ids = pick(s, b, sel2);
      if (ids.length === 0) return 0;
      const key = { tenant: s.tenant, queue: q.id, ids: idsJson(ids) };
      const deleted = s.column<bigint>(SQL.DELETE_MESSAGES).all(key);
      if (deleted.length > 0) s.stmt(SQL.DELETE_MESSAGE_KVS).run({ ...key, ids: idsJson(deleted) });
      return deleted.length;
    });
  });
}

export function moveMessages(s: SqliteSession, queue: string, target: string, sel: MessageSelection, source: MessageSource): number {
  const name = validateQueueName('sqlite', queue);
  const targetName = validateQueueName('sqlite', target);
  return s.run(() => {
    const from = s.requireQueue(name);
    const to = s.requireQueue(targetName);
    if (source === 'queue' && from.id === to.id) throw invalidInput(`the target is the queue itself (${target})`, 'name another queue');
    const sel2 = bounded(s, from, sel);
    return s.withFreshIds(() =>
      chunked(s, sel2, () => {
        const b = bind(s, from, sel2, source);
        const ids = pick(s, b, sel2);
        if (ids.length === 0) return 0;
        moveRows(s, from, to, ids);
        return ids.length;
      }),
    );
  });
}

/** Inside a write transaction: copies the messages and their attributes to `to`, then deletes them from `from`. */
function moveRows(s: SqliteSession, from: ResolvedQueue, to: ResolvedQueue, ids: readonly bigint[]): void {
  const key = { tenant: s.tenant, queue: from.id, ids: idsJson(ids) };
  const rows = s.stmt<{ id: bigint; message: string | Buffer }>(OPS.MESSAGES_BY_ID).all(key);
  const kvs = s.stmt<{ message_id: bigint; k: string; v: string }>(OPS.KVS_BY_MESSAGE).all(key);
  const now = unixNow();
  const insertMessage = s.stmt(OPS.INSERT_MOVED);
  const insertKv = s.stmt(SQL.INSERT_KV);
  for (const r of rows) {
    const id = s.snowflakes.next();
    insertMessage.run({ id, tenant: s.tenant, queue: to.id, now, maxTries: to.maxRetries, body: r.message });
    for (const kv of kvs) if (kv.message_id === r.id) insertKv.run({ tenant: s.tenant, queue: to.id, message: id, k: kv.k, v: kv.v });
  }
  s.column<bigint>(SQL.DELETE_MESSAGES).all(key);
  s.stmt(SQL.DELETE_MESSAGE_KVS).run(key);
}

/** The failed messages, paged as peek pages the queue. */
export function peekArchive(s: SqliteSession, queue: string, options: PeekOptions): Message[] {
  return messages.peek(s, queue, { ...options, state: 'failed' });
}
