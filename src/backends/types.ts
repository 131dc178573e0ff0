// The Backend contract: everything smq's commands, top and tester do to a queue store
// goes through this interface. Two implementations: pgmq (PostgreSQL) and SmoothMQ (SQLite).
// Backends never import ink/react; the UI never writes SQL.

import type { ConnectionBudget, HealthInfo, ServerIdentity, StoreActivity } from './types-server.js';
import type { QueueDetails } from './types-inspect.js';

export type * from './types-server.js';
export type * from './types-inspect.js';
export type * from './types-ops.js';
export * from './types-message.js';
export * from './types-fifo.js';
import type { Message, MessageId, MessageState, ReceiveOptions, SendInput, RefusedBody } from './types-message.js';
import type { FifoTopicMethods } from './types-fifo.js';
import type { BulkAction, MessageSelection, MessageSource } from './types-ops.js';

export type BackendKind = 'pgmq' | 'sqlite';

export type Isolation = 'read-committed' | 'repeatable-read' | 'serializable';

/** What only one side has. Commands and UI check these instead of the backend kind. */
export interface Capabilities {
  /** pgmq: archive table a_<name> and archive(). */
  readonly archive: boolean;
  /** pgmq 1.5+: a jsonb `headers` column. */
  readonly headers: boolean;
  /** SmoothMQ: message attributes stored as kvs rows. */
  readonly attributes: boolean;
  /** SmoothMQ: queues belong to tenants. */
  readonly tenants: boolean;
  /** SmoothMQ: queue max_retries, per-message max_tries and the failed state. */
  readonly maxRetries: boolean;
  readonly failedState: boolean;
  /** pgmq: create_unlogged. */
  readonly unlogged: boolean;
  /** pgmq: message bodies must be JSON (jsonb). */
  readonly jsonBodies: boolean;
  /**
   * receive() can take only messages whose JSON body has r = ReceiveOptions.runId, leaving all
   * others untouched (pgmq 1.5+: read's `conditional`; SmoothMQ: always). pgmq 1.4: false.
   */
  readonly receiveByRunId: boolean;
  /** When a message was last handed out (pgmq 1.10+: last_read_at; SmoothMQ: delivered_at). */
  readonly lastReadAt: boolean;
  /**
   * FIFO groups keyed on the `x-pgmq-group` header (pgmq 1.9+: read_grouped, read_grouped_rr,
   * create_fifo_index). SmoothMQ: none.
   */
  readonly groups: boolean;
  /** pgmq 1.12+: read_grouped_head, the head message of each available group. */
  readonly groupedHead: boolean;
  /** pgmq 1.11+: topic routing (bind_topic, send_topic, send_batch_topic, test_routing). */
  readonly topics: boolean;
  /** pgmq 1.7+: insert notifications (enable_notify_insert: NOTIFY on `pgmq.q_<name>.INSERT`). */
  readonly notifyInsert: boolean;
  /**
   * Insert notifications also fire for a queue named with capitals. Real pgmq (1.7 to 1.13)
   * finds the setting by the table's lower-case name and so never notifies such a queue; smq's
   * compat schema keys its trigger on the name as given. False where notifyInsert is.
   */
  readonly notifyCapitals: boolean;
  /** pgmq 1.13: set_vt to a point in time (timestamptz), not only seconds from now. */
  readonly setVtAt: boolean;
  /** pop(queue, qty): several messages in one call (pgmq 1.13; 1.4 and 1.5 pop one). */
  readonly popQty: boolean;
}

export interface QueueStats {
  /** The name as given at creation (pgmq.meta.queue_name / queues.name). */
  readonly name: string;
  /** SmoothMQ tenant id; undefined on pgmq. */
  readonly tenant?: number;
  readonly ready: number;
  readonly inFlight: number;
  readonly delayed: number;
  /** SmoothMQ only: tries used up and visibility expired. */
  readonly failed?: number;
  /** Every message in the live queue (ready + inFlight + delayed + failed). */
  readonly total: number;
  /** pgmq only: rows in a_<name>. */
  readonly archived?: number;
  /** Age in seconds of the oldest / newest message, by the database's clock; null when empty. */
  readonly oldestAgeSec: number | null;
  readonly newestAgeSec: number | null;
  /** True when counts are estimates (large queues), shown with `~`. */
  readonly estimated: boolean;
  readonly createdAt?: Date | null;
  /** SmoothMQ queue settings. */
  readonly visibilityTimeoutSec?: number;
  readonly maxRetries?: number;
  readonly rateLimit?: number;
  /**
   * Cumulative counters where the database keeps them (pgmq: the statistics collector's
   * inserted / deleted tuples of q_<name>), for in/out rates between two refreshes.
   */
  readonly insertedTotal?: number | undefined;
  readonly removedTotal?: number | undefined;
  /**
   * capabilities.groups: how many FIFO groups (distinct `x-pgmq-group` values) the queue's
   * messages carry; when the counts are estimated, among its oldest 1,000 messages
   * (pgmq/sql.ts GROUPS_SAMPLE).
   */
  readonly groups?: number;
  /** capabilities.notifyInsert: insert notifications' throttle in ms while they are on; null: off. */
  readonly notifyThrottleMs?: number | null;
  /** pgmq meta. */
  readonly isUnlogged?: boolean;
  readonly isPartitioned?: boolean;
}

export interface PeekOptions {
  readonly limit: number;
  /** Keyset pagination: ids after this one in the chosen order. */
  readonly afterId?: MessageId;
  readonly state?: MessageState | 'all';
  /** Look up one message. */
  readonly id?: MessageId;
  readonly order?: 'oldest' | 'newest';
  /** Only one FIFO group's messages (capabilities.groups); null: the group-less lane. */
  readonly group?: string | null;
}

export interface CountBeforeOptions {
  readonly id: MessageId;
  readonly state?: MessageState | 'all';
  readonly order?: 'oldest' | 'newest';
  readonly group?: string | null;
}

/** Backend.searchMessages: one bounded step of a search inside a queue's messages, oldest id first. */
export interface SearchOptions {
  /** pgmq: a JSON object matches by containment (body or headers @> it); anything else as text, ignoring case. */
  readonly text: string;
  /** Start after this id (the previous step's nextAfterId). */
  readonly afterId?: MessageId;
  /** Rows read in this step at most. */
  readonly scan: number;
  /** Matches returned at most. */
  readonly limit: number;
}

export interface SearchStep {
  readonly matches: Message[];
  readonly scanned: number;
  /** Where the next step starts; null: nothing left past this step. */
  readonly nextAfterId: MessageId | null;
  readonly mode: 'json' | 'text';
}

export interface CreateQueueOptions {
  /** pgmq: create_unlogged. */
  readonly unlogged?: boolean;
  /** SmoothMQ queue settings. */
  readonly visibilityTimeoutSec?: number;
  readonly maxRetries?: number;
  readonly rateLimit?: number;
}

export interface DropQueueOptions {
  /**
   * Drop only a queue holding at most this many messages (its archive aside) at the moment of
   * the drop: what an operator confirmed (0: a queue confirmed as empty).
   */
  readonly atMost?: number;
}

export interface ListQueuesOptions {
  readonly exactThreshold?: number;
}

export interface ServerInfo {
  readonly backend: BackendKind;
  /** e.g. "PostgreSQL 15.18" or "SQLite 3.53.2". */
  readonly serverVersion: string;
  /** e.g. "pgmq 1.5.1", "smq compat schema 1.5" or "SmoothMQ schema". */
  readonly schema: string;
  /** Redacted URL or file path. */
  readonly location: string;
  /** pgmq on a multi-host target: the server (host:port) the backend connected to when it opened. */
  readonly host?: string;
  /** pgmq: the transaction isolation in effect on this backend's connections, read back from the server. */
  readonly isolation?: string;
  /** True when opening this backend created the store's schema (SQLite with create: a new or empty file). */
  readonly schemaCreated?: boolean;
}

export interface Backend extends FifoTopicMethods {
  readonly kind: BackendKind;
  readonly capabilities: Capabilities;

  info(): Promise<ServerInfo>;

  /**
   * Every queue with its stats, in a bounded number of round trips (one where possible).
   * Queues larger than exactThreshold rows (where the backend can estimate cheaply) get
   * estimated counts, marked `estimated`.
   */
  listQueues(options?: ListQueuesOptions): Promise<QueueStats[]>;
  /**
   * Stats of one queue; throws queue-not-found. A very large queue may get estimated counts
   * (marked) unless `exact` asks for them counted (what a question guarding a drop states).
   */
  queueStats(queue: string, options?: { readonly exact?: boolean }): Promise<QueueStats>;

  /** Idempotent: returns false when the queue already existed. */
  createQueue(queue: string, options?: CreateQueueOptions): Promise<boolean>;
  /**
   * Throws queue-not-found. With atMost, throws QueueNotEmptyError (kind 'queue-not-empty',
   * nothing dropped) when the queue holds more than atMost messages at the moment of the drop: the check and
   * the drop are one transaction that sends cannot slip into (pgmq: the queue's table locked
   * first; SQLite: one write transaction).
   */
  dropQueue(queue: string, options?: DropQueueOptions): Promise<void>;
  /** Deletes every message; returns how many. Throws queue-not-found. */
  purgeQueue(queue: string): Promise<number>;

  /** Sends one message; returns its id. */
  send(queue: string, message: SendInput): Promise<MessageId>;
  /**
   * Sends many in one transaction, whatever their number: every message is stored or none
   * (pgmq: one statement per few hundred, on one connection between BEGIN and COMMIT).
   * Returns their ids in order.
   */
  sendBatch(queue: string, messages: readonly SendInput[]): Promise<MessageId[]>;
  /**
   * The first of these bodies this store would refuse, with the store's own reason, or
   * undefined when it takes them all; stores nothing. pgmq: the server parses each one as
   * jsonb, so its own limits apply (\u0000, lone surrogates, nesting deeper than its
   * max_stack_depth allows, numbers numeric cannot hold, the database encoding).
   */
  checkBodies(bodies: readonly string[]): Promise<RefusedBody | undefined>;

  /** Claims up to qty visible messages atomically and hides them for vtSec. */
  receive(queue: string, options: ReceiveOptions): Promise<Message[]>;

  /** Returns the ids actually deleted. */
  delete(queue: string, ids: readonly MessageId[]): Promise<MessageId[]>;
  /** pgmq only (capabilities.archive); returns the ids actually archived. */
  archive(queue: string, ids: readonly MessageId[]): Promise<MessageId[]>;
  /** Sets visibility to now + vtSec (0: visible now); returns the ids changed. */
  setVisibility(queue: string, ids: readonly MessageId[], vtSec: number): Promise<MessageId[]>;

  /** Reads messages without changing anything (never pgmq.read). */
  peek(queue: string, options: PeekOptions): Promise<Message[]>;

  /**
   * Optional: how many messages of `state` come before message `id` in `order` (the id itself
   * not counted, whether or not it exists): top's absolute row numbers after a jump. One
   * count over the id index, changing nothing.
   */
  countBefore?(queue: string, options: CountBeforeOptions): Promise<number>;

  /**
   * Optional (top's marks): how many messages of `source` the selection takes now; one
   * count by query, nothing loaded, nothing changed.
   */
  countSelected?(queue: string, selection: MessageSelection, source?: MessageSource): Promise<number>;
  /**
   * Optional (top's `*` and `N`): the ids the selection takes now, oldest first, at most
   * `limit`; nothing changed. Marks hold these, so messages that arrive later are not marked.
   */
  selectedIds?(queue: string, selection: MessageSelection, source: MessageSource, limit: number): Promise<MessageId[]>;
  /** Optional: deletes, archives (Capabilities.archive) or makes visible the selection; returns how many changed. */
  actOn?(queue: string, action: BulkAction, selection: MessageSelection): Promise<number>;
  /**
   * Optional: moves the selection of `source` to the live queue `target` (which must exist),
   * with body and headers (attributes), as new messages visible now (read count 0). Each move
   * is one transaction (insert into the target, delete from the source): a message is never
   * in both or neither. From a queue's archive to the queue itself: restore. Returns how many moved.
   */
  moveMessages?(queue: string, target: string, selection: MessageSelection, source?: MessageSource): Promise<number>;
  /**
   * Optional: peek into the archive (pgmq: a_<queue>, messages with archivedAt; SmoothMQ: the
   * failed messages). `state` is ignored.
   */
  peekArchive?(queue: string, options: PeekOptions): Promise<Message[]>;

  /** Optional: a health line for `smq top`. */
  health?(): Promise<HealthInfo>;

  /**
   * Optional (pgmq): the connections still free for this role on this database, so that the
   * tester can refuse a run needing more before it creates anything. A store without a
   * connection limit (SQLite) leaves it out.
   */
  connectionBudget?(): Promise<ConnectionBudget>;

  /** Optional (pgmq): the counters of the queues' tables and the WAL position (StoreActivity). */
  storeActivity?(queues: readonly string[]): Promise<StoreActivity>;

  /** Optional (pgmq): the server this backend's connection is on now (ServerIdentity). */
  serverIdentity?(): Promise<ServerIdentity>;

  /**
   * Optional (pgmq): ends every other connection on the server whose application_name is this
   * one (the tester's --fault terminate); returns how many.
   */
  terminateConnections?(applicationName: string): Promise<number>;

  /**
   * Optional (pgmq): why this role may not end the connections that log in as it (not a
   * superuser, not in pg_signal_backend, not acting as the role they log in as), or undefined
   * when it may.
   */
  cannotTerminate?(): Promise<string | undefined>;

  /**
   * Optional: why this connection may not change queues (pgmq: a standby, a read-only session,
   * a role that may not delete from or update any pgmq.q_* table; SQLite: a file opened
   * read-only or not writable), or undefined when it may. top starts read-only then.
   */
  cannotWrite?(): Promise<string | undefined>;

  /**
   * Optional: one bounded step of a search in a queue's bodies and headers (attributes): reads
   * at most options.scan rows by id after options.afterId, returns those that match. Changes nothing.
   */
  searchMessages?(queue: string, options: SearchOptions): Promise<SearchStep>;

  /** Optional: a queue's storage (tables, sizes, vacuum, settings); throws queue-not-found. Changes nothing. */
  queueDetails?(queue: string): Promise<QueueDetails>;

  close(): Promise<void>;
}

/** What `smq init` did on PostgreSQL (backends/index.ts installPgmq), and the pgmq version in place. */
export type PgmqInstall =
  | { readonly mode: 'extension-existing'; readonly version: string }
  | { readonly mode: 'extension-created'; readonly version: string }
  /** pgmq installed from its plain SQL file (no extension row): left alone. */
  | { readonly mode: 'sql-existing'; readonly version: string }
  | { readonly mode: 'compat-existing'; readonly version: string }
  | { readonly mode: 'compat-installed'; readonly version: string }
  /** An older compat schema, upgraded in place: every queue and message kept. */
  | { readonly mode: 'compat-upgraded'; readonly version: string; readonly from: string };

/** How `smq init` connects to PostgreSQL (backends/index.ts installPgmq). */
export interface InstallOptions {
  readonly env: NodeJS.ProcessEnv;
  /** Every statement's deadline (query_timeout), and the connect timeout's upper bound. */
  readonly callTimeoutMs: number;
  readonly connectTimeoutMs: number;
}

/** How to open a backend (backends/index.ts openBackend). */
export interface OpenOptions {
  /** Enforced by the connection itself (Postgres default_transaction_read_only; SQLite opened read-only). */
  readonly readOnly?: boolean;
  /** SmoothMQ tenant (default 1). */
  readonly tenant?: number;
  /** SQLite: create the file (with SmoothMQ's DDL) when it does not exist. Default false. */
  readonly create?: boolean;
  /** Connection timeout; an unreachable server fails within this. Default 5000 ms. */
  readonly connectTimeoutMs?: number;
  /** pgmq: pool size (default 4). */
  readonly poolSize?: number;
  /** pgmq: default_transaction_isolation of every connection (default: the server's). */
  readonly isolation?: Isolation;
  /**
   * pgmq: one caller drives this backend in a tight loop (a tester worker). Everything runs
   * on one dedicated connection through a lean protocol path (pgmq/wire.ts) instead of a pool.
   */
  readonly dedicated?: boolean;
  /**
   * Deadline of every call, opening included (see deadline.ts): a call that gets no answer
   * within it rejects with an SmqError of kind 'timeout' (isCallTimeout). Undefined: no
   * deadline. SQLite's busy timeout becomes this too (a locked file). A dedicated pgmq
   * backend enforces it per statement on its connection (the tester's hot path stays lean);
   * there, undefined means 60 s (wire.ts's DEFAULT_WIRE_CALL_TIMEOUT_MS), never no deadline.
   */
  readonly callTimeoutMs?: number;
  /**
   * pgmq: the connections' application_name, over the connection's own: the tester names its
   * connections after the run so that it can find them (--fault terminate).
   */
  readonly applicationName?: string;
}
