// What the pgmq backend tells top about a role's rights and a queue's insides, changing
// nothing: whether this role may change queues at all (writePrivileges).
import type { SearchOptions, SearchStep } from '../types.js';
import { checkSearch, nextAfter, searchMode } from '../search.js';
import { toMessage, type MessageRow } from './messages.js';
import type { PgmqSession } from './session.js';
import { searchQuery, WRITE_PRIVILEGES } from './sql-inspect.js';

/**
 * Why this connection may not change queues (a standby, a read-only session, a role that may
 * not delete from or update any queue table, or not run pgmq.delete), or undefined when it may.
 */
export async function cannotWrite(s: PgmqSession): Promise<string | undefined> {
  const rows = await s.run<{
    role: string;
    standby: boolean;
    session_read_only: boolean;
    tables: number;
    writable: number;
    delete_fn: boolean | null;
  }>(WRITE_PRIVILEGES);
  const r = rows[0];
  if (!r) return undefined;
  if (r.standby) return 'the server is a standby (in recovery)';
  if (r.session_read_only) return `role ${r.role}'s sessions are read-only (default_transaction_read_only)`;
  if (r.tables > 0 && r.writable === 0) return `role ${r.role} may not delete from pgmq.q_*`;
  if (r.delete_fn === false) return `role ${r.role} may not execute pgmq.delete`;
  return undefined;
}

/** One bounded step of a search in a queue's bodies and headers (Backend.searchMessages). */
export async function searchMessages(s: PgmqSession, queue: string, options: SearchOptions): Promise<SearchStep> {
  const { scan, limit } = checkSearch(options);
  const mode = searchMode(options.text, true);
  const rel = await s.table(queue);
  const rows = await s.run<MessageRow & { last_id: string | null; scanned: number }>(
    searchQuery(rel, s.columns, mode, { afterId: options.afterId ?? null, scan, limit }),
    queue,
  );
  const matches = rows.filter((r) => r.msg_id !== null).map((r) => toMessage(r));
  const first = rows[0];
  const scanned = first?.scanned ?? 0;
  const last = first?.last_id ? BigInt(first.last_id) : null;
  return {
    matches,
    scanned,
    nextAfterId: nextAfter(
      matches.map((m) => m.id),
      limit,
      scanned,
      scan,
      last,
    ),
    mode: mode.kind,
  };
}
