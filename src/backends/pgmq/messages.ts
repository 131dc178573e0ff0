// pgmq messages: send, receive (safe and naive), delete, archive, visibility and peek.
import { invalidInput } from '../../errors.js';
import { redactSecrets } from '../target.js';
import type { Message, MessageId, MessageState, PeekOptions, ReceiveOptions, RefusedBody, SendInput } from '../types.js';
import { mapPgError } from './errors.js';
import { firstRefusedBody, runSendStatements, sendStatements, serverIsUtf8 } from './send.js';
import type { PgmqSession } from './session.js';
import * as sql from './sql.js';

const DEFAULT_VT_SEC = 30;

interface MessageRow {
  msg_id: string;
  read_ct: number;
  enqueued_at: Date | null;
  vt: Date;
  message: string | null;
  headers: Record<string, unknown> | null;
  last_read_at: Date | null;
  state?: MessageState;
}

function toMessage(row: MessageRow, state?: MessageState): Message {
  return {
    id: BigInt(row.msg_id),
    state: state ?? row.state ?? (row.vt.getTime() <= Date.now() ? 'ready' : row.read_ct > 0 ? 'inflight' : 'delayed'),
    readCount: row.read_ct,
    enqueuedAt: row.enqueued_at,
    visibleAt: row.vt,
    lastReadAt: row.last_read_at,
    body: row.message ?? 'null',
    headers: row.headers,
  };
}

function checkDelay(delaySec: number | undefined): number {
  const d = delaySec ?? 0;
  if (!Number.isInteger(d) || d < 0) throw invalidInput(`invalid delay ${d}`, 'give a whole number of seconds, 0 or more');
  return d;
}

function checkIds(ids: readonly MessageId[]): string[] {
  return ids.map((id) => {
    if (id < 0n) throw invalidInput(`invalid message id ${id}`, 'ids are whole numbers, 0 or more');
    return String(id);
  });
}

export async function send(s: PgmqSession, queue: string, message: SendInput): Promise<MessageId> {
  // The body is not parsed here: the server's jsonb input checks it on every call anyway,
  // and its refusal (22P02/22P05) maps to the same invalid-input error, with nothing stored.
  s.name(queue);
  const delay = checkDelay(message.delaySec);
  const rows = await s.run<{ id: string }>(sql.sendQuery(queue, message.body, message.headers, delay, s.columns), queue);
  return BigInt(rows[0]!.id);
}

export async function sendBatch(s: PgmqSession, queue: string, messages: readonly SendInput[]): Promise<MessageId[]> {
  s.name(queue);
  for (const m of messages) checkDelay(m.delaySec);
  const statements = sendStatements(queue, messages, s.columns);
  if (statements.length === 0) return [];
  // One statement is its own transaction; more share one, so all are stored or none.
  if (statements.length === 1) return (await s.run<{ id: string }>(statements[0]!, queue)).map((r) => BigInt(r.id));
  return s.transaction(queue, (client) => runSendStatements(client, statements));
}

export async function checkBodies(s: PgmqSession, bodies: readonly string[]): Promise<RefusedBody | undefined> {
  let refused: RefusedBody | undefined;
  try {
    refused = await firstRefusedBody(s.pool, bodies, async () => (s.utf8 ??= await serverIsUtf8(s.pool)));
  } catch (e) {
    throw mapPgError(e, s.ctx);
  }
  return refused && { index: refused.index, reason: redactSecrets(refused.reason, s.ctx.secrets) };
}

export async function receive(s: PgmqSession, queue: string, options: ReceiveOptions, byRunId: boolean): Promise<Message[]> {
  s.name(queue);
  if (!Number.isInteger(options.qty) || options.qty < 1) throw invalidInput(`invalid quantity ${options.qty}`, 'give a whole number of 1 or more');
  const vt = options.vtSec ?? DEFAULT_VT_SEC;
  if (!Number.isInteger(vt) || vt < 0) throw invalidInput(`invalid visibility timeout ${vt}`, 'give a whole number of seconds, 0 or more');
  const runId = options.runId;
  if (runId !== undefined && !byRunId) {
    throw invalidInput('this pgmq cannot receive by run id (its read has no conditional before pgmq 1.5)', 'upgrade pgmq to 1.5 or later');
  }
  if (options.dequeue === 'naive') return naiveReceive(s, queue, options.qty, vt, options.naivePauseMs ?? 0, runId);
  const q = runId === undefined ? sql.readQuery(queue, vt, options.qty, s.columns) : sql.readByRunIdQuery(queue, vt, options.qty, runId, s.columns);
  const rows = await s.run<MessageRow>(q, queue);
  return rows.map((r) => toMessage(r, 'inflight'));
}

async function naiveReceive(s: PgmqSession, queue: string, qty: number, vt: number, pauseMs: number, runId: string | undefined): Promise<Message[]> {
  const rel = await s.table(queue);
  return s.transaction(
    queue,
    async (client) => {
      const sel = sql.naiveSelectQuery(rel, qty, runId);
      const candidates = await client.query<{ msg_id: string }>(sel.text, sel.values);
      if (candidates.rows.length === 0) return [];
      if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      const upd = sql.naiveUpdateQuery(rel, candidates.rows.map((r) => BigInt(r.msg_id)), vt, s.columns);
      const rows = await client.query<MessageRow>(upd.text, upd.values);
      return rows.rows.map((r) => toMessage(r, 'inflight'));
    },
    sql.BEGIN_READ_COMMITTED,
  );
}

export async function deleteMessages(s: PgmqSession, queue: string, ids: readonly MessageId[]): Promise<MessageId[]> {
  s.name(queue);
  if (ids.length === 0) return [];
  const rows = await s.run<{ id: string }>(sql.deleteQuery(queue, checkIds(ids)), queue);
  return rows.map((r) => BigInt(r.id));
}

export async function archive(s: PgmqSession, queue: string, ids: readonly MessageId[]): Promise<MessageId[]> {
  s.name(queue);
  if (ids.length === 0) return [];
  const rows = await s.run<{ id: string }>(sql.archiveQuery(queue, checkIds(ids)), queue);
  return rows.map((r) => BigInt(r.id));
}

export async function setVisibility(s: PgmqSession, queue: string, ids: readonly MessageId[], vtSec: number): Promise<MessageId[]> {
  s.name(queue);
  if (!Number.isInteger(vtSec) || vtSec < 0) throw invalidInput(`invalid visibility timeout ${vtSec}`, 'give a whole number of seconds, 0 or more');
  if (ids.length === 0) return [];
  checkIds(ids);
  const rows = await s.run<{ msg_id: string }>(sql.setVisibilityQuery(queue, ids, vtSec), queue);
  return rows.map((r) => BigInt(r.msg_id));
}

export async function peek(s: PgmqSession, queue: string, options: PeekOptions): Promise<Message[]> {
  if (!Number.isInteger(options.limit) || options.limit < 1) throw invalidInput(`invalid limit ${options.limit}`, 'give a whole number of 1 or more');
  if (options.state === 'failed') throw invalidInput('pgmq has no failed state', 'use ready, inflight, delayed or all');
  const rel = await s.table(queue);
  const rows = await s.run<MessageRow>(sql.peekQuery(rel, s.columns, options), queue);
  return rows.map((r) => toMessage(r));
}
