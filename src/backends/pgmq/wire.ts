// A lean query path for a backend that one caller drives in a tight loop (the tester's
// workers): one dedicated connection, and the extended protocol spoken through pg-protocol
// (node-postgres's own serializer and parser) without node-postgres's Client and Pool layers.
//
// Why: on a host where client and server share the cores, every microsecond of client CPU
// per call is taken from the server. Measured on the 2-core bench host (bench/results), a
// pgmq.send loop through pg.Client cost 85-120 µs of client CPU per call, this path 50-65 µs.
//
// node-postgres still opens the connection (TLS, SCRAM, every auth method and option it
// supports); once it is ready for queries the socket is taken over. Named statements are
// parsed and described once per connection, then each call is one Bind/Execute/Sync write.
// Results are converted with node-postgres's type parsers and values with its value
// encoding, so rows look exactly as they do through a pg.Pool.
import type { Duplex } from 'node:stream';
import pg from 'pg';
import pgUtils from 'pg/lib/utils.js';
import { parse, serialize } from 'pg-protocol';
import type { BackendMessage, DataRowMessage, RowDescriptionMessage } from 'pg-protocol/dist/messages.js';
import { callTimeout } from '../deadline.js';

export interface WireQuery {
  readonly name?: string | undefined;
  readonly text: string;
  readonly values?: readonly unknown[] | undefined;
}

interface Field {
  readonly name: string;
  readonly parse: (text: string) => unknown;
}

/** A named statement on this connection; fields arrive with the Describe of its first use. */
interface Statement {
  fields: readonly Field[] | undefined;
}

interface Pending {
  /** The named statement this call runs, if any (the first call of a name also parses it). */
  readonly statement: Statement | undefined;
  /** The named statement this call parses and describes first. */
  readonly preparing: string | undefined;
  /** Unnamed statements: the fields of this call's own Describe. */
  fields: readonly Field[] | undefined;
  readonly result: { rows: Record<string, unknown>[] };
  /** Date.now() when the call was made: the watchdog's deadline counts from here. */
  readonly madeAt: number;
  error: unknown;
  resolve(result: { rows: Record<string, unknown>[] }): void;
  reject(e: unknown): void;
}

const EXECUTE_SYNC = Buffer.concat([serialize.execute({}), serialize.sync()]);

/**
 * Bind (unnamed portal, all parameters text, all results text) + Execute + Sync for a named
 * statement, written into one buffer: the call every message of a tester run makes. The same
 * bytes as serialize.bind + EXECUTE_SYNC (pgmq-wire.test.ts compares them), without the
 * shared writer's copy and the concatenation. Values are what prepareValue returns; a Buffer
 * value is sent in binary by pg-protocol, so those calls take its serializer instead.
 */
export function bindExecuteSync(statement: string, values: readonly (string | null)[]): Buffer {
  const nameBytes = Buffer.byteLength(statement);
  let size = 1 + 4 + 1 + nameBytes + 1 + 2 + 2 * values.length + 2 + 4;
  const lengths = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const n = v === null || v === undefined ? -1 : Buffer.byteLength(v);
    lengths[i] = n;
    size += 4 + Math.max(n, 0);
  }
  const out = Buffer.allocUnsafe(size + EXECUTE_SYNC.length);
  out[0] = 0x42; // 'B'
  out.writeInt32BE(size - 1, 1);
  let o = 5;
  out[o++] = 0; // portal ''
  o += out.write(statement, o);
  out[o++] = 0;
  // One format code per parameter, each 0 (text), as pg-protocol writes them.
  out.writeInt16BE(values.length, o);
  o += 2;
  out.fill(0, o, o + 2 * values.length);
  o += 2 * values.length;
  out.writeInt16BE(values.length, o);
  o += 2;
  for (let i = 0; i < values.length; i++) {
    const n = lengths[i]!;
    out.writeInt32BE(n, o);
    o += 4;
    if (n > 0) o += out.write(values[i]!, o);
  }
  out.writeInt16BE(1, o); // one result format code for all columns: 0, text
  out.writeInt16BE(0, o + 2);
  o += 4;
  EXECUTE_SYNC.copy(out, o);
  return out;
}
const DESCRIBE_PORTAL = serialize.describe({ type: 'P' });
const NO_FIELDS: readonly Field[] = [];

/** The error a call in flight gets when its connection goes away; mapPgError knows the text. */
function terminated(cause?: unknown): Error {
  return new Error('Connection terminated unexpectedly', cause === undefined ? undefined : { cause });
}

/** One connection of the lean path. Calls may overlap: they are pipelined, answered in order. */
class WireConnection {
  private readonly pending: Pending[] = [];
  /**
   * Named statements parsed (or being parsed) on this connection. A call that overlaps the
   * first use of a name sends only Bind/Execute: the earlier Parse is ahead of it on the wire.
   */
  private readonly statements = new Map<string, Statement>();
  private closed = false;
  private lastError: unknown;
  /**
   * Calls made in one turn of the event loop go out in one write: a receiver that acknowledges
   * one batch and asks for the next pipelines both in one system call (flushed on nextTick,
   * after every promise continuation of the turn has run).
   */
  private outbox: Buffer[] = [];
  private flushing = false;
  private readonly flush = () => {
    this.flushing = false;
    const out = this.outbox;
    this.outbox = [];
    if (this.closed || out.length === 0) return;
    this.stream.write(out.length === 1 ? out[0]! : Buffer.concat(out));
  };

  /** Checks the oldest call's age while a deadline is set (calls are answered in order). */
  private watchdog: ReturnType<typeof setInterval> | undefined;

  private constructor(
    private readonly stream: Duplex,
    deadline: WireDeadline | undefined,
  ) {
    stream.removeAllListeners('data');
    void parse(stream, (m) => this.onMessage(m));
    stream.on('error', (e) => {
      this.lastError = e;
    });
    stream.on('close', () => this.fail(terminated(this.lastError)));
    if (deadline) {
      const { callTimeoutMs: ms, location } = deadline;
      // A timer per call would cost the hot path; one coarse check finds a hung call within ms + ms/4.
      this.watchdog = setInterval(() => {
        const oldest = this.pending[0];
        if (oldest && Date.now() - oldest.madeAt >= ms) {
          // The server may still be working on it (or be stopped): this connection is useless
          // now, since every later call waits behind that one. Cut it; the pool opens another.
          this.fail(callTimeout(location, ms));
          this.stream.destroy();
        }
      }, Math.min(1_000, Math.max(50, Math.floor(ms / 4))));
      this.watchdog.unref();
    }
  }

  static async open(config: pg.ClientConfig, deadline?: WireDeadline): Promise<WireConnection> {
    const client = new pg.Client(config);
    // After the takeover the client only sees its socket close; that is not an error to us.
    client.on('error', () => {});
    await client.connect();
    return new WireConnection(client.connection.stream, deadline);
  }

  get usable(): boolean {
    return !this.closed;
  }

  query(q: WireQuery): Promise<{ rows: Record<string, unknown>[] }> {
    if (this.closed) return Promise.reject(terminated(this.lastError));
    let out: Buffer;
    let preparing: string | undefined;
    let statement: Statement | undefined;
    try {
      ({ out, preparing, statement } = this.encode(q));
    } catch (e) {
      return Promise.reject(e); // a value prepareValue refuses (e.g. a circular object)
    }
    return new Promise((resolve, reject) => {
      this.pending.push({ statement, preparing, fields: undefined, result: { rows: [] }, madeAt: Date.now(), error: undefined, resolve, reject });
      this.outbox.push(out);
      if (!this.flushing) {
        this.flushing = true;
        process.nextTick(this.flush);
      }
    });
  }

  private encode(q: WireQuery): { out: Buffer; preparing: string | undefined; statement: Statement | undefined } {
    const values = (q.values ?? []).map((v) => pgUtils.prepareValue(v));
    let out: Buffer;
    let preparing: string | undefined;
    let statement: Statement | undefined;
    if (q.name) {
      statement = this.statements.get(q.name);
      if (statement && !values.some((v) => v instanceof Buffer)) {
        out = bindExecuteSync(q.name, values as (string | null)[]);
      } else if (statement) {
        out = Buffer.concat([serialize.bind({ statement: q.name, values }), EXECUTE_SYNC]);
      } else {
        const bind = serialize.bind({ statement: q.name, values });
        preparing = q.name;
        statement = { fields: undefined };
        this.statements.set(q.name, statement);
        out = Buffer.concat([serialize.parse({ name: q.name, text: q.text }), serialize.describe({ type: 'S', name: q.name }), bind, EXECUTE_SYNC]);
      }
    } else {
      out = Buffer.concat([serialize.parse({ text: q.text }), serialize.bind({ values }), DESCRIBE_PORTAL, EXECUTE_SYNC]);
    }
    return { out, preparing, statement };
  }

  private onMessage(m: BackendMessage): void {
    const p = this.pending[0];
    switch (m.name) {
      case 'dataRow': {
        if (!p) return;
        const values = (m as DataRowMessage).fields;
        const row: Record<string, unknown> = {};
        const fields = p.fields ?? p.statement?.fields ?? NO_FIELDS;
        for (let i = 0; i < fields.length; i++) {
          const v = values[i];
          row[fields[i]!.name] = v === null || v === undefined ? null : fields[i]!.parse(v);
        }
        p.result.rows.push(row);
        return;
      }
      case 'rowDescription':
        if (p) {
          const fields = (m as RowDescriptionMessage).fields.map((f) => ({ name: f.name, parse: pg.types.getTypeParser(f.dataTypeID, 'text') as (t: string) => unknown }));
          if (p.preparing !== undefined && p.statement) p.statement.fields = fields;
          else p.fields = fields;
        }
        return;
      case 'error':
        if (p) p.error ??= m;
        else this.lastError = m; // e.g. the server's notice of a shutdown, just before it closes
        return;
      case 'readyForQuery': {
        if (!p) return;
        this.pending.shift();
        if (p.error !== undefined) {
          // Its Parse may have failed: the next use of the name parses it again.
          if (p.preparing !== undefined && p.statement?.fields === undefined && this.statements.get(p.preparing) === p.statement) {
            this.statements.delete(p.preparing);
          }
          p.reject(p.error);
        } else {
          // A statement with no result columns has no RowDescription (NoData).
          if (p.statement && p.statement.fields === undefined && p.preparing !== undefined) p.statement.fields = NO_FIELDS;
          p.resolve(p.result);
        }
        return;
      }
      default:
        // parseComplete, bindComplete, parameterDescription, noData, commandComplete,
        // notices, parameter status, notifications: nothing to do.
        return;
    }
  }

  private fail(e: unknown): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.watchdog);
    // A call the server already answered with an error (a FATAL before it closes) gets that.
    for (const p of this.pending.splice(0)) p.reject(p.error ?? e);
  }

  async end(): Promise<void> {
    if (this.closed) return;
    const gone = new Promise<void>((resolve) => {
      this.stream.once('close', () => resolve());
      setTimeout(resolve, 1000).unref();
    });
    this.flush();
    this.stream.write(serialize.end());
    this.stream.end();
    await gone;
    this.fail(terminated());
  }
}

/** A call that gets no answer within callTimeoutMs fails with deadline.ts's timeout error. */
export interface WireDeadline {
  readonly callTimeoutMs: number;
  /** Redacted connection description, for the error. */
  readonly location: string;
}

/** The client a transaction gets: the dedicated connection, held until release(). */
export interface WireClient {
  query<R = Record<string, unknown>>(text: string | WireQuery, values?: readonly unknown[]): Promise<{ rows: R[] }>;
  release(destroy?: boolean | Error): void;
}

/**
 * What PgmqBackend needs from a pg.Pool (query, connect/release, end), on one dedicated
 * connection that is opened on first use and opened again after it is lost. A transaction
 * holds the connection: other calls wait until it is released.
 */
export class WirePool {
  private connection: WireConnection | undefined;
  private connecting: Promise<WireConnection> | undefined;
  private held: Promise<void> | undefined;
  private ended = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly deadline: Partial<WireDeadline> = {},
  ) {}

  private async conn(): Promise<WireConnection> {
    if (this.ended) throw new Error('Client was closed and is not queryable');
    if (this.connection?.usable) return this.connection;
    const { callTimeoutMs, location } = this.deadline;
    const deadline = callTimeoutMs === undefined ? undefined : { callTimeoutMs, location: location ?? 'the server' };
    this.connecting ??= WireConnection.open(this.config, deadline).finally(() => {
      this.connecting = undefined;
    });
    this.connection = await this.connecting;
    return this.connection;
  }

  private async run(q: WireQuery): Promise<{ rows: Record<string, unknown>[] }> {
    return (await this.conn()).query(q);
  }

  query<R = Record<string, unknown>>(q: string | WireQuery, values?: readonly unknown[]): Promise<{ rows: R[] }> {
    const wq = typeof q === 'string' ? { text: q, values } : q;
    // The hot path: connected and no transaction open, the connection's own promise.
    const c = this.connection;
    if (!this.held && c?.usable) return c.query(wq) as Promise<{ rows: R[] }>;
    return this.queryWhenFree(wq) as Promise<{ rows: R[] }>;
  }

  private async queryWhenFree(q: WireQuery): Promise<{ rows: Record<string, unknown>[] }> {
    while (this.held) await this.held;
    return this.run(q);
  }

  async connect(): Promise<WireClient> {
    while (this.held) await this.held;
    let release!: () => void;
    this.held = new Promise<void>((resolve) => (release = resolve));
    try {
      await this.conn();
    } catch (e) {
      this.held = undefined;
      release();
      throw e;
    }
    let released = false;
    return {
      query: async <R>(q: string | WireQuery, v?: readonly unknown[]) => (await this.run(typeof q === 'string' ? { text: q, values: v } : q)) as { rows: R[] },
      release: (destroy?: boolean | Error) => {
        if (released) return;
        released = true;
        // A connection left in an unknown transaction state is not reused.
        if (destroy) void this.connection?.end();
        this.held = undefined;
        release();
      },
    };
  }

  on(_event: 'error', _listener: (e: Error) => void): this {
    return this;
  }

  async end(): Promise<void> {
    this.ended = true;
    await this.connection?.end();
  }
}
