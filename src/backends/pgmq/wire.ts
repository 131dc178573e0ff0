// A lean query path for a backend that one caller drives in a tight loop (the tester's
// workers): one dedicated connection, and the extended protocol spoken through pg-protocol
// (node-postgres's own serializer and parser) without node-postgres's Client and Pool layers.
//
// Why: on a host where client and server share the cores, every microsecond of client CPU
// per call is taken from the server. Measured on the 2-core bench host (bench/results), a
// pgmq.send loop through pg.Client cost 85-120 µs of client CPU per call, this path 50-65 µs.
//
// Why not node-postgres's own pipeline mode (pg 8.23, `new pg.Client({ pipeline: true })`)?
// Measured against it (npm run bench, BENCH_ONLY=pipeline: bench/pipeline.js, 2026-12-04,
// 8 connections a side, the same named statements, 5 paired rounds of 3 s, on the shared
// 2-core host at load 8-15): pg's pipeline mode made 0.85x this path's calls per second at
// 1.49x its client CPU per call on pgmq.send (45.7 against 29.8 µs), 0.85x at 1.42x on the
// send, delete + read cycle (48.2 against 33.7 µs); on the real pgmq 1.13.0, 0.87x at 1.56x
// and 0.79x at 1.47x. Again on 2026-12-06, with wire-socket.ts's socket, on the idle host:
// 0.92x at 1.51x (send) and 0.91x at 1.53x (cycle); on pgmq 1.13.0, 0.84x at 1.66x and 0.90x
// at 1.60x. The issue allowed 5%. It describes the portal on every call (a
// RowDescription parsed, its type parsers looked up, each time), writes every call on its
// own, and builds a Query (an EventEmitter) and a Result per call.
//
// node-postgres still opens the connection (TLS, SCRAM, every auth method and option it
// supports); once it is ready for queries the socket is taken over. Named statements are
// parsed and described once per connection, then each call is one Bind/Execute/Sync write.
// Results are converted with node-postgres's type parsers (wire-types.ts) and values with its value
// encoding, so rows look exactly as they do through a pg.Pool. wire-pool.ts makes a pool of
// one such connection (reopened when lost, held by a transaction); wire-bind.ts writes the Bind.
import type { Duplex } from 'node:stream';
import pg from 'pg';
import pgUtils from 'pg/lib/utils.js';
import { parse, serialize } from 'pg-protocol';
import type { BackendMessage, DataRowMessage, RowDescriptionMessage } from 'pg-protocol/dist/messages.js';
import { Parser } from 'pg-protocol/dist/parser.js';
import { callTimeout } from '../deadline.js';
import { READ_ONLY_SQL_TRANSACTION, whileConnecting } from './errors.js';
import { bindExecuteSync, EXECUTE_SYNC } from './wire-bind.js';
import { takeReads, wholeMessages } from './wire-socket.js';
import { typeParser } from './wire-types.js';

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
  /** The server confirmed this call's Parse of `preparing` (the statement exists now, whatever fails after). */
  parsed: boolean;
  error: unknown;
  resolve(result: { rows: Record<string, unknown>[] }): void;
  reject(e: unknown): void;
}

const DESCRIBE_PORTAL = serialize.describe({ type: 'P' });
const NO_FIELDS: readonly Field[] = [];

/** The error a call in flight gets when its connection goes away; mapPgError knows the text. */
function terminated(cause?: unknown): Error {
  return new Error('Connection terminated unexpectedly', cause === undefined ? undefined : { cause });
}

/**
 * A call without a deadline of its own still ends: after this long without an answer the
 * connection is cut (the call fails with deadline.ts's timeout error) and the next call opens
 * another. Longer than any call of a tester run takes on a server that works; a caller that
 * gives up sooner (the tester's outage timeout) does so itself.
 */
export const DEFAULT_WIRE_CALL_TIMEOUT_MS = 60_000;
/**
 * Calls waiting for an answer on one connection, at most; one more is refused at once. The
 * tester has one or two per connection; a caller far past this is feeding a hung server.
 */
export const MAX_IN_FLIGHT = 1_024;

/** A call that gets no answer within callTimeoutMs fails with deadline.ts's timeout error. */
interface WireDeadline {
  readonly callTimeoutMs: number;
  /** Redacted connection description, for the error. */
  readonly location: string;
}

/** One connection of the lean path. Calls may overlap: they are pipelined, answered in order. */
export class WireConnection {
  private readonly pending: Pending[] = [];
  /**
   * Named statements parsed (or being parsed) on this connection. A call that overlaps the
   * first use of a name sends only Bind/Execute: the earlier Parse is ahead of it on the wire.
   */
  private readonly statements = new Map<string, Statement>();
  private closed = false;
  /** end() was called: nothing more is sent, the calls already sent still get their answers. */
  private ending = false;
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
    private readonly maxInFlight: number,
  ) {
    const onMessage = (m: BackendMessage) => {
      try {
        this.onMessage(m);
      } catch (e) {
        // Never thrown into the socket's data handler (an uncaught exception): the protocol state
        // is unknown now, so the connection goes, and its calls fail with this error.
        this.fail(e);
        this.stream.destroy();
      }
    };
    // A socket of wire-socket.ts reads into a buffer of its own: its replies go to the parser
    // straight from there. Any other (TLS) is read as a stream.
    if (!takeReads(stream, wholeMessages(new Parser(), onMessage))) {
      stream.removeAllListeners('data');
      void parse(stream, onMessage);
    }
    stream.on('error', (e) => {
      this.lastError = e;
    });
    stream.on('close', () => this.fail(terminated(this.lastError)));
    if (deadline) {
      const { callTimeoutMs: ms, location } = deadline;
      // A timer per call would cost the hot path; one coarse check finds a hung call within ms + ms/4.
      this.watchdog = setInterval(
        () => {
          const oldest = this.pending[0];
          if (oldest && Date.now() - oldest.madeAt >= ms) {
            // The server may still be working on it (or be stopped): this connection is useless
            // now, since every later call waits behind that one. Cut it; the pool opens another.
            this.fail(callTimeout(location, ms));
            this.stream.destroy();
          }
        },
        Math.min(1_000, Math.max(50, Math.floor(ms / 4))),
      );
      this.watchdog.unref();
    }
  }

  static async open(config: pg.ClientConfig, deadline: WireDeadline | undefined, maxInFlight: number): Promise<WireConnection> {
    const client = new pg.Client(config);
    client.on('error', () => {});
    await client.connect().catch((e: unknown) => {
      throw whileConnecting(e);
    });
    return WireConnection.adopt(client, deadline, maxInFlight);
  }

  /** Takes over the socket of a client that is connected and idle (connector.ts made it). */
  static adopt(client: pg.Client, deadline: WireDeadline | undefined, maxInFlight: number): WireConnection {
    // After the takeover the client only sees its socket close; that is not an error to us.
    client.on('error', () => {});
    return new WireConnection(client.connection.stream, deadline, maxInFlight);
  }

  get usable(): boolean {
    return !this.closed && !this.ending;
  }

  query(q: WireQuery): Promise<{ rows: Record<string, unknown>[] }> {
    if (!this.usable) return Promise.reject(terminated(this.lastError));
    if (this.pending.length >= this.maxInFlight) {
      return Promise.reject(
        new Error(`too many calls in flight: ${this.pending.length} calls are already waiting for an answer on one connection`),
      );
    }
    let out: Buffer;
    let preparing: string | undefined;
    let statement: Statement | undefined;
    try {
      ({ out, preparing, statement } = this.encode(q));
    } catch (e) {
      return Promise.reject(e); // a value prepareValue refuses (e.g. a circular object)
    }
    return new Promise((resolve, reject) => {
      this.pending.push({
        statement,
        preparing,
        fields: undefined,
        result: { rows: [] },
        madeAt: Date.now(),
        parsed: false,
        error: undefined,
        resolve,
        reject,
      });
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
        out = Buffer.concat([
          serialize.parse({ name: q.name, text: q.text }),
          serialize.describe({ type: 'S', name: q.name }),
          bind,
          EXECUTE_SYNC,
        ]);
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
        if (!p || p.error !== undefined) return;
        const values = (m as DataRowMessage).fields;
        const row: Record<string, unknown> = {};
        const fields = p.fields ?? p.statement?.fields ?? NO_FIELDS;
        try {
          for (let i = 0; i < fields.length; i++) {
            const v = values[i];
            row[fields[i]!.name] = v === null || v === undefined ? null : fields[i]!.parse(v);
          }
        } catch (e) {
          // A type parser refused a value: this call fails with that (at its ReadyForQuery),
          // the connection goes on.
          p.error ??= e;
          return;
        }
        p.result.rows.push(row);
        return;
      }
      case 'parseComplete':
        if (p?.preparing !== undefined) p.parsed = true;
        return;
      case 'rowDescription':
        if (p) {
          const fields = (m as RowDescriptionMessage).fields.map((f) => ({
            name: f.name,
            parse: typeParser(f.dataTypeID),
          }));
          if (p.preparing !== undefined && p.statement) p.statement.fields = fields;
          else p.fields = fields;
        }
        return;
      case 'error':
        if (p) p.error ??= m;
        else this.lastError = m; // e.g. the server's notice of a shutdown, just before it closes
        // A write refused as read-only: this server is a standby (now). The calls already sent
        // get their answers; the next call opens a new connection, which the connector places.
        if ((m as { code?: string }).code === READ_ONLY_SQL_TRANSACTION) void this.end();
        return;
      case 'readyForQuery': {
        if (!p) return;
        this.pending.shift();
        if (p.error !== undefined) {
          // Its Parse failed: the next use of the name parses it again. (A Parse that worked
          // made the statement, even when its Bind failed and it has no columns to describe.)
          if (p.preparing !== undefined && !p.parsed && this.statements.get(p.preparing) === p.statement) {
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
        // bindComplete, parameterDescription, noData, commandComplete,
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
    if (!this.usable) return;
    // From now on no call is sent on it (usable is false); the ones sent get their answers.
    this.ending = true;
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
