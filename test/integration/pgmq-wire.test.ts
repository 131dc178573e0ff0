// The lean protocol path (src/backends/pgmq/wire.ts) that the tester's workers use: one
// dedicated connection, pipelined calls, server errors kept, a lost connection reported as
// such and replaced on the next call. (The Backend contract suite runs on it as well.)
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, inject, test } from 'vitest';
import { pgmqBackendOn, pgmqClientConfig, type PgmqBackend } from '../../src/backends/pgmq/backend.js';
import { WirePool } from '../../src/backends/pgmq/wire.js';
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

async function open(): Promise<void> {
  // As openPgmqBackend(url, { dedicated: true }) does, with the WirePool in the test's hands.
  const { config, ctx } = await pgmqClientConfig(url());
  wire = new WirePool(config);
  b = await pgmqBackendOn(wire, ctx);
  q = uniqueQueue('wire');
  await b.createQueue(q);
}

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
  const [got, sent] = await Promise.all([b.receive(q, { qty: 5, vtSec: 30, dequeue: 'naive', naivePauseMs: 100 }), b.send(q, { body: '{"late":true}' })]);
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
