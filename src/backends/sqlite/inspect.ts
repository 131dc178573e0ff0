// What the SQLite backend tells top about the file rather than a queue, changing nothing:
// whether it may be written at all (cannotWrite).
import fs from 'node:fs';
import { escapeControl } from '../../text/escape.js';
import { validateQueueName } from '../names.js';
import { checkSearch, likePattern, nextAfter, searchMode } from '../search.js';
import type { QueueDetails, QueueStats, SearchOptions, SearchStep } from '../types.js';
import { unixNow, type MessageRow } from './rows.js';
import type { SqliteSession } from './session.js';

/** Why this file may not be changed (opened read-only, or not writable by this user), or undefined. */
export function cannotWrite(s: SqliteSession): string | undefined {
  const file = escapeControl(s.path);
  if (s.db.readonly) return `the file ${file} is open read-only`;
  try {
    fs.accessSync(s.path, fs.constants.W_OK);
  } catch {
    return `no permission to write ${file}`;
  }
  return undefined;
}

// One step of a search: the next @scan rows of the queue by id, then of those the ones whose
// text or attributes (name or value) are LIKE @pattern (ASCII case-insensitive), at most @limit.
const SEARCH_PAGE = `SELECT max(id) AS last_id, count(*) AS scanned FROM (
    SELECT id FROM messages WHERE tenant_id = @tenant AND queue_id = @queue AND (@after IS NULL OR id > @after)
    ORDER BY id LIMIT @scan)`;
const SEARCH_HITS = `SELECT id, tries, max_tries, deliver_at, delivered_at, message FROM (
    SELECT * FROM messages WHERE tenant_id = @tenant AND queue_id = @queue AND (@after IS NULL OR id > @after)
    ORDER BY id LIMIT @scan) p
  WHERE p.message LIKE @pattern ESCAPE '\\'
     OR EXISTS (SELECT 1 FROM kvs WHERE kvs.tenant_id = @tenant AND kvs.queue_id = @queue AND kvs.message_id = p.id
                AND (kvs.k LIKE @pattern ESCAPE '\\' OR kvs.v LIKE @pattern ESCAPE '\\'))
  ORDER BY id LIMIT @limit`;

/** One bounded step of a search in a queue's bodies and attributes (Backend.searchMessages); text match only. */
export function searchMessages(s: SqliteSession, queue: string, options: SearchOptions): SearchStep {
  const name = validateQueueName('sqlite', queue);
  const { scan, limit } = checkSearch(options);
  const mode = searchMode(options.text, false);
  const pattern = mode.kind === 'text' ? mode.pattern : likePattern(options.text);
  return s.run(() =>
    s.db
      .transaction(() => {
        const q = s.requireQueue(name);
        const params = { tenant: s.tenant, queue: q.id, after: options.afterId ?? null, scan: BigInt(scan) };
        const page = s.stmt<{ last_id: bigint | null; scanned: bigint }>(SEARCH_PAGE).get(params);
        const rows = s.stmt<MessageRow>(SEARCH_HITS).all({ ...params, pattern, limit: BigInt(limit) });
        const matches = s.toMessages(q, rows, unixNow());
        const scanned = Number(page?.scanned ?? 0);
        const last = page?.last_id ?? null;
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
          mode: 'text' as const,
        };
      })
      .deferred(),
  );
}

/** A queue's settings and the file's size (SmoothMQ keeps every queue in one file, no per-queue tables). */
export function queueDetails(s: SqliteSession, stats: QueueStats): QueueDetails {
  const size = (p: string) => {
    try {
      return fs.statSync(p).size;
    } catch {
      return 0; // no WAL file: nothing written since the last checkpoint
    }
  };
  return {
    name: stats.name,
    createdAt: stats.createdAt ?? null,
    tables: [],
    ...(stats.visibilityTimeoutSec === undefined ? {} : { visibilityTimeoutSec: stats.visibilityTimeoutSec }),
    ...(stats.maxRetries === undefined ? {} : { maxRetries: stats.maxRetries }),
    ...(stats.rateLimit === undefined ? {} : { rateLimit: stats.rateLimit }),
    fileBytes: size(s.path),
    walBytes: size(`${s.path}-wal`),
  };
}
