// What every part of the pgmq backend shares: its connections (a pg.Pool, or one dedicated
// WirePool for a tester worker), the error context, the columns this pgmq has, and the
// small caches that spare round trips (queue tables, checked names, prepared statements).
import type pg from 'pg';
import { queueNotFound } from '../../errors.js';
import { validateQueueName, type NameUse } from '../names.js';
import { mapPgError, READ_ONLY_SQL_TRANSACTION, type PgErrorContext } from './errors.js';
import type { Connector } from './connector.js';
import { closeWithin, SocketTracker } from './sockets.js';
import * as sql from './sql.js';
import type { WireQuery } from './wire.js';

/** What the backend uses of a pg.Pool; a WirePool (one dedicated connection) has the same. */
export interface QueryClient {
  query<R extends pg.QueryResultRow>(q: string | WireQuery, values?: unknown[]): Promise<{ rows: R[] }>;
}
export interface PoolClient extends QueryClient {
  release(destroy?: boolean | Error): void;
}
export interface Pool extends QueryClient {
  connect(): Promise<PoolClient>;
  end(): Promise<void>;
}

/** How long close() waits for the server to see the connections off before cutting them. */
export const CLOSE_GRACE_MS = 1_000;

// Bigint columns (msg_id, counts) arrive as strings; we parse them where they are used.
export const toNumber = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

export class PgmqSession {
  /** Server-quoted table names by queue, for direct reads (peek, naive dequeue). */
  private readonly tables = new Map<string, string>();
  /** Names already checked: the tester's loops pass the same name on every call. */
  private readonly validNames = new Set<string>();
  /** Names of the stats statements prepared so far (see queues.ts MAX_PREPARED_STATS). */
  readonly preparedStats = new Set<string>();
  /** The database encoding is UTF8; asked once, when a body needs it. */
  utf8: boolean | undefined;

  constructor(
    readonly pool: Pool,
    readonly ctx: PgErrorContext,
    readonly columns: sql.Columns,
    private readonly sockets = new SocketTracker(),
    /** How its connections are made; the server the latest went to (connector.current). */
    readonly connector?: Connector,
  ) {}

  /** One statement's rows; its error mapped (mapPgError). One promise per call: every tester call comes here. */
  run<R extends pg.QueryResultRow>(q: sql.Query, queue?: string): Promise<R[]> {
    const mapped = (e: unknown) => mapPgError(e, queue === undefined ? this.ctx : { ...this.ctx, queue });
    let answer: Promise<{ rows: R[] }>;
    try {
      answer = this.pool.query<R>(q);
    } catch (e) {
      return Promise.reject(mapped(e));
    }
    return answer.then(
      (r) => r.rows,
      (e: unknown) => {
        throw mapped(e);
      },
    );
  }

  name(queue: string, use: NameUse = 'use'): string {
    if (use === 'use' && this.validNames.has(queue)) return queue;
    validateQueueName('pgmq', queue, use);
    if (this.validNames.size < 1000) this.validNames.add(queue);
    return queue;
  }

  /** The name pgmq.meta keeps for the queue `queue` stands for (any letter case); undefined if none. */
  async stored(queue: string): Promise<string | undefined> {
    const rows = await this.run<{ queue_name: string }>(sql.queueTableQuery(queue), queue);
    return rows[0]?.queue_name;
  }

  async table(queue: string): Promise<string> {
    const cached = this.tables.get(queue);
    if (cached) return cached;
    const rows = await this.run<{ rel: string | null }>(sql.queueTableQuery(this.name(queue)), queue);
    const rel = rows[0]?.rel;
    if (!rel) throw queueNotFound(queue);
    if (this.tables.size >= 1000) this.tables.clear();
    this.tables.set(queue, rel);
    return rel;
  }

  /** A queue was dropped: its cached table name must not be used again. */
  forgetTables(): void {
    this.tables.clear();
  }

  async transaction<T>(queue: string | undefined, fn: (client: PoolClient) => Promise<T>, begin = sql.BEGIN): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw mapPgError(e, this.ctx);
    }
    let broken = false;
    try {
      await client.query(begin);
      const out = await fn(client);
      await client.query(sql.COMMIT);
      return out;
    } catch (e) {
      // Refused as read-only: the server is a standby (now); the next connection goes elsewhere.
      if ((e as { code?: string }).code === READ_ONLY_SQL_TRANSACTION) broken = true;
      await client.query(sql.ROLLBACK).catch(() => {
        broken = true;
      });
      throw mapPgError(e, queue === undefined ? this.ctx : { ...this.ctx, queue });
    } finally {
      client.release(broken);
    }
  }

  /** Returns within CLOSE_GRACE_MS even if the server never answers (calls in flight then fail). */
  async close(): Promise<void> {
    await closeWithin(() => this.pool.end(), this.sockets, CLOSE_GRACE_MS);
  }
}
