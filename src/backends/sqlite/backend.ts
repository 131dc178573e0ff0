// The SmoothMQ SQLite backend (better-sqlite3). better-sqlite3 is synchronous; the methods
// are async only because the Backend contract is. Every integer comes back as bigint
// (safeIntegers): snowflake ids exceed 2^53.
import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { SmqError, invalidInput, queueNotFound } from '../../errors.js';
import type { OpenOptions } from '../index.js';
import { validateQueueName } from '../names.js';
import {
  MESSAGE_STATES,
  type Backend,
  type Capabilities,
  type CreateQueueOptions,
  type HealthInfo,
  type ListQueuesOptions,
  type Message,
  type MessageId,
  type MessageState,
  type PeekOptions,
  type QueueStats,
  type ReceiveOptions,
  type RefusedBody,
  type SendInput,
  type ServerInfo,
} from '../types.js';
import { BUSY_TIMEOUT_MS, isPrimaryKeyViolation, mapSqliteError } from './errors.js';
import { openSmoothMqFile } from './open.js';
import { SnowflakeGenerator, decomposeSnowflake } from './snowflake.js';
import * as SQL from './sql.js';

export const SQLITE_CAPABILITIES: Capabilities = Object.freeze({
  archive: false,
  headers: false,
  attributes: true,
  tenants: true,
  maxRetries: true,
  failedState: true,
  unlogged: false,
  jsonBodies: false,
  receiveByRunId: true,
});

/** SmoothMQ's defaults for a new queue. */
export const DEFAULT_VISIBILITY_TIMEOUT_SEC = 30;
export const DEFAULT_MAX_RETRIES = -1; // unlimited
export const DEFAULT_RATE_LIMIT = -1; // unlimited; 0 pauses the queue
export const DEFAULT_TENANT = 1;

/** SmoothMQ's SQS layer stores each attribute's type beside it as `<name>_DataType`. */
const DATA_TYPE_SUFFIX = '_DataType';
const STRING_DATA_TYPE = 'String';

/** Attempts at an insert when a snowflake id collides with another writer's. */
const ID_ATTEMPTS = 5;
const MAX_INT64 = (1n << 63n) - 1n;
/** Ids whose time part falls outside this range were not made by a snowflake generator. */
const PLAUSIBLE_ID_TIME_MS = { min: Date.UTC(2015, 0, 1), maxAheadMs: 24 * 3600 * 1000 };
const WAL_WARN_BYTES = 64 * 1024 * 1024;

// One shared cell to sleep on: Atomics.wait blocks the current thread (main or worker).
const pauseCell = new Int32Array(new SharedArrayBuffer(4));
function blockingPause(ms: number): void {
  if (ms > 0) Atomics.wait(pauseCell, 0, 0, ms);
}

type Params = Record<string, unknown>;

interface QueueRow {
  readonly id: bigint;
  readonly max_retries: bigint;
  readonly visibility_timeout: bigint;
  readonly rate_limit: number | bigint;
}

interface MessageRow {
  readonly id: bigint;
  readonly tries: bigint;
  readonly max_tries: bigint;
  readonly deliver_at: bigint;
  readonly delivered_at: bigint;
  readonly message: string | Buffer | bigint | number | null;
}

interface KvRow {
  readonly message_id: bigint;
  readonly k: string;
  readonly v: string | Buffer | bigint | number | null;
}

interface StatsRow {
  readonly queue_id: bigint;
  readonly tenant_id: bigint;
  readonly name: string;
  readonly rate_limit: number | bigint;
  readonly max_retries: bigint;
  readonly visibility_timeout: bigint;
  readonly total: bigint;
  readonly failed: bigint;
  readonly ready: bigint;
  readonly in_flight: bigint;
  readonly delayed: bigint;
  readonly oldest_id: bigint | null;
  readonly newest_id: bigint | null;
}

interface ResolvedQueue {
  readonly id: bigint;
  readonly maxRetries: bigint;
  readonly visibilityTimeoutSec: bigint;
  readonly rateLimit: number;
}

/** SmoothMQ's clock: Unix seconds. */
const unixNow = (): bigint => BigInt(Math.floor(Date.now() / 1000));

function text(v: string | Buffer | bigint | number | null): string {
  if (v === null) return '';
  if (typeof v === 'string') return v;
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  return String(v);
}

/** The same rules as sql.ts's STATE_EXPR, for rows just returned by an UPDATE. */
export function messageStateAt(row: Pick<MessageRow, 'tries' | 'max_tries' | 'deliver_at'>, now: bigint): MessageState {
  if (row.deliver_at <= now) {
    return row.max_tries !== -1n && row.tries >= row.max_tries ? 'failed' : 'ready';
  }
  return row.tries > 0n ? 'inflight' : 'delayed';
}

/** Enqueue/creation time carried in a snowflake id, or null when the id is not one. */
function idTime(id: bigint, nowMs: number): Date | null {
  if (id < 0n) return null;
  const { timeMs } = decomposeSnowflake(id);
  if (timeMs < PLAUSIBLE_ID_TIME_MS.min || timeMs > nowMs + PLAUSIBLE_ID_TIME_MS.maxAheadMs) return null;
  return new Date(timeMs);
}

function ageSec(id: bigint | null, nowMs: number): number | null {
  if (id === null) return null;
  const t = idTime(id, nowMs);
  return t === null ? null : Math.max(0, Math.floor((nowMs - t.getTime()) / 1000));
}

function idsJson(ids: readonly bigint[]): string {
  return `[${ids.map((id) => id.toString()).join(',')}]`;
}

/** Keeps the caller's order and drops duplicates. */
function inInputOrder(requested: readonly bigint[], affected: Iterable<bigint>): bigint[] {
  const hit = new Set<bigint>(affected);
  const out: bigint[] = [];
  for (const id of requested) {
    if (hit.has(id)) {
      out.push(id);
      hit.delete(id);
    }
  }
  return out;
}

function wholeSeconds(value: number, what: string): bigint {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalidInput(`${what} must be a number of seconds >= 0, got ${String(value)}`);
  }
  // SmoothMQ keeps whole seconds; round up so a lease is never shorter than asked.
  return BigInt(Math.ceil(value));
}

function positiveInt(value: number, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw invalidInput(`${what} must be a whole number >= 1, got ${String(value)}`);
  }
  return value;
}

function checkIds(ids: readonly MessageId[]): bigint[] {
  if (!Array.isArray(ids)) throw invalidInput('message ids must be a list');
  return ids.map((id) => {
    if (typeof id !== 'bigint' || id < 0n || id > MAX_INT64) {
      throw invalidInput(`invalid message id ${String(id)}`, 'ids are whole numbers, as shown by smq peek');
    }
    return id;
  });
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
      throw invalidInput(`attribute name ${JSON.stringify(k)} ends in ${DATA_TYPE_SUFFIX}`, 'SmoothMQ keeps attribute types under that suffix; choose another name');
    }
    if (typeof v !== 'string') throw invalidInput(`attribute ${JSON.stringify(k)} must be text`);
  }
  return entries;
}

/** kvs rows -> {name: value}, without the `<name>_DataType` rows. */
function attributesOf(rows: readonly KvRow[]): Map<bigint, Record<string, string>> {
  const raw = new Map<bigint, Map<string, string>>();
  for (const row of rows) {
    let m = raw.get(row.message_id);
    if (m === undefined) raw.set(row.message_id, (m = new Map()));
    m.set(row.k, text(row.v));
  }
  const out = new Map<bigint, Record<string, string>>();
  for (const [id, m] of raw) {
    const attrs: Record<string, string> = {};
    for (const [k, v] of m) {
      const isTypeRow = k.endsWith(DATA_TYPE_SUFFIX) && m.has(k.slice(0, -DATA_TYPE_SUFFIX.length));
      if (!isTypeRow) attrs[k] = v;
    }
    out.set(id, attrs);
  }
  return out;
}

class SqliteBackend implements Backend {
  readonly kind = 'sqlite' as const;
  readonly capabilities = SQLITE_CAPABILITIES;

  private readonly statements = new Map<string, Database.Statement<[Params], unknown>>();
  private readonly plucked = new Map<string, Database.Statement<[Params], unknown>>();
  private readonly snowflakes = new SnowflakeGenerator();

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
    private readonly tenant: number,
    /** listQueues shows every tenant unless a tenant was chosen. */
    private readonly tenantChosen: boolean,
    private readonly readOnly: boolean,
    private readonly hasRateLimits: boolean,
    /** How long a call waits for another connection's lock (named in the error). */
    private readonly busyTimeoutMs: number = BUSY_TIMEOUT_MS,
    /** This open created SmoothMQ's tables (smq init reports it). */
    private readonly created = false,
  ) {}

  // ---- plumbing ---------------------------------------------------------------------------

  private stmt<R>(sql: string): Database.Statement<[Params], R> {
    let s = this.statements.get(sql);
    if (s === undefined) {
      s = this.db.prepare<[Params], unknown>(sql);
      this.statements.set(sql, s);
    }
    return s as Database.Statement<[Params], R>;
  }

  /** A cached statement returning its first column only (pluck mode sticks to the statement). */
  private column<R>(sql: string): Database.Statement<[Params], R> {
    let s = this.plucked.get(sql);
    if (s === undefined) {
      s = this.db.prepare<[Params], unknown>(sql).pluck();
      this.plucked.set(sql, s);
    }
    return s as Database.Statement<[Params], R>;
  }

  /** Runs fn with SQLite's errors translated; refuses after close(). */
  private run<T>(fn: () => T): T {
    if (!this.db.open) throw new SmqError('connection', `the connection to ${this.path} is closed`);
    try {
      return fn();
    } catch (e) {
      throw mapSqliteError(e, this.path, this.readOnly, this.busyTimeoutMs);
    }
  }

  /** BEGIN IMMEDIATE: takes the write lock up front, so reads inside see what they change. */
  private writeTx<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** Retries an insert with fresh ids when a snowflake collides with another writer's. */
  private withFreshIds<T>(fn: () => T): T {
    for (let attempt = 1; ; attempt++) {
      try {
        return fn();
      } catch (e) {
        if (!isPrimaryKeyViolation(e) || attempt >= ID_ATTEMPTS) throw e;
        this.snowflakes.reseed();
      }
    }
  }

  private findQueue(name: string): ResolvedQueue | undefined {
    const row = this.stmt<QueueRow>(SQL.FIND_QUEUE).get({ tenant: this.tenant, name });
    if (row === undefined) return undefined;
    return {
      id: row.id,
      maxRetries: row.max_retries,
      visibilityTimeoutSec: row.visibility_timeout,
      rateLimit: Number(row.rate_limit),
    };
  }

  private requireQueue(name: string): ResolvedQueue {
    const q = this.findQueue(name);
    if (q === undefined) throw queueNotFound(name);
    return q;
  }

  private attributesFor(queue: ResolvedQueue, ids: readonly bigint[]): Map<bigint, Record<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = this.stmt<KvRow>(SQL.SELECT_KVS).all({ tenant: this.tenant, queue: queue.id, ids: idsJson(ids) });
    return attributesOf(rows);
  }

  private toMessages(queue: ResolvedQueue, rows: readonly MessageRow[], now: bigint): Message[] {
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
        body: text(r.message),
        headers: a !== undefined && Object.keys(a).length > 0 ? a : null,
      };
    });
  }

  private toStats(row: StatsRow): QueueStats {
    const nowMs = Date.now();
    return {
      name: row.name,
      tenant: Number(row.tenant_id),
      ready: Number(row.ready),
      inFlight: Number(row.in_flight),
      delayed: Number(row.delayed),
      failed: Number(row.failed),
      total: Number(row.total),
      oldestAgeSec: ageSec(row.oldest_id, nowMs),
      newestAgeSec: ageSec(row.newest_id, nowMs),
      estimated: false,
      createdAt: idTime(row.queue_id, nowMs),
      visibilityTimeoutSec: Number(row.visibility_timeout),
      maxRetries: Number(row.max_retries),
      rateLimit: Number(row.rate_limit),
    };
  }

  /**
   * How many messages the queue's rate limit lets out now, by SmoothMQ's per-second buckets:
   * rate >= 1 allows floor(rate) per second; 0 < rate < 1 allows one message per 1/rate
   * seconds, judged by the average over that window. -1 (or no rate_limits table): no limit.
   */
  private rateAllowance(queue: ResolvedQueue, now: bigint, wanted: number): number {
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

  private recordRate(queue: ResolvedQueue, now: bigint, n: number): void {
    if (n > 0 && queue.rateLimit > 0 && this.hasRateLimits) {
      this.stmt(SQL.RATE_RECORD).run({ tenant: this.tenant, queue: queue.id, now, n: BigInt(n) });
    }
  }

  // ---- Backend ----------------------------------------------------------------------------

  async info(): Promise<ServerInfo> {
    return this.run(() => {
      const version = this.db.prepare(SQL.SQLITE_VERSION).pluck().get() as string;
      const info: ServerInfo = { backend: 'sqlite', serverVersion: `SQLite ${version}`, schema: 'SmoothMQ', location: this.path };
      return this.created ? { ...info, schemaCreated: true } : info;
    });
  }

  async listQueues(_options?: ListQueuesOptions): Promise<QueueStats[]> {
    // SQLite counts are exact and cheap through idx_message: nothing is estimated.
    return this.run(() =>
      this.stmt<StatsRow>(SQL.LIST_QUEUE_STATS)
        .all({ now: unixNow(), tenant: this.tenantChosen ? this.tenant : null })
        .map((row) => this.toStats(row)),
    );
  }

  async queueStats(queue: string): Promise<QueueStats> {
    const name = validateQueueName('sqlite', queue);
    return this.run(() => {
      const row = this.stmt<StatsRow>(SQL.QUEUE_STATS).get({ now: unixNow(), tenant: this.tenant, name });
      if (row === undefined) throw queueNotFound(name);
      return this.toStats(row);
    });
  }

  async createQueue(queue: string, options: CreateQueueOptions = {}): Promise<boolean> {
    const name = validateQueueName('sqlite', queue);
    if (options.unlogged) throw invalidInput('unlogged queues exist only on pgmq');
    const vt = options.visibilityTimeoutSec ?? DEFAULT_VISIBILITY_TIMEOUT_SEC;
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT;
    if (!Number.isInteger(vt) || vt < 0) throw invalidInput(`visibility timeout must be whole seconds >= 0, got ${vt}`);
    if (!Number.isInteger(maxRetries) || maxRetries < -1) {
      throw invalidInput(`max retries must be a whole number >= 0, or -1 for unlimited, got ${maxRetries}`);
    }
    if (!Number.isFinite(rateLimit) || (rateLimit < 0 && rateLimit !== -1)) {
      throw invalidInput(`rate limit must be messages per second >= 0, or -1 for unlimited, got ${rateLimit}`);
    }
    return this.run(() =>
      this.withFreshIds(() => {
        const result = this.stmt(SQL.INSERT_QUEUE).run({
          id: this.snowflakes.next(),
          tenant: this.tenant,
          name,
          rateLimit,
          maxRetries: BigInt(maxRetries),
          visibilityTimeout: BigInt(vt),
        });
        return result.changes === 1;
      }),
    );
  }

  async dropQueue(queue: string): Promise<void> {
    const name = validateQueueName('sqlite', queue);
    this.run(() =>
      this.writeTx(() => {
        const q = this.requireQueue(name);
        const key = { tenant: this.tenant, queue: q.id };
        this.stmt(SQL.DELETE_QUEUE_KVS).run(key);
        this.stmt(SQL.DELETE_QUEUE_MESSAGES).run(key);
        if (this.hasRateLimits) this.stmt(SQL.DELETE_QUEUE_RATE_LIMITS).run(key);
        this.stmt(SQL.DELETE_QUEUE).run(key);
      }),
    );
  }

  async purgeQueue(queue: string): Promise<number> {
    const name = validateQueueName('sqlite', queue);
    return this.run(() =>
      this.writeTx(() => {
        const q = this.requireQueue(name);
        const key = { tenant: this.tenant, queue: q.id };
        this.stmt(SQL.DELETE_QUEUE_KVS).run(key);
        return this.stmt(SQL.DELETE_QUEUE_MESSAGES).run(key).changes;
      }),
    );
  }

  async send(queue: string, message: SendInput): Promise<MessageId> {
    const [id] = await this.sendBatch(queue, [message]);
    if (id === undefined) throw new SmqError('database', 'send returned no id');
    return id;
  }

  async sendBatch(queue: string, messages: readonly SendInput[]): Promise<MessageId[]> {
    const name = validateQueueName('sqlite', queue);
    if (!Array.isArray(messages)) throw invalidInput('messages must be a list');
    const prepared = messages.map((m, i) => {
      if (m === null || typeof m !== 'object' || typeof m.body !== 'string') {
        throw invalidInput(`message ${i + 1} has no text body`);
      }
      return {
        body: m.body,
        delay: m.delaySec === undefined ? 0n : wholeSeconds(m.delaySec, 'delay'),
        attributes: checkAttributes(m.headers),
      };
    });
    return this.run(() =>
      this.withFreshIds(() =>
        this.writeTx(() => {
          const q = this.requireQueue(name);
          const now = unixNow();
          const insertMessage = this.stmt(SQL.INSERT_MESSAGE);
          const insertKv = this.stmt(SQL.INSERT_KV);
          const ids: bigint[] = [];
          for (const m of prepared) {
            const id = this.snowflakes.next();
            insertMessage.run({
              id,
              tenant: this.tenant,
              queue: q.id,
              deliverAt: now + m.delay,
              maxTries: q.maxRetries,
              body: m.body,
            });
            for (const [k, v] of m.attributes) {
              const row = { tenant: this.tenant, queue: q.id, message: id };
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

  /** SmoothMQ stores bodies as text, as given: every string is taken. */
  async checkBodies(): Promise<RefusedBody | undefined> {
    return undefined;
  }

  async receive(queue: string, options: ReceiveOptions): Promise<Message[]> {
    const name = validateQueueName('sqlite', queue);
    const qty = positiveInt(options.qty, 'quantity');
    const vtOverride = options.vtSec === undefined ? undefined : wholeSeconds(options.vtSec, 'visibility timeout');
    const mode = options.dequeue ?? 'safe';
    if (mode !== 'safe' && mode !== 'naive') throw invalidInput(`unknown dequeue mode ${JSON.stringify(mode)}`);
    const pauseMs = options.naivePauseMs ?? 0;
    if (!Number.isFinite(pauseMs) || pauseMs < 0) throw invalidInput(`naive pause must be >= 0 ms, got ${pauseMs}`);

    const runId = options.runId;
    return this.run(() => (mode === 'safe' ? this.claimSafely(name, qty, vtOverride, runId) : this.claimNaively(name, qty, vtOverride, pauseMs, runId)));
  }

  /** One BEGIN IMMEDIATE transaction: choose, claim and read attributes under the write lock. */
  private claimSafely(name: string, qty: number, vtOverride: bigint | undefined, runId: string | undefined): Message[] {
    return this.writeTx(() => {
      const q = this.requireQueue(name);
      const now = unixNow();
      const limit = this.rateAllowance(q, now, qty);
      if (limit === 0) return [];
      const vt = vtOverride ?? q.visibilityTimeoutSec;
      const params = { tenant: this.tenant, queue: q.id, now, visibleAt: now + vt, limit: BigInt(limit) };
      const rows =
        runId === undefined
          ? this.stmt<MessageRow>(SQL.CLAIM_MESSAGES).all(params)
          : this.stmt<MessageRow>(SQL.CLAIM_RUN_MESSAGES).all({ ...params, runId });
      rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      this.recordRate(q, now, rows.length);
      return this.toMessages(q, rows, now);
    });
  }

  /**
   * SmoothMQ's own dequeue, deliberately unsafe across connections: SELECT the candidates,
   * then UPDATE them by id in a separate statement without checking they are still visible.
   * Two connections that select in the same window both get the same messages.
   */
  private claimNaively(name: string, qty: number, vtOverride: bigint | undefined, pauseMs: number, runId: string | undefined): Message[] {
    const q = this.requireQueue(name);
    const now = unixNow();
    const limit = this.rateAllowance(q, now, qty);
    if (limit === 0) return [];
    const key = { tenant: this.tenant, queue: q.id };
    const candidates =
      runId === undefined
        ? this.column<bigint>(SQL.NAIVE_SELECT_CANDIDATES).all({ ...key, now, limit: BigInt(limit) })
        : this.column<bigint>(SQL.NAIVE_SELECT_RUN_CANDIDATES).all({ ...key, now, limit: BigInt(limit), runId });
    if (candidates.length === 0) return [];
    blockingPause(pauseMs);
    const vt = vtOverride ?? q.visibilityTimeoutSec;
    const rows = this.stmt<MessageRow>(SQL.NAIVE_UPDATE_BY_ID).all({ ...key, now, visibleAt: now + vt, ids: idsJson(candidates) });
    rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.recordRate(q, now, rows.length);
    return this.toMessages(q, rows, now);
  }

  async delete(queue: string, ids: readonly MessageId[]): Promise<MessageId[]> {
    const name = validateQueueName('sqlite', queue);
    const wanted = checkIds(ids);
    return this.run(() =>
      this.writeTx(() => {
        const q = this.requireQueue(name);
        if (wanted.length === 0) return [];
        const key = { tenant: this.tenant, queue: q.id };
        const deleted = this.column<bigint>(SQL.DELETE_MESSAGES).all({ ...key, ids: idsJson(wanted) });
        if (deleted.length > 0) this.stmt(SQL.DELETE_MESSAGE_KVS).run({ ...key, ids: idsJson(deleted) });
        return inInputOrder(wanted, deleted);
      }),
    );
  }

  async archive(_queue: string, _ids: readonly MessageId[]): Promise<MessageId[]> {
    throw new SmqError('invalid-input', 'archive is not supported on SmoothMQ SQLite', {
      hint: 'SmoothMQ has no archive table; delete the messages instead',
    });
  }

  async setVisibility(queue: string, ids: readonly MessageId[], vtSec: number): Promise<MessageId[]> {
    const name = validateQueueName('sqlite', queue);
    const wanted = checkIds(ids);
    const vt = wholeSeconds(vtSec, 'visibility timeout');
    return this.run(() =>
      this.writeTx(() => {
        const q = this.requireQueue(name);
        if (wanted.length === 0) return [];
        const changed = this.column<bigint>(SQL.SET_VISIBILITY).all({ tenant: this.tenant, queue: q.id, visibleAt: unixNow() + vt, ids: idsJson(wanted) });
        return inInputOrder(wanted, changed);
      }),
    );
  }

  async peek(queue: string, options: PeekOptions): Promise<Message[]> {
    const name = validateQueueName('sqlite', queue);
    const limit = positiveInt(options.limit, 'limit');
    const state = options.state ?? 'all';
    if (state !== 'all' && !(MESSAGE_STATES as readonly string[]).includes(state)) {
      throw invalidInput(`unknown state ${JSON.stringify(state)}`, `use one of ${MESSAGE_STATES.join(', ')} or all`);
    }
    const order = options.order ?? 'oldest';
    if (order !== 'oldest' && order !== 'newest') throw invalidInput(`unknown order ${JSON.stringify(order)}`, 'use oldest or newest');
    const [after] = options.afterId === undefined ? [null] : checkIds([options.afterId]);
    const [id] = options.id === undefined ? [undefined] : checkIds([options.id]);

    // A deferred transaction: one consistent snapshot for messages and their attributes,
    // and nothing but SELECTs inside.
    return this.run(() =>
      this.db.transaction(() => {
        const q = this.requireQueue(name);
        const now = unixNow();
        const params = { tenant: this.tenant, queue: q.id, now, state };
        let rows: MessageRow[];
        if (id !== undefined) {
          rows = this.stmt<MessageRow>(SQL.PEEK_ONE).all({ ...params, id });
        } else {
          const sql = order === 'oldest' ? SQL.PEEK_OLDEST : SQL.PEEK_NEWEST;
          rows = this.stmt<MessageRow>(sql).all({ ...params, after, limit: BigInt(limit) });
        }
        return this.toMessages(q, rows, now);
      }).deferred(),
    );
  }

  async health(): Promise<HealthInfo> {
    return this.run(() => {
      const pageSize = Number(this.db.pragma('page_size', { simple: true }));
      const pages = Number(this.db.pragma('page_count', { simple: true }));
      const free = Number(this.db.pragma('freelist_count', { simple: true }));
      let walBytes = 0;
      try {
        walBytes = fs.statSync(`${this.path}-wal`).size;
      } catch {
        walBytes = 0;
      }
      const mb = (b: number) => `${(b / (1024 * 1024)).toFixed(1)} MB`;
      const warnings: string[] = [];
      if (walBytes > WAL_WARN_BYTES) {
        warnings.push(`WAL is ${mb(walBytes)}: a long-lived reader may be holding back checkpoints`);
      }
      return {
        summary: `file ${mb(pageSize * pages)}, WAL ${mb(walBytes)}, ${free} free page${free === 1 ? '' : 's'}`,
        warnings,
      };
    });
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

export async function openSqliteBackend(path: string, options: OpenOptions = {}): Promise<Backend> {
  const tenant = options.tenant ?? DEFAULT_TENANT;
  if (!Number.isSafeInteger(tenant)) throw invalidInput(`tenant must be a whole number, got ${String(options.tenant)}`);
  // A locked file blocks the (synchronous) call: the busy timeout is its deadline, never
  // longer than the caller's call deadline.
  const busyTimeoutMs = Math.min(BUSY_TIMEOUT_MS, options.callTimeoutMs ?? BUSY_TIMEOUT_MS);
  const opened = openSmoothMqFile(path, { readOnly: options.readOnly, create: options.create, busyTimeoutMs });
  return new SqliteBackend(
    opened.db,
    path,
    tenant,
    options.tenant !== undefined,
    options.readOnly === true,
    opened.hasRateLimits,
    busyTimeoutMs,
    opened.created,
  );
}
