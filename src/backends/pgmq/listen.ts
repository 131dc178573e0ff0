// Backend.listenInserts on pgmq: a LISTEN on a queue's insert channel (pgmq.q_<name>.INSERT),
// on a connection of its own made by the backend's connector (never one of its pool: a
// pooled or pipelined connection passes from caller to caller, and a LISTEN is the session's).
// Lost, the connection is made again in the background and LISTENs again; waiters meanwhile
// run into their timeout (the caller's fallback poll), and the new LISTEN wakes them once,
// since notifications sent while it was down are gone.
import pg from 'pg';
import { SmqError } from '../../errors.js';
import { need } from '../features.js';
import type { Capabilities, InsertListener } from '../types.js';
import { mapPgError } from './errors.js';
import { notifyChannel, storedName } from './features.js';
import type { PgmqSession } from './session.js';

/** Reconnecting: the first pause, doubling up to the last (ms). */
const RECONNECT_FIRST_MS = 50;
const RECONNECT_MAX_MS = 1_000;
/** close(): a server that does not see the connection off within this has it cut. */
const CLOSE_MS = 1_000;

type WaitOutcome = 'notified' | 'timeout' | 'closed';

export async function listenInserts(s: PgmqSession, caps: Capabilities, queue: string): Promise<InsertListener> {
  need(caps, 'notifyInsert');
  const channel = notifyChannel(await storedName(s, queue));
  const connector = s.connector;
  if (!connector) throw new SmqError('connection', 'this backend has no way to open a connection of its own for LISTEN');
  const listener = new PgInsertListener(async () => (await connector.connect()).client, channel);
  try {
    await listener.start();
  } catch (e) {
    throw mapPgError(e, { ...s.ctx, queue });
  }
  return listener;
}

export class PgInsertListener implements InsertListener {
  epoch = 0;
  reconnects = 0;
  private client: pg.Client | undefined;
  private closed = false;
  private readonly waiters = new Set<(outcome: WaitOutcome) => void>();

  constructor(
    private readonly connect: () => Promise<pg.Client>,
    readonly channel: string,
  ) {}

  /** The first connection; resolves once its LISTEN is in effect. */
  async start(): Promise<void> {
    this.client = await this.open();
  }

  wait(since: number, timeoutMs: number): Promise<WaitOutcome> {
    if (this.closed) return Promise.resolve('closed');
    // Checked before waiting: a notification that came in between the caller's read and this
    // call counts (no lost wake-up).
    if (this.epoch > since) return Promise.resolve('notified');
    return new Promise((resolve) => {
      const done = (outcome: WaitOutcome) => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve(outcome);
      };
      const timer = setTimeout(() => done('timeout'), Math.max(0, timeoutMs));
      this.waiters.add(done);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const done of [...this.waiters]) done('closed');
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    const ended = client.end().catch(() => undefined);
    const cut = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_MS).unref());
    await Promise.race([ended, cut]);
    client.connection.stream.destroy();
  }

  private wake(): void {
    this.epoch += 1;
    for (const done of [...this.waiters]) done('notified');
  }

  private async open(): Promise<pg.Client> {
    const client = await this.connect();
    client.on('error', () => undefined); // the 'end' that follows is what counts
    client.on('notification', (n) => {
      if (n.channel === this.channel) this.wake();
    });
    client.on('end', () => this.lost(client));
    try {
      // The channel is an identifier (its dots and letter case kept): quoted.
      await client.query(`LISTEN ${pg.escapeIdentifier(this.channel)}`);
    } catch (e) {
      client.connection.stream.destroy();
      throw e;
    }
    return client;
  }

  private lost(client: pg.Client): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    void this.reconnect();
  }

  private async reconnect(): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      const pause = Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** Math.min(attempt, 10));
      await new Promise((resolve) => setTimeout(resolve, pause).unref());
      if (this.closed) return;
      let client: pg.Client;
      try {
        client = await this.open();
      } catch {
        continue;
      }
      if (this.closed) {
        client.connection.stream.destroy();
        return;
      }
      this.client = client;
      this.reconnects += 1;
      // Whatever was sent while it was down was never heard: waiters read once more.
      this.wake();
      return;
    }
  }
}
