// pgmq messages: send, receive (safe and naive), delete, archive, visibility and peek.
import { invalidInput } from '../../errors.js';
import { redactSecrets } from '../secrets.js';
import type {
  CountBeforeOptions,
  Message,
  MessageId,
  MessageState,
  PeekOptions,
  ReceiveOptions,
  RefusedBody,
  SendInput,
} from '../types.js';
import * as validate from '../validate.js';
import { lacking } from '../features.js';

/** The states a pgmq message can be in (no failed state: pgmq has no retry limit). */
const PGMQ_STATES: readonly MessageState[] = ['ready', 'inflight', 'delayed'];
import { mapPgError } from './errors.js';
import { firstRefusedBody, runSendStatements, sendStatements, serverIsUtf8 } from './send.js';
import type { PgmqSession } from './session.js';
import * as sql from './sql.js';

export interface MessageRow {
  msg_id: string;
  read_ct: number;
  enqueued_at: Date | null;
  vt: Date;
  message: string | null;
  headers: Record<string, unknown> | null;
  last_read_at: Date | null;
  state?: MessageState;
}

export function toMessage(row: MessageRow, state?: MessageState): Message {
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

/** pgmq before 1.5 has no headers column: refuse headers rather than drop them unseen. */
function checkHeaders(s: PgmqSession, messages: readonly SendInput[]): void {
  if (s.columns.headers) return;
  if (messages.some((m) => m.headers !== undefined && Object.keys(m.headers).length > 0)) {
    throw invalidInput('this pgmq keeps no message headers (they came with pgmq 1.5)', 'send without --header, or upgrade pgmq');
  }
}

export async function send(s: PgmqSession, queue: string, message: SendInput): Promise<MessageId> {
  // The body is not parsed here: the server's jsonb input checks it on every call anyway,
  // and its refusal (22P02/22P05) maps to the same invalid-input error, with nothing stored.
  s.name(queue);
  checkHeaders(s, [message]);
  const [delay] = validate.sendInputs([message]);
  const rows = await s.run<{ id: string }>(sql.sendQuery(queue, message.body, message.headers, delay!, s.columns), queue);
  return BigInt(rows[0]!.id);
}

export async function sendBatch(s: PgmqSession, queue: string, messages: readonly SendInput[]): Promise<MessageId[]> {
  s.name(queue);
  checkHeaders(s, messages);
  validate.sendInputs(messages);
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
  const checked = validate.receiveOptions(options);
  const vt = checked.vtSec ?? validate.DEFAULT_VT_SEC;
  const qty = checked.qty;
  const runId = options.runId;
  if (runId !== undefined && !byRunId) {
    throw invalidInput('this pgmq cannot receive by run id (its read has no conditional before pgmq 1.5)', 'upgrade pgmq to 1.5 or later');
  }
  if (checked.dequeue === 'naive') return naiveReceive(s, queue, qty, vt, checked.naivePauseMs, runId);
  const q =
    checked.pollSec !== undefined
      ? sql.readWithPollQuery(queue, vt, qty, checked.pollSec, runId, s.columns)
      : runId === undefined
        ? sql.readQuery(queue, vt, qty, s.columns)
        : sql.readByRunIdQuery(queue, vt, qty, runId, s.columns);
  const rows = await s.run<MessageRow>(q, queue);
  return rows.map((r) => toMessage(r, 'inflight'));
}

async function naiveReceive(
  s: PgmqSession,
  queue: string,
  qty: number,
  vt: number,
  pauseMs: number,
  runId: string | undefined,
): Promise<Message[]> {
  const rel = await s.table(queue);
  return s.transaction(
    queue,
    async (client) => {
      const sel = sql.naiveSelectQuery(rel, qty, runId);
      const candidates = await client.query<{ msg_id: string }>(sel.text, sel.values);
      if (candidates.rows.length === 0) return [];
      if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      const upd = sql.naiveUpdateQuery(
        rel,
        candidates.rows.map((r) => BigInt(r.msg_id)),
        vt,
        s.columns,
      );
      const rows = await client.query<MessageRow>(upd.text, upd.values);
      return rows.rows.map((r) => toMessage(r, 'inflight'));
    },
    sql.BEGIN_READ_COMMITTED,
  );
}

export async function deleteMessages(s: PgmqSession, queue: string, ids: readonly MessageId[]): Promise<MessageId[]> {
  s.name(queue);
  const wanted = validate.messageIds(ids);
  if (wanted.length === 0) return [];
  const rows = await s.run<{ id: string }>(sql.deleteQuery(queue, wanted), queue);
  return rows.map((r) => BigInt(r.id));
}

export async function archive(s: PgmqSession, queue: string, ids: readonly MessageId[]): Promise<MessageId[]> {
  s.name(queue);
  const wanted = validate.messageIds(ids);
  if (wanted.length === 0) return [];
  const rows = await s.run<{ id: string }>(sql.archiveQuery(queue, wanted), queue);
  return rows.map((r) => BigInt(r.id));
}

export async function setVisibility(s: PgmqSession, queue: string, ids: readonly MessageId[], vtSec: number): Promise<MessageId[]> {
  s.name(queue);
  validate.wholeSeconds(vtSec, 'visibility timeout');
  validate.messageIds(ids);
  if (ids.length === 0) return [];
  const rows = await s.run<{ msg_id: string }>(sql.setVisibilityQuery(queue, ids, vtSec), queue);
  return rows.map((r) => BigInt(r.msg_id));
}

export async function countBefore(s: PgmqSession, queue: string, options: CountBeforeOptions): Promise<number> {
  if (options.state === 'failed') throw invalidInput('pgmq has no failed state', 'use ready, inflight, delayed or all');
  const { state, order, afterId } = validate.peekOptions(
    { limit: 1, state: options.state, order: options.order, afterId: options.id },
    PGMQ_STATES,
  );
  if (options.group !== undefined && !s.columns.headers) throw lacking('groups');
  const rel = await s.table(queue);
  const rows = await s.run<{ n: string }>(
    sql.countBeforeQuery(rel, { id: afterId!, state: state as Exclude<MessageState, 'failed'> | 'all', order, group: options.group }),
    queue,
  );
  return Number(rows[0]?.n ?? 0);
}

export async function peek(s: PgmqSession, queue: string, options: PeekOptions): Promise<Message[]> {
  if (options.state === 'failed') throw invalidInput('pgmq has no failed state', 'use ready, inflight, delayed or all');
  validate.peekOptions(options, PGMQ_STATES);
  // Groups are keyed on a header: pgmq 1.4 has no headers, so no groups to peek by.
  if (options.group !== undefined && !s.columns.headers) throw lacking('groups');
  const rel = await s.table(queue);
  const rows = await s.run<MessageRow>(sql.peekQuery(rel, s.columns, options), queue);
  return rows.map((r) => toMessage(r));
}
