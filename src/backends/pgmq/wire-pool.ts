// The dedicated connection of a tester worker's backend as a pool (wire.ts's WireConnection,
// opened on first use and again after it is lost): what PgmqBackend uses of a pg.Pool.
import type pg from 'pg';
import { DEFAULT_WIRE_CALL_TIMEOUT_MS, MAX_IN_FLIGHT, WireConnection, type WireQuery } from './wire.js';

/** The client a transaction gets: the dedicated connection, held until release(). */
export interface WireClient {
  query<R = Record<string, unknown>>(text: string | WireQuery, values?: readonly unknown[]): Promise<{ rows: R[] }>;
  release(destroy?: boolean | Error): void;
}

export interface WireOptions {
  /** Default DEFAULT_WIRE_CALL_TIMEOUT_MS. */
  readonly callTimeoutMs?: number | undefined;
  /** Redacted connection description, for the timeout error. */
  readonly location?: string | undefined;
  /** Default MAX_IN_FLIGHT. */
  readonly maxInFlight?: number | undefined;
}

/** Where the connection comes from: a config (one host), or the backend's connector (connector.ts). */
export type WireSource = pg.ClientConfig | { connect(): Promise<{ client: pg.Client }> };

/**
 * What PgmqBackend needs from a pg.Pool (query, connect/release, end), on one dedicated
 * connection that is opened on first use and opened again after it is lost. A transaction
 * holds the connection: other calls wait until it is released, and its own calls run on that
 * connection only (lost, they fail: never half a transaction on a new connection).
 */
export class WirePool {
  private connection: WireConnection | undefined;
  private connecting: Promise<WireConnection> | undefined;
  private held: Promise<void> | undefined;
  private ended = false;

  constructor(
    private readonly source: WireSource,
    private readonly options: WireOptions = {},
  ) {}

  private async conn(): Promise<WireConnection> {
    if (this.ended) throw new Error('Client was closed and is not queryable');
    if (this.connection?.usable) return this.connection;
    const { callTimeoutMs = DEFAULT_WIRE_CALL_TIMEOUT_MS, location = 'the server', maxInFlight = MAX_IN_FLIGHT } = this.options;
    const deadline = { callTimeoutMs, location };
    const source = this.source;
    this.connecting ??= (
      'connect' in source && typeof source.connect === 'function'
        ? source.connect().then(({ client }) => WireConnection.adopt(client, deadline, maxInFlight))
        : WireConnection.open(source as pg.ClientConfig, deadline, maxInFlight)
    ).finally(() => {
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
    let pinned: WireConnection;
    try {
      pinned = await this.conn();
    } catch (e) {
      this.held = undefined;
      release();
      throw e;
    }
    let released = false;
    return {
      // Only ever on the connection the transaction began on.
      query: async <R>(q: string | WireQuery, v?: readonly unknown[]) =>
        (await pinned.query(typeof q === 'string' ? { text: q, values: v } : q)) as { rows: R[] },
      release: (destroy?: boolean | Error) => {
        if (released) return;
        released = true;
        // A connection left in an unknown transaction state is not reused: it is dropped before
        // any waiting call runs, so they (and later ones) open a new one.
        if (destroy) {
          if (this.connection === pinned) this.connection = undefined;
          void pinned.end();
        }
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
