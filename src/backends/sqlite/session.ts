// What every part of the SQLite backend shares: the open file, cached statements, error
// translation, transactions, snowflake ids, queue look-up and SmoothMQ's rate limits.
import type Database from 'better-sqlite3';
import { SmqError, queueNotFound } from '../../errors.js';
import type { Message } from '../types.js';
import { BUSY_TIMEOUT_MS, isPrimaryKeyViolation, mapSqliteError } from './errors.js';
import {
  attributesOf,
  idsJson,
  idTime,
  messageStateAt,
  bodyOf,
  type KvRow,
  type MessageRow,
  type QueueRow,
  type ResolvedQueue,
} from './rows.js';
import { SnowflakeGenerator } from './snowflake.js';
import * as SQL from './sql.js';

/** Attempts at an insert when a snowflake id collides with another writer's. */
const ID_ATTEMPTS = 5;

export type Params = Record<string, unknown>;

export class SqliteSession {
  private readonly statements = new Map<string, Database.Statement<[Params], unknown>>();
  private readonly plucked = new Map<string, Database.Statement<[Params], unknown>>();
  readonly snowflakes = new SnowflakeGenerator();

  constructor(
    readonly db: Database.Database,
    readonly path: string,
    readonly tenant: number,
    /** listQueues shows every tenant unless a tenant was chosen. */
    readonly tenantChosen: boolean,
    private readonly readOnly: boolean,
    readonly hasRateLimits: boolean,
    /** How long a call waits for another connection's lock (named in the error). */
    private readonly busyTimeoutMs: number = BUSY_TIMEOUT_MS,
  ) {}

  stmt<R>(sql: string): Database.Statement<[Params], R> {
    let s = this.statements.get(sql);
    if (s === undefined) {
      s = this.db.prepare<[Params], unknown>(sql);
      this.statements.set(sql, s);
    }
    return s as Database.Statement<[Params], R>;
  }

  /** A cached statement returning its first column only (pluck mode sticks to the statement). */
  column<R>(sql: string): Database.Statement<[Params], R> {
    let s = this.plucked.get(sql);
    if (s === undefined) {
      s = this.db.prepare<[Params], unknown>(sql).pluck();
      this.plucked.set(sql, s);
    }
    return s as Database.Statement<[Params], R>;
  }

  /** Runs fn with SQLite's errors translated; refuses after close(). */
  run<T>(fn: () => T): T {
    if (!this.db.open) throw new SmqError('connection', `the connection to ${this.path} is closed`);
    try {
      return fn();
    } catch (e) {
      throw mapSqliteError(e, this.path, this.readOnly, this.busyTimeoutMs);
    }
  }

  /** BEGIN IMMEDIATE: takes the write lock up front, so reads inside see what they change. */
  writeTx<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** Retries an insert with fresh ids when a snowflake collides with another writer's. */
  withFreshIds<T>(fn: () => T): T {
    for (let attempt = 1; ; attempt++) {
      try {
        return fn();
      } catch (e) {
        if (!isPrimaryKeyViolation(e) || attempt >= ID_ATTEMPTS) throw e;
        this.snowflakes.reseed();
      }
    }
  }

  findQueue(name: string): ResolvedQueue | undefined {
    const row = this.stmt<QueueRow>(SQL.FIND_QUEUE).get({ tenant: this.tenant, name });
    if (row === undefined) return undefined;
    return {
      id: row.id,
      maxRetries: row.max_retries,
      visibilityTimeoutSec: row.visibility_timeout,
      rateLimit: Number(row.rate_limit),
    };
  }

  requireQueue(name: string): ResolvedQueue {
    const q = this.findQueue(name);
    if (q === undefined) throw queueNotFound(name);
    return q;
  }

  private attributesFor(queue: ResolvedQueue, ids: readonly bigint[]): Map<bigint, Record<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = this.stmt<KvRow>(SQL.SELECT_KVS).all({ tenant: this.tenant, queue: queue.id, ids: idsJson(ids) });
    return attributesOf(rows);
  }

  toMessages(queue: ResolvedQueue, rows: readonly MessageRow[], now: bigint): Message[] {
    const attrs = this.attributesFor(
      queue,
      rows.map((r) => r.id),
    );
    const nowMs = Date.now();
    return rows.map((r) => {
      const a = attrs.get(r.id);
      return {
        id: r.id,
        state: messageStateAt(r, now),
        readCount: Number(r.tries),
        maxTries: Number(r.max_tries),
        enqueuedAt: idTime(r.id, nowMs),
        visibleAt: new Date(Number(r.deliver_at) * 1000),
        lastReadAt: r.delivered_at > 0n ? new Date(Number(r.delivered_at) * 1000) : null,
        ...bodyOf(r.message),
        headers: a !== undefined && Object.keys(a).length > 0 ? a : null,
      };
    });
  }

  /**
   * How many messages the queue's rate limit lets out now, by SmoothMQ's per-second buckets:
   * rate >= 1 allows floor(rate) per second; 0 < rate < 1 allows one message per 1/rate
   * seconds, judged by the average over that window. -1 (or no rate_limits table): no limit.
   */
  rateAllowance(queue: ResolvedQueue, now: bigint, wanted: number): number {
    const rate = queue.rateLimit;
    if (rate < 0 || !this.hasRateLimits) return wanted;
    if (rate === 0) return 0;
    const key = { tenant: this.tenant, queue: queue.id };
    if (rate < 1) {
      const windowSec = BigInt(Math.floor(1 / rate));
      const since = now - windowSec + 1n;
      const seen = this.stmt<{ n: bigint; first_ts: bigint | null }>(SQL.RATE_WINDOW).get({ ...key, since });
      this.stmt(SQL.RATE_PRUNE).run({ ...key, before: since - 1n });
      if (seen !== undefined && seen.first_ts !== null) {
        const observed = Number(seen.n) / Number(now - seen.first_ts + 1n);
        if (observed >= rate) return 0;
      }
      return Math.min(wanted, 1);
    }
    const bucket = this.column<bigint>(SQL.RATE_BUCKET).get({ ...key, now });
    this.stmt(SQL.RATE_PRUNE).run({ ...key, before: now - 1n });
    const used = bucket === undefined ? 0 : Number(bucket);
    return Math.max(0, Math.min(wanted, Math.floor(rate) - used));
  }

  recordRate(queue: ResolvedQueue, now: bigint, n: number): void {
    if (n > 0 && queue.rateLimit > 0 && this.hasRateLimits) {
      this.stmt(SQL.RATE_RECORD).run({ tenant: this.tenant, queue: queue.id, now, n: BigInt(n) });
    }
  }
}
