// top's operator actions on pgmq: count a selection, delete / archive / make visible it,
// move it (to another queue, or from the archive back: restore), and read the archive.
import { invalidInput, queueNotFound, SmqError } from '../../errors.js';
import type { BulkAction, Message, MessageSelection, MessageSource, PeekOptions } from '../types.js';
import * as validate from '../validate.js';
import { toMessage, type MessageRow } from './messages.js';
import type { PgmqSession } from './session.js';
import * as sql from './sql-ops.js';

/** Messages per move statement (one transaction each): short locks, bounded work per round trip. */
export const MOVE_CHUNK = 500;

function checkSelection(sel: MessageSelection): void {
  if (sel.kind === 'ids') validate.messageIds(sel.ids);
  else if (sel.minReadCount !== undefined) validate.wholeSeconds(sel.minReadCount, 'read count');
}

async function archiveTable(s: PgmqSession, queue: string): Promise<string> {
  const rows = await s.run<{ rel: string | null }>(sql.archiveTableQuery(s.name(queue)), queue);
  if (rows.length === 0) throw queueNotFound(queue);
  const rel = rows[0]!.rel;
  if (!rel) throw new SmqError('queue-not-found', `queue ${JSON.stringify(queue)} has no archive table`);
  return rel;
}

const tableOf = (s: PgmqSession, queue: string, source: MessageSource) => (source === 'archive' ? archiveTable(s, queue) : s.table(queue));

export async function countSelected(s: PgmqSession, queue: string, sel: MessageSelection, source: MessageSource): Promise<number> {
  checkSelection(sel);
  if (sel.kind === 'ids' && sel.ids.length === 0) return 0;
  const rel = await tableOf(s, queue, source);
  const rows = await s.run<{ n: string }>(sql.countSelectedQuery(rel, sel, source), queue);
  return Number(rows[0]?.n ?? 0);
}

export async function selectedIds(
  s: PgmqSession,
  queue: string,
  sel: MessageSelection,
  source: MessageSource,
  limit: number,
): Promise<bigint[]> {
  checkSelection(sel);
  validate.positiveWhole(limit, 'limit');
  if (sel.kind === 'ids' && sel.ids.length === 0) return [];
  const rel = await tableOf(s, queue, source);
  const rows = await s.run<{ id: string }>(sql.selectedIdsQuery(rel, sel, source, limit), queue);
  return rows.map((r) => BigInt(r.id));
}

export async function actOn(s: PgmqSession, queue: string, action: BulkAction, sel: MessageSelection): Promise<number> {
  checkSelection(sel);
  if (sel.kind === 'ids' && sel.ids.length === 0) return 0;
  const rel = await s.table(queue);
  const rows = await s.run<{ n: string }>(sql.actOnQuery(queue, rel, action, sel), queue);
  return Number(rows[0]?.n ?? 0);
}

export async function moveMessages(
  s: PgmqSession,
  queue: string,
  target: string,
  sel: MessageSelection,
  source: MessageSource,
): Promise<number> {
  checkSelection(sel);
  const from = await tableOf(s, queue, source);
  const to = await s.table(target);
  if (source === 'queue' && from === to) throw invalidInput(`the target is the queue itself (${target})`, 'name another queue');
  let moved = 0;
  if (sel.kind === 'ids') {
    for (let i = 0; i < sel.ids.length; i += MOVE_CHUNK) {
      const chunk: MessageSelection = { ...sel, ids: sel.ids.slice(i, i + MOVE_CHUNK) };
      moved += await moveChunk(s, queue, from, to, chunk, source);
    }
    return moved;
  }
  // A filter: what is there now, not what arrives while moving (a busy queue never ends).
  const maxRow = await s.run<{ id: string | null }>(sql.maxIdQuery(from), queue);
  const maxId = sel.maxId ?? (maxRow[0]?.id == null ? undefined : BigInt(maxRow[0].id));
  if (maxId === undefined) return 0;
  const bounded: MessageSelection = { ...sel, maxId };
  for (;;) {
    const n = await moveChunk(s, queue, from, to, bounded, source);
    moved += n;
    if (n < MOVE_CHUNK) return moved;
  }
}

async function moveChunk(
  s: PgmqSession,
  queue: string,
  from: string,
  to: string,
  sel: MessageSelection,
  source: MessageSource,
): Promise<number> {
  const rows = await s.run<{ n: string }>(sql.moveChunkQuery(from, to, s.columns, sel, source, MOVE_CHUNK), queue);
  return Number(rows[0]?.n ?? 0);
}

export async function peekArchive(s: PgmqSession, queue: string, options: PeekOptions): Promise<Message[]> {
  validate.peekOptions({ ...options, state: 'all' }, ['ready', 'inflight', 'delayed']);
  const rel = await archiveTable(s, queue);
  const rows = await s.run<MessageRow & { archived_at: Date | null }>(sql.peekArchiveQuery(rel, s.columns, options), queue);
  return rows.map((r) => ({ ...toMessage(r, 'ready'), archivedAt: r.archived_at }));
}
