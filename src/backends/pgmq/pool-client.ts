// node-postgres' Pool makes each of its connections with `new Client(options)` and connects it
// once, and a pg.Client connects to the one host it was made for. The pool is given this class
// instead: its connect() asks the Connector, which may try several hosts (each with a pg.Client
// of its own), and from then on it stands for the client that connected. So every connection a
// pool opens, at first or after a failover, goes to a server that suits the target.
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { PgHost } from './connection.js';
import type { Connector } from './connector.js';

/** What pg-pool reads of a client besides its methods (pg-pool's own TODO calls them private). */
interface PoolVisible {
  _queryable?: boolean;
  _ending?: boolean;
}

const FORWARDED = ['error', 'end', 'notice', 'notification'] as const;

export function chosenClientClass(connector: Connector, extra: pg.ClientConfig = {}): new () => pg.ClientBase {
  class ChosenClient extends EventEmitter {
    private inner: pg.Client | undefined;
    private ended = false;
    /** The server this client is on. */
    host: PgHost | undefined;

    /** pg-pool passes its options: the connector has what a connection needs. */
    constructor() {
      super();
    }

    connect(callback?: (err?: Error) => void): Promise<this> | undefined {
      const connected = connector.connect(extra).then(({ client, host }) => {
        if (this.ended) {
          void client.end().catch(() => undefined);
          throw new Error('Connection terminated');
        }
        this.inner = client;
        this.host = host;
        for (const event of FORWARDED) {
          // An 'error' nobody listens to would be thrown; pg-pool listens while the client is idle.
          client.on(event, (...args: unknown[]) => {
            if (event !== 'error' || this.listenerCount('error') > 0) this.emit(event, ...args);
          });
        }
        return this;
      });
      if (!callback) return connected;
      // Outside the promise chain, as pg.Client calls it: what the callback throws is not swallowed.
      connected.then(
        () => process.nextTick(callback),
        (e: Error) => process.nextTick(callback, e),
      );
      return undefined;
    }

    query(...args: unknown[]): unknown {
      const inner = this.inner;
      if (!inner) return Promise.reject(new Error('Client was closed and is not queryable'));
      return (inner.query as (...a: unknown[]) => unknown)(...args);
    }

    end(callback?: (err?: Error) => void): Promise<void> | undefined {
      this.ended = true;
      const ending = this.inner ? this.inner.end() : Promise.resolve();
      if (!callback) return ending;
      ending.then(
        () => process.nextTick(callback),
        (e: Error) => process.nextTick(callback, e),
      );
      return undefined;
    }

    get _queryable(): boolean {
      return (this.inner as PoolVisible | undefined)?._queryable ?? false;
    }

    get _ending(): boolean {
      return this.ended || ((this.inner as PoolVisible | undefined)?._ending ?? false);
    }

    /** pg-pool destroys its stream when a connect takes too long (not used: the Connector times each host). */
    get connection(): pg.Connection | undefined {
      return this.inner?.connection;
    }

    isConnected(): boolean {
      return this.inner !== undefined && !this.ended;
    }

    ref(): void {
      (this.inner as { ref?: () => void } | undefined)?.ref?.();
    }

    unref(): void {
      (this.inner as { unref?: () => void } | undefined)?.unref?.();
    }
  }
  return ChosenClient as unknown as new () => pg.ClientBase;
}
