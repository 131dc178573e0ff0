// An in-memory Backend for the UI's unit tests only (the backends themselves are tested
// against real Postgres and real SQLite files). It records calls, can be told to fail
// like a database that went away, and refuses writes when opened read-only.
import type {
  Backend,
  BackendKind,
  Capabilities,
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
} from '../../../src/backends/types.js';
import { queueNotFound, SmqError } from '../../../src/errors.js';

export const PGMQ_CAPABILITIES: Capabilities = {
  archive: true,
  headers: true,
  attributes: false,
  tenants: false,
  maxRetries: false,
  failedState: false,
  unlogged: true,
  jsonBodies: true,
  receiveByRunId: false,
  lastReadAt: true,
  groups: true,
  groupedHead: true,
  topics: true,
  notifyInsert: true,
  notifyCapitals: true,
  setVtAt: true,
  popQty: true,
};

export const SQLITE_CAPABILITIES: Capabilities = {
  archive: false,
  headers: false,
  attributes: true,
  tenants: true,
  maxRetries: true,
  failedState: true,
  unlogged: false,
  jsonBodies: false,
  receiveByRunId: false,
  lastReadAt: true,
  groups: false,
  groupedHead: false,
  topics: false,
  notifyInsert: false,
  notifyCapitals: false,
  setVtAt: false,
  popQty: false,
};

export interface FakeMessage {
  id: MessageId;
  state: MessageState;
  readCount: number;
  body: string;
  headers: Record<string, unknown> | null;
  enqueuedAt: Date;
  visibleAt: Date;
}

export interface FakeQueue {
  name: string;
  tenant?: number;
  messages: FakeMessage[];
  archived: number;
  /** Cumulative counters reported as insertedTotal / removedTotal (like pgmq's table statistics). */
  enqueued: number;
  removed: number;
  estimated?: boolean;
}

export interface FakeCall {
  readonly method: string;
  readonly args: readonly unknown[];
}

export interface FakeBackendOptions {
  readonly kind?: BackendKind;
  readonly readOnly?: boolean;
  readonly withHealth?: boolean;
  /** Report insertedTotal / removedTotal in QueueStats (default true on pgmq). */
  readonly reportCounter?: boolean;
}

export class FakeBackend implements Backend {
  readonly kind: BackendKind;
  readonly capabilities: Capabilities;
  readonly calls: FakeCall[] = [];
  readonly queues = new Map<string, FakeQueue>();
  /** When set, every call rejects with it (the database went away). */
  failWith: Error | undefined;
  health?: () => Promise<HealthInfo>;
  healthInfo: HealthInfo = { summary: 'oldest transaction 0s · dead tuples 0', warnings: [] };
  private nextId = 1n;
  private readonly readOnly: boolean;
  private readonly reportCounter: boolean;

  constructor(options: FakeBackendOptions = {}) {
    this.kind = options.kind ?? 'pgmq';
    this.capabilities = this.kind === 'pgmq' ? PGMQ_CAPABILITIES : SQLITE_CAPABILITIES;
    this.readOnly = options.readOnly ?? false;
    this.reportCounter = options.reportCounter ?? this.kind === 'pgmq';
    if (options.withHealth ?? true) {
      this.health = async () => {
        this.record('health', []);
        this.check();
        return this.healthInfo;
      };
    }
  }

  // ---- test set-up ------------------------------------------------------------------------

  /** Removes messages the way a consumer would (counted as removed). */
  consume(name: string, count: number, tenant?: number): void {
    const q = this.mustGet(name, tenant);
    const n = Math.min(count, q.messages.length);
    q.messages.splice(0, n);
    q.removed += n;
  }

  addQueue(name: string, init: Partial<Omit<FakeQueue, 'name' | 'messages'>> = {}): FakeQueue {
    const q: FakeQueue = { name, messages: [], archived: 0, enqueued: 0, removed: 0, ...init };
    this.queues.set(this.keyOf(name, q.tenant), q);
    return q;
  }

  addMessages(name: string, bodies: readonly string[], init: Partial<FakeMessage> = {}, tenant?: number): FakeMessage[] {
    const q = this.mustGet(name, tenant);
    const now = Date.now();
    const added = bodies.map((body) => {
      const m: FakeMessage = {
        id: this.nextId++,
        state: 'ready',
        readCount: 0,
        body,
        headers: null,
        enqueuedAt: new Date(now - 1000),
        visibleAt: new Date(now - 1000),
        ...init,
      };
      q.messages.push(m);
      q.enqueued++;
      return m;
    });
    return added;
  }

  callsOf(method: string): FakeCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  // ---- Backend ----------------------------------------------------------------------------

  async info(): Promise<ServerInfo> {
    this.record('info', []);
    this.check();
    return this.kind === 'pgmq'
      ? { backend: 'pgmq', serverVersion: 'PostgreSQL 15.99', schema: 'smq compat schema 1.5', location: 'postgres://u:***@h/db' }
      : { backend: 'sqlite', serverVersion: 'SQLite 3.99.0', schema: 'SmoothMQ', location: '/tmp/fake.db' };
  }

  async listQueues(options?: ListQueuesOptions): Promise<QueueStats[]> {
    this.record('listQueues', [options]);
    this.check();
    return [...this.queues.values()].map((q) => this.statsOf(q));
  }

  async queueStats(queue: string): Promise<QueueStats> {
    this.record('queueStats', [queue]);
    this.check();
    return this.statsOf(this.mustGet(queue));
  }

  async createQueue(queue: string): Promise<boolean> {
    this.record('createQueue', [queue]);
    this.write();
    if (this.queues.has(this.keyOf(queue, undefined))) return false;
    this.addQueue(queue);
    return true;
  }

  async dropQueue(queue: string): Promise<void> {
    this.record('dropQueue', [queue]);
    this.write();
    this.mustGet(queue);
    this.queues.delete(this.keyOf(queue, undefined));
  }

  async purgeQueue(queue: string): Promise<number> {
    this.record('purgeQueue', [queue]);
    this.write();
    const q = this.mustGet(queue);
    const n = q.messages.length;
    q.messages = [];
    q.removed += n;
    return n;
  }

  async send(queue: string, message: SendInput): Promise<MessageId> {
    this.record('send', [queue, message]);
    this.write();
    if (this.capabilities.jsonBodies) {
      try {
        JSON.parse(message.body);
      } catch {
        throw new SmqError('invalid-input', 'the body is not valid JSON', { hint: 'pgmq stores jsonb' });
      }
    }
    return this.addMessages(queue, [message.body], { headers: message.headers ?? null })[0]!.id;
  }

  async sendBatch(queue: string, messages: readonly SendInput[]): Promise<MessageId[]> {
    const ids: MessageId[] = [];
    for (const m of messages) ids.push(await this.send(queue, m));
    return ids;
  }

  async checkBodies(): Promise<RefusedBody | undefined> {
    return undefined;
  }

  async receive(queue: string, options: ReceiveOptions): Promise<Message[]> {
    this.record('receive', [queue, options]);
    this.write();
    throw new Error('FakeBackend.receive is not used by top');
  }

  async delete(queue: string, ids: readonly MessageId[]): Promise<MessageId[]> {
    this.record('delete', [queue, ids]);
    this.write();
    const q = this.mustGet(queue);
    const gone = q.messages.filter((m) => ids.includes(m.id)).map((m) => m.id);
    q.messages = q.messages.filter((m) => !ids.includes(m.id));
    q.removed += gone.length;
    return gone;
  }

  async archive(queue: string, ids: readonly MessageId[]): Promise<MessageId[]> {
    this.record('archive', [queue, ids]);
    this.write();
    const gone = await this.delete(queue, ids);
    this.calls.pop();
    this.mustGet(queue).archived += gone.length;
    return gone;
  }

  async setVisibility(queue: string, ids: readonly MessageId[], vtSec: number): Promise<MessageId[]> {
    this.record('setVisibility', [queue, ids, vtSec]);
    this.write();
    const q = this.mustGet(queue);
    const changed: MessageId[] = [];
    for (const m of q.messages) {
      if (!ids.includes(m.id)) continue;
      m.visibleAt = new Date(Date.now() + vtSec * 1000);
      if (vtSec === 0) m.state = 'ready';
      changed.push(m.id);
    }
    return changed;
  }

  async peek(queue: string, options: PeekOptions): Promise<Message[]> {
    this.record('peek', [queue, options]);
    this.check();
    const q = this.mustGet(queue);
    let list = [...q.messages];
    if (options.id !== undefined) list = list.filter((m) => m.id === options.id);
    if (options.state && options.state !== 'all') list = list.filter((m) => m.state === options.state);
    const newest = options.order === 'newest';
    list.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) * (newest ? -1 : 1));
    if (options.afterId !== undefined) {
      const after = options.afterId;
      list = list.filter((m) => (newest ? m.id < after : m.id > after));
    }
    return list.slice(0, options.limit).map((m) => ({
      id: m.id,
      state: m.state,
      readCount: m.readCount,
      ...(this.capabilities.maxRetries ? { maxTries: 5 } : {}),
      enqueuedAt: m.enqueuedAt,
      visibleAt: m.visibleAt,
      lastReadAt: null,
      body: m.body,
      headers: m.headers,
    }));
  }

  async close(): Promise<void> {
    this.record('close', []);
  }

  // ---- helpers ----------------------------------------------------------------------------

  private keyOf(name: string, tenant: number | undefined): string {
    return `${tenant ?? ''}/${name}`;
  }

  private mustGet(name: string, tenant?: number): FakeQueue {
    const q = this.queues.get(this.keyOf(name, tenant)) ?? [...this.queues.values()].find((x) => x.name === name);
    if (!q) throw queueNotFound(name);
    return q;
  }

  private record(method: string, args: readonly unknown[]): void {
    this.calls.push({ method, args });
  }

  private check(): void {
    if (this.failWith) throw this.failWith;
  }

  private write(): void {
    this.check();
    if (this.readOnly) {
      throw new SmqError('read-only', 'cannot execute DELETE in a read-only transaction');
    }
  }

  private statsOf(q: FakeQueue): QueueStats {
    const count = (s: MessageState) => q.messages.filter((m) => m.state === s).length;
    const now = Date.now();
    const ages = q.messages.map((m) => (now - m.enqueuedAt.getTime()) / 1000);
    const stats: QueueStats = {
      name: q.name,
      ...(q.tenant !== undefined ? { tenant: q.tenant } : {}),
      ready: count('ready'),
      inFlight: count('inflight'),
      delayed: count('delayed'),
      ...(this.capabilities.failedState ? { failed: count('failed') } : {}),
      total: q.messages.length,
      ...(this.capabilities.archive ? { archived: q.archived } : {}),
      oldestAgeSec: ages.length ? Math.max(...ages) : null,
      newestAgeSec: ages.length ? Math.min(...ages) : null,
      estimated: q.estimated ?? false,
      ...(this.reportCounter ? { insertedTotal: q.enqueued, removedTotal: q.removed } : {}),
    };
    return stats;
  }
}
