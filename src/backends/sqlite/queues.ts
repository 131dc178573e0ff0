// SmoothMQ queue administration: listing with stats, create, drop and purge.
import { invalidInput, QueueNotEmptyError, queueNotFound } from '../../errors.js';
import { validateQueueName } from '../names.js';
import type { CreateQueueOptions, DropQueueOptions, QueueStats } from '../types.js';
import * as validate from '../validate.js';
import { toStats, unixNow, type StatsRow } from './rows.js';
import type { SqliteSession } from './session.js';
import * as SQL from './sql.js';

/** SmoothMQ's defaults for a new queue. */
export const DEFAULT_VISIBILITY_TIMEOUT_SEC = 30;
export const DEFAULT_MAX_RETRIES = -1; // unlimited
export const DEFAULT_RATE_LIMIT = -1; // unlimited; 0 pauses the queue

export function listQueues(s: SqliteSession): QueueStats[] {
  // SQLite counts are exact and cheap through idx_message: nothing is estimated.
  return s.run(() =>
    s
      .stmt<StatsRow>(SQL.LIST_QUEUE_STATS)
      .all({ now: unixNow(), tenant: s.tenantChosen ? s.tenant : null })
      .map((row) => toStats(row)),
  );
}

export function queueStats(s: SqliteSession, queue: string): QueueStats {
  const name = validateQueueName('sqlite', queue);
  return s.run(() => {
    const row = s.stmt<StatsRow>(SQL.QUEUE_STATS).get({ now: unixNow(), tenant: s.tenant, name });
    if (row === undefined) throw queueNotFound(name);
    return toStats(row);
  });
}

export function createQueue(s: SqliteSession, queue: string, options: CreateQueueOptions = {}): boolean {
  const name = validateQueueName('sqlite', queue, 'create');
  if (options.unlogged) throw invalidInput('unlogged queues exist only on pgmq');
  const vt = options.visibilityTimeoutSec ?? DEFAULT_VISIBILITY_TIMEOUT_SEC;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  validate.wholeSeconds(vt, 'visibility timeout');
  if (!Number.isInteger(maxRetries) || maxRetries < -1) {
    throw invalidInput(`max retries must be a whole number >= 0, or -1 for unlimited, got ${maxRetries}`);
  }
  if (!Number.isFinite(rateLimit) || (rateLimit < 0 && rateLimit !== -1)) {
    throw invalidInput(`rate limit must be messages per second >= 0, or -1 for unlimited, got ${rateLimit}`);
  }
  return s.run(() =>
    s.withFreshIds(() => {
      const result = s.stmt(SQL.INSERT_QUEUE).run({
        id: s.snowflakes.next(),
        tenant: s.tenant,
        name,
        rateLimit,
        maxRetries: BigInt(maxRetries),
        visibilityTimeout: BigInt(vt),
      });
      return result.changes === 1;
    }),
  );
}

/** With atMost the count and the drop share one write transaction (BEGIN IMMEDIATE): no send slips in. */
export function dropQueue(s: SqliteSession, queue: string, options: DropQueueOptions = {}): void {
  const name = validateQueueName('sqlite', queue);
  s.run(() =>
    s.writeTx(() => {
      const q = s.requireQueue(name);
      const key = { tenant: s.tenant, queue: q.id };
      if (options.atMost !== undefined) {
        const n = Number(s.stmt<{ n: number | bigint }>(SQL.COUNT_QUEUE_MESSAGES).get(key)?.n ?? 0);
        if (n > options.atMost) throw new QueueNotEmptyError(name, n, options.atMost);
      }
      s.stmt(SQL.DELETE_QUEUE_KVS).run(key);
      s.stmt(SQL.DELETE_QUEUE_MESSAGES).run(key);
      if (s.hasRateLimits) s.stmt(SQL.DELETE_QUEUE_RATE_LIMITS).run(key);
      s.stmt(SQL.DELETE_QUEUE).run(key);
    }),
  );
}

export function purgeQueue(s: SqliteSession, queue: string): number {
  const name = validateQueueName('sqlite', queue);
  return s.run(() =>
    s.writeTx(() => {
      const q = s.requireQueue(name);
      const key = { tenant: s.tenant, queue: q.id };
      s.stmt(SQL.DELETE_QUEUE_KVS).run(key);
      return s.stmt(SQL.DELETE_QUEUE_MESSAGES).run(key).changes;
    }),
  );
}
