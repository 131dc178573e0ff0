// The SmoothMQ SQLite backend (better-sqlite3). better-sqlite3 is synchronous; the methods
// are async only because the Backend contract is. Every integer comes back as bigint
// (safeIntegers): snowflake ids exceed 2^53. Opening, info and health are here; the work is
// in queues.ts and messages.ts, over one shared SqliteSession (session.ts).
import fs from 'node:fs';
import { SmqError, invalidInput } from '../../errors.js';
import type {
  Backend,
  SearchOptions,
  SearchStep,
  QueueDetails,
  BulkAction,
  MessageSelection,
  MessageSource,
  Capabilities,
  CountBeforeOptions,
  CreateQueueOptions,
  HealthInfo,
  ListQueuesOptions,
  Message,
  DropQueueOptions,
  MessageId,
  OpenOptions,
  PeekOptions,
  QueueStats,
  ReceiveOptions,
  RefusedBody,
  SendInput,
  ServerInfo,
} from '../types.js';
import { lacking } from '../features.js';
import { BUSY_TIMEOUT_MS } from './errors.js';
import * as inspect from './inspect.js';
import * as messages from './messages.js';
import * as ops from './ops.js';
import { openSmoothMqFile } from './open.js';
import * as queues from './queues.js';
import { SqliteSession } from './session.js';
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
  lastReadAt: true,
  // SmoothMQ has no FIFO groups, topics or notifications.
  groups: false,
  groupedHead: false,
  topics: false,
  notifyInsert: false,
  notifyCapitals: false,
  setVtAt: false,
  popQty: false,
});

export const DEFAULT_TENANT = 1;

const WAL_WARN_BYTES = 64 * 1024 * 1024;

class SqliteBackend implements Backend {
  readonly kind = 'sqlite' as const;
  readonly capabilities = SQLITE_CAPABILITIES;

  constructor(
    private readonly s: SqliteSession,
    /** This open created SmoothMQ's tables (smq init reports it). */
    private readonly created = false,
  ) {}

  async info(): Promise<ServerInfo> {
    return this.s.run(() => {
      const version = this.s.db.prepare(SQL.SQLITE_VERSION).pluck().get() as string;
      const info: ServerInfo = { backend: 'sqlite', serverVersion: `SQLite ${version}`, schema: 'SmoothMQ', location: this.s.path };
      return this.created ? { ...info, schemaCreated: true } : info;
    });
  }

  async listQueues(_options?: ListQueuesOptions): Promise<QueueStats[]> {
    return queues.listQueues(this.s);
  }

  async queueStats(queue: string): Promise<QueueStats> {
    return queues.queueStats(this.s, queue);
  }

  async createQueue(queue: string, options?: CreateQueueOptions): Promise<boolean> {
    return queues.createQueue(this.s, queue, options);
  }

  async dropQueue(queue: string, options?: DropQueueOptions): Promise<void> {
    queues.dropQueue(this.s, queue, options);
  }

  async purgeQueue(queue: string): Promise<number> {
    return queues.purgeQueue(this.s, queue);
  }

  async send(queue: string, message: SendInput): Promise<MessageId> {
    const [id] = await this.sendBatch(queue, [message]);
    if (id === undefined) throw new SmqError('database', 'send returned no id');
    return id;
  }

  async sendBatch(queue: string, list: readonly SendInput[]): Promise<MessageId[]> {
    return messages.sendBatch(this.s, queue, list);
  }

  /** SmoothMQ stores bodies as text, as given: every string is taken. */
  async checkBodies(): Promise<RefusedBody | undefined> {
    return undefined;
  }

  async receive(queue: string, options: ReceiveOptions): Promise<Message[]> {
    return messages.receive(this.s, queue, options);
  }

  async delete(queue: string, ids: readonly MessageId[]): Promise<MessageId[]> {
    return messages.deleteMessages(this.s, queue, ids);
  }

  async archive(_queue: string, _ids: readonly MessageId[]): Promise<MessageId[]> {
    throw new SmqError('invalid-input', 'archive is not supported on SmoothMQ SQLite', {
      hint: 'SmoothMQ has no archive table; delete the messages instead',
    });
  }

  async setVisibility(queue: string, ids: readonly MessageId[], vtSec: number): Promise<MessageId[]> {
    return messages.setVisibility(this.s, queue, ids, vtSec);
  }

  async countBefore(queue: string, options: CountBeforeOptions): Promise<number> {
    if (options.group !== undefined) throw lacking('groups');
    return messages.countBefore(this.s, queue, options);
  }

  async peek(queue: string, options: PeekOptions): Promise<Message[]> {
    if (options.group !== undefined) throw lacking('groups'); // SmoothMQ has no FIFO groups
    return messages.peek(this.s, queue, options);
  }

  async countSelected(queue: string, selection: MessageSelection, source: MessageSource = 'queue'): Promise<number> {
    return ops.countSelected(this.s, queue, selection, source);
  }

  async selectedIds(queue: string, selection: MessageSelection, source: MessageSource, limit: number): Promise<MessageId[]> {
    return ops.selectedIds(this.s, queue, selection, source, limit);
  }

  async actOn(queue: string, action: BulkAction, selection: MessageSelection): Promise<number> {
    return ops.actOn(this.s, queue, action, selection);
  }

  async moveMessages(queue: string, target: string, selection: MessageSelection, source: MessageSource = 'queue'): Promise<number> {
    return ops.moveMessages(this.s, queue, target, selection, source);
  }

  /** SmoothMQ has no archive table: its failed messages are what top shows there. */
  async peekArchive(queue: string, options: PeekOptions): Promise<Message[]> {
    return ops.peekArchive(this.s, queue, options);
  }

  async health(): Promise<HealthInfo> {
    const { db, path } = this.s;
    return this.s.run(() => {
      const pageSize = Number(db.pragma('page_size', { simple: true }));
      const pages = Number(db.pragma('page_count', { simple: true }));
      const free = Number(db.pragma('freelist_count', { simple: true }));
      let walBytes = 0;
      try {
        walBytes = fs.statSync(`${path}-wal`).size;
      } catch {
        // no WAL file: nothing written since the last checkpoint
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

  async cannotWrite(): Promise<string | undefined> {
    return inspect.cannotWrite(this.s);
  }

  async searchMessages(queue: string, options: SearchOptions): Promise<SearchStep> {
    return inspect.searchMessages(this.s, queue, options);
  }

  async queueDetails(queue: string): Promise<QueueDetails> {
    return inspect.queueDetails(this.s, await this.queueStats(queue));
  }

  async close(): Promise<void> {
    if (this.s.db.open) this.s.db.close();
  }
}

export async function openSqliteBackend(path: string, options: OpenOptions = {}): Promise<Backend> {
  const tenant = options.tenant ?? DEFAULT_TENANT;
  if (!Number.isSafeInteger(tenant)) throw invalidInput(`tenant must be a whole number, got ${String(options.tenant)}`);
  // A locked file blocks the (synchronous) call: the busy timeout is its deadline, never
  // longer than the caller's call deadline.
  const busyTimeoutMs = Math.min(BUSY_TIMEOUT_MS, options.callTimeoutMs ?? BUSY_TIMEOUT_MS);
  const opened = openSmoothMqFile(path, { readOnly: options.readOnly, create: options.create, busyTimeoutMs });
  const session = new SqliteSession(
    opened.db,
    path,
    tenant,
    options.tenant !== undefined,
    options.readOnly === true,
    opened.hasRateLimits,
    busyTimeoutMs,
  );
  return new SqliteBackend(session, opened.created);
}
