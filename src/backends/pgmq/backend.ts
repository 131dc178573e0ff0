// The pgmq backend: node-postgres against the pgmq extension or smq's compatible schema.
import pg from 'pg';
import { SmqError, invalidInput, queueNotFound } from '../../errors.js';
import type { OpenOptions } from '../index.js';
import { validateQueueName, type NameUse } from '../names.js';
import { redactSecrets } from '../target.js';
import type {
  Backend,
  Capabilities,
  ConnectionBudget,
  CreateQueueOptions,
  HealthInfo,
  ListQueuesOptions,
  Message,
  MessageId,
  MessageState,
  PeekOptions,
  QueueStats,
  ReceiveOptions,
  RefusedBody,
  SendInput,
  ServerInfo,
} from '../types.js';
import { resolveClientConfig } from './client-config.js';
import { pgConnection } from './connection.js';
import { compatVersion } from './install.js';
import { mapPgError, type PgErrorContext } from './errors.js';
import { firstRefusedBody, runSendStatements, sendStatements, serverIsUtf8 } from './send.js';
import * as sql from './sql.js';
import { closeWithin, SocketTracker } from './sockets.js';
import { WirePool, type WireQuery } from './wire.js';

/** What the backend uses of a pg.Pool; a WirePool (one dedicated connection) has the same. */
interface QueryClient {
  query<R extends pg.QueryResultRow>(q: string | WireQuery, values?: unknown[]): Promise<{ rows: R[] }>;
}
interface PoolClient extends QueryClient {
  release(destroy?: boolean | Error): void;
}
interface Pool extends QueryClient {
  connect(): Promise<PoolClient>;
  end(): Promise<void>;
}

// Bigint columns (msg_id, counts) arrive as strings; we parse them where they are used.
// Above this many live rows a queue's counts are estimated (marked ~) in listings: a refresh
// of many queues then costs index look-ups, not scans. One queue's stats count further.
const DEFAULT_EXACT_THRESHOLD = 1_000;
const SINGLE_QUEUE_EXACT_THRESHOLD = 100_000;
/** Distinct stats statements a backend prepares at most; later ones run unprepared. */
const MAX_PREPARED_STATS = 64;
const DEFAULT_VT_SEC = 30;
/** How long close() waits for the server to see the connections off before cutting them. */
const CLOSE_GRACE_MS = 1_000;

export type Isolation = 'read-committed' | 'repeatable-read' | 'serializable';

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

const toNumber = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

export async function openPgmqBackend(url: string | undefined, options: OpenOptions = {}): Promise<PgmqBackend> {
  const conn = pgConnection(url);
  const location = conn.display;
  const ctx: PgErrorContext = { location, secrets: conn.secrets, callTimeoutMs: options.callTimeoutMs };
  // Read-only and isolation are set on the connection, so the server enforces them.
  const settings: string[] = [];
  if (options.readOnly) settings.push('-c default_transaction_read_only=on');
  if (options.isolation) settings.push(`-c default_transaction_isolation=${options.isolation.replace('-', '\\ ')}`);
  const sockets = new SocketTracker();
  let config: pg.ClientConfig;
  try {
    config = await resolveClientConfig(conn, {
      applicationName: 'smq',
      settings,
      connectTimeoutMs: options.connectTimeoutMs ?? 5000,
      stream: sockets.stream,
    });
  } catch (e) {
    await closeWithin(async () => undefined, sockets, 0);
    throw mapPgError(e, ctx);
  }
  const callTimeoutMs = options.callTimeoutMs;
  let pool: Pool;
  if (options.dedicated) pool = new WirePool(config, callTimeoutMs === undefined ? {} : { callTimeoutMs, location }) as Pool;
  else {
    // The caller's deadline (deadline.ts) answers first; a bit later node-postgres gives up on
    // the query too, and the pool replaces the client that is stuck with it.
    const queryTimeout = callTimeoutMs === undefined ? {} : { query_timeout: callTimeoutMs + 1_000 };
    const p = new pg.Pool({ ...config, ...queryTimeout, max: options.poolSize ?? 4, idleTimeoutMillis: 10_000 });
    // An idle client's error (server restart) must not kill the process; the next query reports it.
    p.on('error', () => {});
    pool = p as unknown as Pool;
  }
  try {
    const probe = await pool.query<{ version: string; isolation: string; ext: string | null; compat: boolean; meta: boolean; cols: string[] | null; conditional: boolean }>(`
      SELECT current_setting('server_version') AS version,
             current_setting('transaction_isolation') AS isolation,
             (SELECT extversion FROM pg_extension WHERE extname = 'pgmq') AS ext,
             to_regclass('pgmq.smq_compat') IS NOT NULL AS compat,
             to_regclass('pgmq.meta') IS NOT NULL AS meta,
             to_regprocedure('pgmq.read(text,integer,integer,jsonb)') IS NOT NULL AS conditional,
             (SELECT array_agg(attname::text) FROM pg_attribute
               WHERE attrelid = to_regclass('pgmq.message_record') AND attnum > 0 AND NOT attisdropped) AS cols`);
    const row = probe.rows[0]!;
    let schema: string;
    if (row.ext) schema = `pgmq ${row.ext}`;
    else if (row.compat) {
      const client = await pool.connect();
      try {
        schema = `smq compat schema (pgmq ${(await compatVersion(client as unknown as pg.ClientBase)) ?? '?'})`;
      } finally {
        client.release();
      }
    } else if (row.meta) {
      // pgmq installed from its plain SQL file: no extension row, and no version recorded.
      schema = 'pgmq, installed from its SQL file (version unknown)';
    } else {
      throw new SmqError('connection', `pgmq is not installed in ${location}`, {
        hint: `run 'smq init --url ...' to install it`,
      });
    }
    const cols = new Set(row.cols ?? []);
    const columns: sql.Columns = { headers: cols.has('headers'), lastReadAt: cols.has('last_read_at') };
    const info: ServerInfo = { backend: 'pgmq', serverVersion: `PostgreSQL ${row.version}`, schema, location, isolation: row.isolation };
    // pgmq 1.5+ (and the compat schema): read(queue, vt, qty, conditional jsonb); 1.4 has no filter.
    return new PgmqBackend(pool, ctx, columns, info, sockets, row.conditional);
  } catch (e) {
    await closeWithin(() => pool.end(), sockets, CLOSE_GRACE_MS);
    throw mapPgError(e, ctx);
  }
}

export class PgmqBackend implements Backend {
  readonly kind = 'pgmq' as const;
  readonly capabilities: Capabilities;
  /** Server-quoted table names by queue, for direct reads (peek, naive dequeue). */
  private readonly tables = new Map<string, string>();
  /** Names of the stats statements prepared so far (see MAX_PREPARED_STATS). */
  private readonly preparedStats = new Set<string>();

  constructor(
    readonly pool: Pool,
    private readonly ctx: PgErrorContext,
    readonly columns: sql.Columns,
    private readonly serverInfo: ServerInfo,
    private readonly sockets = new SocketTracker(),
    conditionalRead = false,
  ) {
    this.capabilities = {
      archive: true,
      headers: columns.headers,
      attributes: false,
      tenants: false,
      maxRetries: false,
      failedState: false,
      unlogged: true,
      jsonBodies: true,
      receiveByRunId: conditionalRead,
    };
  }

  private async run<R extends pg.QueryResultRow>(q: sql.Query, queue?: string): Promise<R[]> {
    try {
      const r = await this.pool.query<R>(q);
      return r.rows;
    } catch (e) {
      throw mapPgError(e, queue === undefined ? this.ctx : { ...this.ctx, queue });
    }
  }

  /** Names already checked: the tester's loops pass the same name on every call. */
  private readonly validNames = new Set<string>();

  private name(queue: string, use: NameUse = 'use'): string {
    if (use === 'use' && this.validNames.has(queue)) return queue;
    validateQueueName('pgmq', queue, use);
    if (this.validNames.size < 1000) this.validNames.add(queue);
    return queue;
  }

  async info(): Promise<ServerInfo> {
    return this.serverInfo;
  }

  async listQueues(options: ListQueuesOptions = {}): Promise<QueueStats[]> {
    return this.stats(null, options.exactThreshold ?? DEFAULT_EXACT_THRESHOLD);
  }

  async queueStats(queue: string): Promise<QueueStats> {
    const [stats] = await this.stats(this.name(queue), SINGLE_QUEUE_EXACT_THRESHOLD);
    if (!stats) throw queueNotFound(queue);
    return stats;
  }

  /** 1 + ceil(queues / STATS_CHUNK) round trips; see sql.ts for why two steps. */
  private async stats(queue: string | null, exactThreshold: number): Promise<QueueStats[]> {
    const catalog = await this.run<CatalogRow>(sql.queueCatalogQuery(queue), queue ?? undefined);
    const out: QueueStats[] = [];
    for (let start = 0; start < catalog.length; start += sql.STATS_CHUNK) {
      const chunk = catalog.slice(start, start + sql.STATS_CHUNK);
      const targets = chunk.map((c) => ({
        qrel: c.qrel,
        arel: c.arel,
        estimate: toNumber(c.q_live) > exactThreshold,
        estimateArchive: toNumber(c.a_live) > exactThreshold,
      }));
      const q = sql.queueStatsQuery(targets);
      // Bound the statements prepared on a long-lived connection (queues come and go).
      const named = this.preparedStats.size < MAX_PREPARED_STATS || this.preparedStats.has(q.name!);
      if (named) this.preparedStats.add(q.name!);
      const rows = await this.run<StatsRow>(named ? q : { text: q.text, values: q.values }, queue ?? undefined);
      for (const r of rows) out[start + r.i] = toStats(chunk[r.i]!, r);
    }
    return out.filter((x) => x !== undefined);
  }

  /** The name pgmq.meta keeps for the queue `queue` stands for (any letter case); undefined if none. */
  private async stored(queue: string): Promise<string | undefined> {
    const rows = await this.run<{ queue_name: string }>(sql.queueTableQuery(queue), queue);
    return rows[0]?.queue_name;
  }

  private async table(queue: string): Promise<string> {
    const cached = this.tables.get(queue);
    if (cached) return cached;
    const rows = await this.run<{ rel: string | null }>(sql.queueTableQuery(this.name(queue)), queue);
    const rel = rows[0]?.rel;
    if (!rel) throw queueNotFound(queue);
    if (this.tables.size >= 1000) this.tables.clear();
    this.tables.set(queue, rel);
    return rel;
  }

  async createQueue(queue: string, options: CreateQueueOptions = {}): Promise<boolean> {
    this.name(queue, 'create');
    const existing = await this.stored(queue);
    if (existing === queue) return false;
    // pgmq names a queue's tables by the lower-cased name: "Orders" beside "orders" (or
    // "ЗАКАЗЫ" beside "заказы") would share one table, and smq's compat schema would
    // create nothing at all. Say so instead of reporting a queue that is not there.
    if (existing !== undefined) {
      throw new SmqError('invalid-queue-name', `queue ${JSON.stringify(queue)} clashes with the existing queue ${JSON.stringify(existing)}`, {
        hint: `pgmq keeps both in one table named by the lower-cased name; use ${JSON.stringify(existing)}`,
      });
    }
    const fn = options.unlogged ? 'pgmq.create_unlogged' : 'pgmq.create';
    await this.run({ text: `SELECT ${fn}($1::text)`, values: [queue] }, queue);
    return true;
  }

  async dropQueue(queue: string): Promise<void> {
    this.name(queue);
    // pgmq's drop_queue removes the meta row of the exact name it is given: give it the stored one.
    const existing = await this.stored(queue);
    if (existing === undefined) throw queueNotFound(queue);
    this.tables.clear();
    await this.run({ text: 'SELECT pgmq.drop_queue($1::text)', values: [existing] }, queue);
  }

  async purgeQueue(queue: string): Promise<number> {
    this.name(queue);
    const existing = await this.stored(queue);
    if (existing === undefined) throw queueNotFound(queue);
    const rows = await this.run<{ n: string }>({ text: 'SELECT pgmq.purge_queue($1::text) AS n', values: [existing] }, queue);
    return toNumber(rows[0]?.n);
  }

  private checkDelay(delaySec: number | undefined): number {
    const d = delaySec ?? 0;
    if (!Number.isInteger(d) || d < 0) throw invalidInput(`invalid delay ${d}`, 'give a whole number of seconds, 0 or more');
    return d;
  }

  async send(queue: string, message: SendInput): Promise<MessageId> {
    // The body is not parsed here: the server's jsonb input checks it on every call anyway,
    // and its refusal (22P02/22P05) maps to the same invalid-input error, with nothing stored.
    this.name(queue);
    const delay = this.checkDelay(message.delaySec);
    const rows = await this.run<{ id: string }>(sql.sendQuery(queue, message.body, message.headers, delay, this.columns), queue);
    return BigInt(rows[0]!.id);
  }

  async sendBatch(queue: string, messages: readonly SendInput[]): Promise<MessageId[]> {
    this.name(queue);
    for (const m of messages) this.checkDelay(m.delaySec);
    const statements = sendStatements(queue, messages, this.columns);
    if (statements.length === 0) return [];
    // One statement is its own transaction; more share one, so all are stored or none.
    if (statements.length === 1) return (await this.run<{ id: string }>(statements[0]!, queue)).map((r) => BigInt(r.id));
    return this.transaction(queue, (client) => runSendStatements(client, statements));
  }

  /** The database encoding is UTF8; asked once, when a body needs it. */
  private utf8: boolean | undefined;

  async checkBodies(bodies: readonly string[]): Promise<RefusedBody | undefined> {
    let refused: RefusedBody | undefined;
    try {
      refused = await firstRefusedBody(this.pool, bodies, async () => (this.utf8 ??= await serverIsUtf8(this.pool)));
    } catch (e) {
      throw mapPgError(e, this.ctx);
    }
    return refused && { index: refused.index, reason: redactSecrets(refused.reason, this.ctx.secrets) };
  }

  private async transaction<T>(queue: string | undefined, fn: (client: PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
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
      await client.query('COMMIT');
      return out;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw mapPgError(e, queue === undefined ? this.ctx : { ...this.ctx, queue });
    } finally {
      client.release(broken);
    }
  }

  async receive(queue: string, options: ReceiveOptions): Promise<Message[]> {
    this.name(queue);
    if (!Number.isInteger(options.qty) || options.qty < 1) throw invalidInput(`invalid quantity ${options.qty}`, 'give a whole number of 1 or more');
    const vt = options.vtSec ?? DEFAULT_VT_SEC;
    if (!Number.isInteger(vt) || vt < 0) throw invalidInput(`invalid visibility timeout ${vt}`, 'give a whole number of seconds, 0 or more');
    const runId = options.runId;
    if (runId !== undefined && !this.capabilities.receiveByRunId) {
      throw invalidInput('this pgmq cannot receive by run id (its read has no conditional before pgmq 1.5)', 'upgrade pgmq to 1.5 or later');
    }
    if (options.dequeue === 'naive') return this.naiveReceive(queue, options.qty, vt, options.naivePauseMs ?? 0, runId);
    const q = runId === undefined ? sql.readQuery(queue, vt, options.qty, this.columns) : sql.readByRunIdQuery(queue, vt, options.qty, runId, this.columns);
    const rows = await this.run<MessageRow>(q, queue);
    return rows.map((r) => toMessage(r, 'inflight'));
  }

  private async naiveReceive(queue: string, qty: number, vt: number, pauseMs: number, runId: string | undefined): Promise<Message[]> {
    const rel = await this.table(queue);
    return this.transaction(
      queue,
      async (client) => {
        const sel = sql.naiveSelectQuery(rel, qty, runId);
        const candidates = await client.query<{ msg_id: string }>(sel.text, sel.values);
        if (candidates.rows.length === 0) return [];
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
        const upd = sql.naiveUpdateQuery(rel, candidates.rows.map((r) => BigInt(r.msg_id)), vt, this.columns);
        const rows = await client.query<MessageRow>(upd.text, upd.values);
        return rows.rows.map((r) => toMessage(r, 'inflight'));
      },
      'BEGIN ISOLATION LEVEL READ COMMITTED',
    );
  }

  private checkIds(ids: readonly MessageId[]): string[] {
    return ids.map((id) => {
      if (id < 0n) throw invalidInput(`invalid message id ${id}`, 'ids are whole numbers, 0 or more');
      return String(id);
    });
  }

  async delete(queue: string, ids: readonly MessageId[]): Promise<MessageId[]> {
    this.name(queue);
    if (ids.length === 0) return [];
    const rows = await this.run<{ id: string }>(sql.deleteQuery(queue, this.checkIds(ids)), queue);
    return rows.map((r) => BigInt(r.id));
  }

  async archive(queue: string, ids: readonly MessageId[]): Promise<MessageId[]> {
    this.name(queue);
    if (ids.length === 0) return [];
    const rows = await this.run<{ id: string }>(sql.archiveQuery(queue, this.checkIds(ids)), queue);
    return rows.map((r) => BigInt(r.id));
  }

  async setVisibility(queue: string, ids: readonly MessageId[], vtSec: number): Promise<MessageId[]> {
    this.name(queue);
    if (!Number.isInteger(vtSec) || vtSec < 0) throw invalidInput(`invalid visibility timeout ${vtSec}`, 'give a whole number of seconds, 0 or more');
    if (ids.length === 0) return [];
    this.checkIds(ids);
    const rows = await this.run<{ msg_id: string }>(sql.setVisibilityQuery(queue, ids, vtSec), queue);
    return rows.map((r) => BigInt(r.msg_id));
  }

  async peek(queue: string, options: PeekOptions): Promise<Message[]> {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw invalidInput(`invalid limit ${options.limit}`, 'give a whole number of 1 or more');
    if (options.state === 'failed') throw invalidInput('pgmq has no failed state', 'use ready, inflight, delayed or all');
    const rel = await this.table(queue);
    const rows = await this.run<MessageRow>(sql.peekQuery(rel, this.columns, options), queue);
    return rows.map((r) => toMessage(r));
  }

  async health(): Promise<HealthInfo> {
    const rows = await this.run<{ xact_age: number | null; xact_pid: number | null; slot: string | null; slot_age: number | null; dead: string | null; live: string | null }>({
      text: `SELECT
        (SELECT age(backend_xmin) FROM pg_stat_activity WHERE backend_xmin IS NOT NULL ORDER BY age(backend_xmin) DESC LIMIT 1) AS xact_age,
        (SELECT pid FROM pg_stat_activity WHERE backend_xmin IS NOT NULL ORDER BY age(backend_xmin) DESC LIMIT 1) AS xact_pid,
        (SELECT slot_name::text FROM pg_replication_slots WHERE xmin IS NOT NULL OR catalog_xmin IS NOT NULL
           ORDER BY greatest(age(xmin), age(catalog_xmin)) DESC NULLS LAST LIMIT 1) AS slot,
        (SELECT greatest(age(xmin), age(catalog_xmin)) FROM pg_replication_slots
           ORDER BY greatest(age(xmin), age(catalog_xmin)) DESC NULLS LAST LIMIT 1) AS slot_age,
        (SELECT sum(n_dead_tup) FROM pg_stat_user_tables WHERE schemaname = 'pgmq') AS dead,
        (SELECT sum(n_live_tup) FROM pg_stat_user_tables WHERE schemaname = 'pgmq') AS live`,
      values: [],
    });
    const r = rows[0]!;
    const parts: string[] = [];
    const warnings: string[] = [];
    if (r.slot && (r.slot_age ?? 0) >= (r.xact_age ?? 0)) parts.push(`vacuum held by slot ${r.slot} (${r.slot_age} xids)`);
    else if (r.xact_age !== null) parts.push(`oldest xmin: pid ${r.xact_pid} (${r.xact_age} xids)`);
    else parts.push('vacuum not held back');
    const dead = toNumber(r.dead);
    const live = toNumber(r.live);
    parts.push(`dead tuples in queue tables: ${dead}`);
    if (dead > 100_000 && dead > live) warnings.push(`queue tables hold ${dead} dead tuples (more than live ones): vacuum is falling behind`);
    if ((r.xact_age ?? 0) > 1_000_000) warnings.push(`a transaction (pid ${r.xact_pid}) has held back vacuum for ${r.xact_age} xids`);
    return { summary: parts.join(' · '), warnings };
  }

  /**
   * How many more connections this role may open to this database now: max_connections
   * minus the reserved slots minus the client connections open (this one included), and
   * the database's and the role's own connection limits.
   */
  async connectionBudget(): Promise<ConnectionBudget> {
    const rows = await this.run<{
      max_conn: number;
      su_reserved: number;
      reserved: number;
      in_use: number;
      db_limit: number | null;
      db_in_use: number;
      role_limit: number | null;
      role_in_use: number;
    }>({
      text: `SELECT current_setting('max_connections')::int AS max_conn,
        current_setting('superuser_reserved_connections')::int AS su_reserved,
        coalesce(current_setting('reserved_connections', true)::int, 0) AS reserved,
        (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int AS in_use,
        (SELECT datconnlimit FROM pg_database WHERE datname = current_database()) AS db_limit,
        (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND datname = current_database())::int AS db_in_use,
        (SELECT rolconnlimit FROM pg_roles WHERE rolname = current_user) AS role_limit,
        (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND usename = current_user)::int AS role_in_use`,
      values: [],
    });
    const r = rows[0]!;
    const reserved = r.su_reserved + r.reserved;
    let free = r.max_conn - reserved - r.in_use;
    let limitedBy: ConnectionBudget['limitedBy'] = 'server';
    if (r.db_limit !== null && r.db_limit >= 0 && r.db_limit - r.db_in_use < free) {
      free = r.db_limit - r.db_in_use;
      limitedBy = 'database';
    }
    if (r.role_limit !== null && r.role_limit >= 0 && r.role_limit - r.role_in_use < free) {
      free = r.role_limit - r.role_in_use;
      limitedBy = 'role';
    }
    const limit = limitedBy === 'database' ? r.db_limit! : limitedBy === 'role' ? r.role_limit! : r.max_conn;
    return { free: Math.max(0, free), maxConnections: r.max_conn, reserved, inUse: r.in_use, limitedBy, limit };
  }

  /** Returns within CLOSE_GRACE_MS even if the server never answers (calls in flight then fail). */
  async close(): Promise<void> {
    await closeWithin(() => this.pool.end(), this.sockets, CLOSE_GRACE_MS);
  }
}

interface CatalogRow {
  queue_name: string;
  is_partitioned: boolean;
  is_unlogged: boolean;
  created_at: Date | null;
  qrel: string;
  arel: string | null;
  q_live: string | null;
  a_live: string | null;
  q_inserted: string | null;
  q_deleted: string | null;
}

interface StatsRow {
  i: number;
  ready: string | null;
  inflight: string | null;
  delayed: string | null;
  total: string | null;
  oldest: string | null;
  newest: string | null;
  estimated: boolean | null;
  archived: string | null;
  archived_estimated: boolean | null;
}

const age = (v: string | null): number | null => (v === null ? null : Math.max(0, Number(v)));

function toStats(c: CatalogRow, r: StatsRow): QueueStats {
  return {
    name: c.queue_name,
    ready: toNumber(r.ready),
    inFlight: toNumber(r.inflight),
    delayed: toNumber(r.delayed),
    total: toNumber(r.total),
    archived: toNumber(r.archived),
    oldestAgeSec: age(r.oldest),
    newestAgeSec: age(r.newest),
    estimated: Boolean(r.estimated) || Boolean(r.archived_estimated),
    createdAt: c.created_at,
    isUnlogged: c.is_unlogged,
    isPartitioned: c.is_partitioned,
    insertedTotal: c.q_inserted === null ? undefined : toNumber(c.q_inserted),
    removedTotal: c.q_deleted === null ? undefined : toNumber(c.q_deleted),
  };
}
