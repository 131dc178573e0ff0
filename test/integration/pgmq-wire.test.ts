// The lean protocol path (src/backends/pgmq/wire.ts) that the tester's workers use: one
// dedicated connection, pipelined calls, server errors kept, a lost connection reported as
// such and replaced on the next call. (The Backend contract suite runs on it as well.)
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, test, vi } from 'vitest';
import { isCallTimeout } from '../../src/backends/deadline.js';
import { pgmqBackendOn, pgmqClientConfig, type PgmqBackend } from '../../src/backends/pgmq/backend.js';
import { WirePool } from '../../src/backends/pgmq/wire-pool.js';
import { DEFAULT_WIRE_CALL_TIMEOUT_MS } from '../../src/backends/pgmq/wire.js';
import { ownReadsSocket } from '../../src/backends/pgmq/wire-socket.js';
import { SmqError } from '../../src/errors.js';
import { uniqueQueue } from '../helpers/backends.js';

const url = () => inject('pgUrl');
let admin: pg.Client;
let b: PgmqBackend;
/** The backend's one dedicated connection, held by the test to run its own SQL on it. */
let wire: WirePool;
let q: string;

const pid = async (_backend: PgmqBackend) => (await wire.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: url() });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
});
afterEach(async () => {
  await b.dropQueue(q).catch(() => {});
  await b.close();
});

/** How the connection's socket reads: as a stream, or (as a tester worker's) into a buffer of its own. */
const SOCKETS = ['stream', 'own reads'] as const;
type SocketKind = (typeof SOCKETS)[number];
let socketKind: SocketKind = 'stream';
/** A connection config for a pool of the test's own, on the socket kind under test. */
const configOf = (config: pg.ClientConfig): pg.ClientConfig =>
  socketKind === 'own reads' ? { ...config, stream: ownReadsSocket } : config;

async function open(): Promise<void> {
  // As openPgmqBackend(url, { dedicated: true }) does, with the WirePool in the test's hands.
  const { config, ctx } = await pgmqClientConfig(url());
  wire = new WirePool(configOf(config));
  b = await pgmqBackendOn(wire, ctx);
  q = uniqueQueue('wire');
  await b.createQueue(q);
}

describe.each(SOCKETS)('a socket reading %s', (kind) => {
  beforeEach(() => {
    socketKind = kind;
  });

  test('replies reach the parser as the socket kind says: through the Readable stream, or not at all', async () => {
    await open();
    await b.send(q, { body: '{}' });
    const stream = await import('node:stream');
    const push = vi.spyOn(stream.Readable.prototype, 'push');
    try {
      await b.receive(q, { qty: 1, vtSec: 30 });
      const data = push.mock.calls.filter(([chunk]) => chunk !== null);
      if (socketKind === 'stream') expect(data.length).toBeGreaterThan(0);
      else expect(data).toHaveLength(0);
    } finally {
      push.mockRestore();
    }
  });

  test('a reply larger than the socket buffer arrives whole, many times over', async () => {
    await open();
    const big = JSON.stringify({ p: 'é'.repeat(150_000) }); // 300 KB: several reads of 64 KiB
    const ids = await Promise.all(Array.from({ length: 5 }, () => b.send(q, { body: big })));
    const got = await b.receive(q, { qty: 5, vtSec: 30 });
    expect(got.map((m) => m.id).sort()).toEqual([...ids].sort());
    for (const m of got) expect(JSON.parse(m.body)).toEqual(JSON.parse(big));
  });

  test('overlapping calls share the one connection and each gets its own answer', async () => {
    await open();
    const before = await pid(b);
    const bodies = Array.from({ length: 50 }, (_, i) => JSON.stringify({ i }));
    const ids = await Promise.all(bodies.map((body) => b.send(q, { body })));
    expect(new Set(ids.map(String)).size).toBe(50);
    const pids = await Promise.all(Array.from({ length: 10 }, () => pid(b)));
    expect(new Set([before, ...pids]).size).toBe(1);
    // Each id is the row of its own body: answers were not handed to the wrong caller.
    const rows = await admin.query<{ msg_id: string; message: { i: number } }>(`SELECT msg_id, message FROM pgmq."q_${q}"`);
    const byId = new Map(rows.rows.map((r) => [r.msg_id, r.message.i]));
    ids.forEach((id, i) => expect(byId.get(String(id))).toBe(i));
  });

  test("a server error keeps its SQLSTATE and hint, and the connection's next call works", async () => {
    await open();
    const e = await b.send(q, { body: '{"x":' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(SmqError);
    expect((e as SmqError).kind).toBe('invalid-input');
    const raw = await wire.query('SELECT 1/0 AS x').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(raw).toMatchObject({ code: '22012' });
    // A statement whose Parse failed is not recorded as prepared; one that worked still is.
    await expect(wire.query({ name: 'wire_bad', text: 'SELECT nope FROM nowhere', values: [] })).rejects.toMatchObject({ code: '42P01' });
    await expect(wire.query({ name: 'wire_bad', text: 'SELECT nope FROM nowhere', values: [] })).rejects.toMatchObject({ code: '42P01' });
    expect(await b.send(q, { body: '{"ok":true}' })).toBeTypeOf('bigint');
    expect((await b.queueStats(q)).total).toBe(1);
  });

  test('an idle connection that the server ended is replaced on the next call, as a pool would', async () => {
    await open();
    const first = await pid(b);
    await admin.query('SELECT pg_terminate_backend($1)', [first]);
    await new Promise((r) => setTimeout(r, 200));
    // The next call opens a new connection (and prepares its statements there again).
    expect(await b.send(q, { body: '{}' })).toBeTypeOf('bigint');
    expect(await pid(b)).not.toBe(first);
    expect((await b.queueStats(q)).total).toBe(1);
  });

  test('a call in flight when the connection dies fails at once as a lost connection; the next call reconnects', async () => {
    await open();
    const victim = await pid(b);
    const slow = wire.query('SELECT pg_sleep(5)').then(
      () => undefined,
      (err: unknown) => err,
    );
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    await admin.query('SELECT pg_terminate_backend($1)', [victim]);
    const e = await slow;
    expect(Date.now() - started).toBeLessThan(2000);
    // The server's own reason (57P01, terminated by an administrator) reaches the caller.
    expect(e).toMatchObject({ code: '57P01' });
    expect(await b.send(q, { body: '{}' })).toBeTypeOf('bigint');
    expect(await pid(b)).not.toBe(victim);
  });

  test('a transaction holds the connection: the naive dequeue runs on it, other calls wait', async () => {
    await open();
    for (let i = 0; i < 5; i++) await b.send(q, { body: JSON.stringify({ i }) });
    const [got, sent] = await Promise.all([
      b.receive(q, { qty: 5, vtSec: 30, dequeue: 'naive', naivePauseMs: 100 }),
      b.send(q, { body: '{"late":true}' }),
    ]);
    expect(got.map((m) => JSON.parse(m.body).i)).toEqual([0, 1, 2, 3, 4]);
    expect(sent).toBeTypeOf('bigint');
    expect((await b.queueStats(q)).total).toBe(6);
  });

  test('calls made in one turn of the event loop go out in one write, and are answered in order', async () => {
    await open();
    const [first] = await Promise.all([b.send(q, { body: '{"n":1}' }), b.send(q, { body: '{"n":2}' })]);
    await b.receive(q, { qty: 1, vtSec: 30 }); // every statement below is prepared already
    await b.delete(q, [first!]);
    const net = await import('node:net');
    const proto = net.Socket.prototype as unknown as { write: (...a: unknown[]) => boolean };
    const original = proto.write;
    let writes = 0;
    proto.write = function (this: unknown, ...a: unknown[]) {
      writes += 1;
      return original.apply(this, a);
    };
    try {
      // As a tester receiver does: acknowledge one message and ask for the next at once.
      const [deleted, next] = await Promise.all([b.delete(q, [first!]), b.receive(q, { qty: 1, vtSec: 30 })]);
      expect(deleted).toEqual([]); // deleted already above
      expect(next).toHaveLength(1);
      expect(writes).toBe(1);
    } finally {
      proto.write = original;
    }
  });

  /** Waits until the server no longer lists the backend, then a moment for the client to see its socket close. */
  async function gone(victim: number): Promise<void> {
    await vi.waitFor(
      async () => {
        const r = await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [victim]);
        expect(r.rowCount).toBe(0);
      },
      { timeout: 10_000, interval: 50 },
    );
    await new Promise((r) => setTimeout(r, 100));
  }

  const failure = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (err: unknown) => err,
    );

  test('a transaction whose connection is lost fails; its later statements never run outside it on a new connection', async () => {
    await open();
    const client = await wire.connect();
    await client.query('BEGIN');
    const victim = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await admin.query('SELECT pg_terminate_backend($1)', [victim]);
    await gone(victim);
    const e = await failure(client.query({ text: 'SELECT pgmq.send($1::text, $2::jsonb)', values: [q, '{"half":true}'] }));
    expect(e).toBeInstanceOf(Error);
    expect((await admin.query(`SELECT count(*)::int AS n FROM pgmq."q_${q}"`)).rows[0].n).toBe(0);
    client.release(true);
    // The backend itself goes on, on a new connection.
    expect(await b.send(q, { body: '{}' })).toBeTypeOf('bigint');
    expect(await pid(b)).not.toBe(victim);
  });

  test('a connection released as broken is not used by the calls that waited for it or came after', async () => {
    await open();
    const first = await pid(b);
    const client = await wire.connect();
    await client.query('BEGIN');
    const waited = wire.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    client.release(true);
    const after = wire.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const [w, a] = await Promise.all([waited, after]);
    expect(w.rows[0]!.pid).not.toBe(first);
    expect(a.rows[0]!.pid).toBe(w.rows[0]!.pid);
  });

  test('a statement with no result columns whose first Bind failed is not parsed again (no 42P05)', async () => {
    await open();
    // A DELETE without RETURNING: its Describe answers NoData (no RowDescription at all).
    const stmt = (v: unknown) => ({ name: 'wire_no_columns', text: `DELETE FROM pgmq."q_${q}" WHERE msg_id = $1::bigint`, values: [v] });
    await expect(wire.query(stmt('x'))).rejects.toMatchObject({ code: '22P02' });
    expect((await wire.query(stmt(1))).rows).toEqual([]);
    expect((await wire.query(stmt(2))).rows).toEqual([]);
  });

  test("a type parser that throws fails that call only; the connection's next call works", async () => {
    await open();
    const MONEY = 790;
    const original = pg.types.getTypeParser(MONEY, 'text');
    pg.types.setTypeParser(MONEY, 'text', () => {
      throw new Error('this parser refuses money');
    });
    try {
      const before = await pid(b);
      await expect(wire.query("SELECT 1 AS n, '1.50'::money AS m FROM generate_series(1, 3)")).rejects.toThrow('this parser refuses money');
      expect((await wire.query('SELECT 2 AS n')).rows).toEqual([{ n: 2 }]);
      expect(await pid(b)).toBe(before);
    } finally {
      pg.types.setTypeParser(MONEY, 'text', original);
    }
  });

  test('calls in flight on one connection are bounded: one more is refused at once, and the connection goes on', async () => {
    await open();
    const pool = new WirePool(configOf({ connectionString: url() }), { maxInFlight: 4 });
    try {
      let answered = 0;
      const slow = Array.from({ length: 4 }, () => pool.query('SELECT pg_sleep(1)').then(() => answered++));
      await expect(pool.query('SELECT 1')).rejects.toThrow(/4 calls/);
      expect(answered).toBe(0); // refused at once, not after waiting for a slot
      await Promise.all(slow);
      expect((await pool.query('SELECT 1 AS x')).rows).toEqual([{ x: 1 }]);
    } finally {
      await pool.end();
    }
  });

  test('without a deadline given, a call that never answers still ends (DEFAULT_WIRE_CALL_TIMEOUT_MS), and the connection is replaced', async () => {
    await open();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const pool = new WirePool(configOf({ connectionString: url() }));
    try {
      const first = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const hung = failure(pool.query('SELECT pg_sleep(20)'));
      await vi.waitFor(async () => {
        const r = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query LIKE '%pg_sleep(20)%'", [first]);
        expect(r.rowCount).toBe(1);
      });
      vi.advanceTimersByTime(DEFAULT_WIRE_CALL_TIMEOUT_MS + 2_000);
      const e = await hung;
      expect(isCallTimeout(e)).toBe(true);
      vi.useRealTimers();
      expect((await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid).not.toBe(first);
    } finally {
      vi.useRealTimers();
      await pool.end();
      await admin.query(
        "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(20)%' AND pid <> pg_backend_pid()",
      );
    }
  });
});
