// The pgmq backend: node-postgres against the pgmq extension or smq's compatible schema.
// Opening (connections, the server probe) is here; the work is in queues.ts (queue admin),
// messages.ts (send, receive, peek...) and server.ts (health, connection budget), over one
// shared PgmqSession (session.ts).
import pg from 'pg';
import { SmqError } from '../../errors.js';
import type {
  Backend,
  BulkAction,
  MessageSelection,
  MessageSource,
  Capabilities,
  CountBeforeOptions,
  ConnectionBudget,
  CreateQueueOptions,
  GroupedRead,
  GroupStats,
  HealthInfo,
  InsertListener,
  ListQueuesOptions,
  Message,
  DropQueueOptions,
  MessageId,
  NotifyInsertSetting,
  OpenOptions,
  PeekOptions,
  QueueStats,
  ReceiveOptions,
  RefusedBody,
  SendInput,
  ServerIdentity,
  ServerInfo,
  StoreActivity,
  TopicBinding,
  TopicDelivery,
  SearchOptions,
  SearchStep,
  QueueDetails,
} from '../types.js';
import { pgmqCapabilities, type FeatureProbe } from './capabilities.js';
import { resolveClientConfig } from './client-config.js';
import { pgConnection } from './connection.js';
import { Connector, showHost } from './connector.js';
import * as identity from './identity.js';
import { compatVersion } from './install.js';
import { mapPgError, type PgErrorContext } from './errors.js';
import * as features from './features.js';
import * as messages from './messages.js';
import * as ops from './ops.js';
import * as queues from './queues.js';
import * as server from './server.js';
import * as inspect from './inspect.js';
import { listenInserts } from './listen.js';
import { CLOSE_GRACE_MS, PgmqSession, type Pool } from './session.js';
import * as sql from './sql.js';
import { closeWithin, SocketTracker } from './sockets.js';
import { chosenClientClass } from './pool-client.js';
import { WirePool } from './wire-pool.js';
import { ownReadsSocket } from './wire-socket.js';

export async function openPgmqBackend(url: string | undefined, options: OpenOptions = {}): Promise<PgmqBackend> {
  // A tester worker's connection reads into a buffer of its own (wire-socket.ts).
  const sockets = new SocketTracker(options.dedicated ? ownReadsSocket : undefined);
  const { connector, ctx } = pgmqConnector(url, options, sockets);
  const callTimeoutMs = options.callTimeoutMs;
  let pool: Pool;
  if (options.dedicated) pool = new WirePool(connector, { callTimeoutMs, location: ctx.location }) as Pool;
  else {
    // The caller's deadline (deadline.ts) answers first; a bit later node-postgres gives up on
    // the query too, and the pool replaces the client that is stuck with it.
    const queryTimeout = callTimeoutMs === undefined ? {} : { query_timeout: callTimeoutMs + 1_000 };
    // Each new connection asks the connector (every host of a multi-host target, in order).
    const p = new pg.Pool({ Client: chosenClientClass(connector, queryTimeout), max: options.poolSize ?? 4, idleTimeoutMillis: 10_000 });
    // An idle client's error (server restart) must not kill the process; the next query reports it.
    p.on('error', () => {});
    pool = p as unknown as Pool;
  }
  return pgmqBackendOn(pool, ctx, sockets, connector);
}

/**
 * How every connection of a backend opened with these options is made (read-only and
 * isolation are set on the connection, so the server enforces them). Parses only: nothing
 * connects until the connector is asked.
 */
export function pgmqConnector(
  url: string | undefined,
  options: OpenOptions = {},
  sockets = new SocketTracker(),
): { connector: Connector; ctx: PgErrorContext } {
  const conn = pgConnection(url);
  const ctx: PgErrorContext = {
    location: conn.display,
    secrets: conn.secrets,
    callTimeoutMs: options.callTimeoutMs,
    readOnlyAsked: options.readOnly === true,
  };
  const settings: string[] = [];
  if (options.readOnly) settings.push('-c default_transaction_read_only=on');
  if (options.isolation) settings.push(`-c default_transaction_isolation=${options.isolation.replace('-', '\\ ')}`);
  // The server gives up on a statement a little before the client does: a call the client
  // stopped waiting for (a lock held it) is cancelled there, and never takes effect later.
  // (Preferred only: a PgBouncer that refuses it gets connections without it.)
  const preferredSettings =
    options.callTimeoutMs === undefined ? [] : [`-c statement_timeout=${serverStatementTimeoutMs(options.callTimeoutMs)}`];
  const connector = new Connector(conn, ctx, {
    applicationName: 'smq',
    ...(options.applicationName !== undefined ? { forceApplicationName: options.applicationName } : {}),
    settings,
    preferredSettings,
    connectTimeoutMs: options.connectTimeoutMs ?? 5000,
    stream: sockets.stream,
    ownReadOnly: options.readOnly === true,
  });
  return { connector, ctx };
}

/** The server's statement_timeout for a call deadline: a tenth earlier, half a second at most. */
export function serverStatementTimeoutMs(callTimeoutMs: number): number {
  return Math.max(1, Math.round(callTimeoutMs - Math.min(500, callTimeoutMs / 10)));
}

/** What a pgmq connection is made of: node-postgres' config, and how its errors are told. */
export interface PgmqClientConfig {
  readonly config: pg.ClientConfig;
  readonly ctx: PgErrorContext;
}

/**
 * The config of a connection to the target's first host, as pgmqConnector makes them. For
 * tests that make their own connections (see pgmqBackendOn).
 */
export async function pgmqClientConfig(
  url: string | undefined,
  options: OpenOptions = {},
  sockets = new SocketTracker(),
): Promise<PgmqClientConfig> {
  const { connector, ctx } = pgmqConnector(url, options, sockets);
  try {
    const config = await resolveClientConfig(connector.conn, connector.options);
    return { config, ctx };
  } catch (e) {
    await closeWithin(async () => undefined, sockets, 0);
    throw mapPgError(e, ctx);
  }
}

/**
 * The backend over connections already made: a pg.Pool, or a WirePool (one dedicated
 * connection). openPgmqBackend makes them; a test may pass its own, to hold them itself.
 * Probes the server once; closes the connections and throws when pgmq is not there.
 */
export async function pgmqBackendOn(
  connections: pg.Pool | WirePool | Pool,
  ctx: PgErrorContext,
  sockets = new SocketTracker(),
  connector?: Connector,
): Promise<PgmqBackend> {
  const pool = connections as unknown as Pool;
  const location = ctx.location;
  try {
    const probe = await pool.query<
      FeatureProbe & { version: string; isolation: string; ext: string | null; compat: boolean; meta: boolean }
    >(sql.PROBE);
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
    // On a multi-host target, the server it is on (the one the probe's connection went to).
    const on = connector?.multiHost && connector.current ? { host: showHost(connector.current) } : {};
    const info: ServerInfo = {
      backend: 'pgmq',
      serverVersion: `PostgreSQL ${row.version}`,
      schema,
      location,
      isolation: row.isolation,
      ...on,
    };
    return new PgmqBackend(pool, ctx, columns, info, sockets, pgmqCapabilities(row), connector);
  } catch (e) {
    await closeWithin(() => pool.end(), sockets, CLOSE_GRACE_MS);
    throw mapPgError(e, ctx);
  }
}

export class PgmqBackend implements Backend {
  readonly kind = 'pgmq' as const;
  readonly capabilities: Capabilities;
  private readonly s: PgmqSession;

  constructor(
    pool: Pool,
    ctx: PgErrorContext,
    readonly columns: sql.Columns,
    private readonly serverInfo: ServerInfo,
    sockets = new SocketTracker(),
    capabilities: Capabilities,
    connector?: Connector,
  ) {
    this.s = new PgmqSession(pool, ctx, columns, sockets, connector);
    this.capabilities = capabilities;
  }

  async info(): Promise<ServerInfo> {
    return this.serverInfo;
  }

  listQueues(options?: ListQueuesOptions): Promise<QueueStats[]> {
    return queues.listQueues(this.s, options, this.capabilities);
  }

  queueStats(queue: string, options?: { readonly exact?: boolean }): Promise<QueueStats> {
    return queues.queueStats(this.s, queue, this.capabilities, options?.exact === true);
  }

  createQueue(queue: string, options?: CreateQueueOptions): Promise<boolean> {
    return queues.createQueue(this.s, queue, options);
  }

  dropQueue(queue: string, options?: DropQueueOptions): Promise<void> {
    return queues.dropQueue(this.s, queue, options);
  }

  purgeQueue(queue: string): Promise<number> {
    return queues.purgeQueue(this.s, queue);
  }

  send(queue: string, message: SendInput): Promise<MessageId> {
    return messages.send(this.s, queue, message);
  }

  sendBatch(queue: string, list: readonly SendInput[]): Promise<MessageId[]> {
    return messages.sendBatch(this.s, queue, list);
  }

  checkBodies(bodies: readonly string[]): Promise<RefusedBody | undefined> {
    return messages.checkBodies(this.s, bodies);
  }

  receive(queue: string, options: ReceiveOptions): Promise<Message[]> {
    return messages.receive(this.s, queue, options, this.capabilities.receiveByRunId);
  }

  delete(queue: string, ids: readonly MessageId[]): Promise<MessageId[]> {
    return messages.deleteMessages(this.s, queue, ids);
  }

  archive(queue: string, ids: readonly MessageId[]): Promise<MessageId[]> {
    return messages.archive(this.s, queue, ids);
  }

  setVisibility(queue: string, ids: readonly MessageId[], vtSec: number): Promise<MessageId[]> {
    return messages.setVisibility(this.s, queue, ids, vtSec);
  }

  peek(queue: string, options: PeekOptions): Promise<Message[]> {
    return messages.peek(this.s, queue, options);
  }

  countBefore(queue: string, options: CountBeforeOptions): Promise<number> {
    return messages.countBefore(this.s, queue, options);
  }

  receiveGrouped(queue: string, mode: GroupedRead, options: Pick<ReceiveOptions, 'qty' | 'vtSec' | 'pollSec'>): Promise<Message[]> {
    return features.receiveGrouped(this.s, this.capabilities, queue, mode, options);
  }

  groups(queue: string): Promise<GroupStats[]> {
    return features.groups(this.s, this.capabilities, queue);
  }

  sendTopic(routingKey: string, list: readonly SendInput[]): Promise<TopicDelivery[]> {
    return features.sendTopic(this.s, this.capabilities, routingKey, list);
  }

  topicBindings(): Promise<TopicBinding[]> {
    return features.topicBindings(this.s, this.capabilities);
  }

  testRouting(routingKey: string): Promise<TopicBinding[]> {
    return features.testRouting(this.s, this.capabilities, routingKey);
  }

  bindTopic(pattern: string, queue: string): Promise<boolean> {
    return features.bindTopic(this.s, this.capabilities, pattern, queue);
  }

  unbindTopic(pattern: string, queue: string): Promise<boolean> {
    return features.unbindTopic(this.s, this.capabilities, pattern, queue);
  }

  setNotifyInsert(queue: string, throttleMs: number | null): Promise<void> {
    return features.setNotifyInsert(this.s, this.capabilities, queue, throttleMs);
  }

  notifyInsertSettings(): Promise<NotifyInsertSetting[]> {
    return features.notifyInsertSettings(this.s, this.capabilities);
  }

  listenInserts(queue: string): Promise<InsertListener> {
    return listenInserts(this.s, this.capabilities, queue);
  }

  countSelected(queue: string, selection: MessageSelection, source: MessageSource = 'queue'): Promise<number> {
    return ops.countSelected(this.s, queue, selection, source);
  }

  selectedIds(queue: string, selection: MessageSelection, source: MessageSource, limit: number): Promise<MessageId[]> {
    return ops.selectedIds(this.s, queue, selection, source, limit);
  }

  actOn(queue: string, action: BulkAction, selection: MessageSelection): Promise<number> {
    return ops.actOn(this.s, queue, action, selection);
  }

  moveMessages(queue: string, target: string, selection: MessageSelection, source: MessageSource = 'queue'): Promise<number> {
    return ops.moveMessages(this.s, queue, target, selection, source);
  }

  peekArchive(queue: string, options: PeekOptions): Promise<Message[]> {
    return ops.peekArchive(this.s, queue, options);
  }

  health(): Promise<HealthInfo> {
    return server.health(this.s);
  }

  connectionBudget(): Promise<ConnectionBudget> {
    return server.connectionBudget(this.s);
  }

  storeActivity(queues: readonly string[]): Promise<StoreActivity> {
    return server.storeActivity(this.s, queues);
  }

  serverIdentity(): Promise<ServerIdentity> {
    return identity.serverIdentity(this.s);
  }

  terminateConnections(applicationName: string): Promise<number> {
    return identity.terminateConnections(this.s, applicationName);
  }

  cannotTerminate(): Promise<string | undefined> {
    return identity.cannotTerminate(this.s);
  }

  cannotWrite(): Promise<string | undefined> {
    return inspect.cannotWrite(this.s);
  }

  searchMessages(queue: string, options: SearchOptions): Promise<SearchStep> {
    return inspect.searchMessages(this.s, queue, options);
  }

  queueDetails(queue: string): Promise<QueueDetails> {
    return inspect.queueDetails(this.s, queue, this.capabilities);
  }

  /** Returns within about a second even if the server never answers (calls in flight then fail). */
  close(): Promise<void> {
    return this.s.close();
  }
}
