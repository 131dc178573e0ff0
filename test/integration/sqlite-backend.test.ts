// The SmoothMQ SQLite backend against real files, one fresh file per test.
import { execFileSync, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SmqError } from '../../src/errors.js';
import { openSqliteBackend } from '../../src/backends/sqlite/backend.js';
import type { Backend } from '../../src/backends/types.js';
import type { OpenOptions } from '../../src/backends/index.js';

// SmoothMQ's schema as DESIGN.md states it (what gorm's AutoMigrate writes). Written out
// here on purpose, not imported from src, so the test checks the code against the spec.
const DESIGN_DDL = `
CREATE TABLE \`queues\` (\`id\` integer,\`tenant_id\` integer NOT NULL,\`name\` text NOT NULL,\`rate_limit\` real NOT NULL,\`max_retries\` integer NOT NULL,\`visibility_timeout\` integer NOT NULL,PRIMARY KEY (\`id\`));
CREATE UNIQUE INDEX \`idx_queue_name\` ON \`queues\`(\`tenant_id\`,\`name\`);
CREATE TABLE \`messages\` (\`id\` integer,\`tenant_id\` integer NOT NULL,\`queue_id\` integer NOT NULL,\`deliver_at\` integer NOT NULL,\`delivered_at\` integer NOT NULL,\`tries\` integer NOT NULL,\`max_tries\` integer NOT NULL,\`message\` text NOT NULL,PRIMARY KEY (\`id\`),CONSTRAINT \`fk_queues_messages\` FOREIGN KEY (\`queue_id\`) REFERENCES \`queues\`(\`id\`));
CREATE INDEX \`idx_message\` ON \`messages\`(\`tenant_id\`,\`queue_id\`,\`deliver_at\`,\`delivered_at\`,\`tries\`,\`max_tries\`);
CREATE TABLE \`kvs\` (\`tenant_id\` integer NOT NULL,\`queue_id\` integer NOT NULL,\`message_id\` integer NOT NULL,\`k\` text NOT NULL,\`v\` text NOT NULL,CONSTRAINT \`fk_messages_kv\` FOREIGN KEY (\`tenant_id\`,\`queue_id\`,\`message_id\`) REFERENCES \`messages\`(\`tenant_id\`,\`queue_id\`,\`id\`));
CREATE INDEX \`idx_kv\` ON \`kvs\`(\`tenant_id\`,\`queue_id\`,\`message_id\`);
CREATE TABLE \`rate_limits\` (\`tenant_id\` integer NOT NULL,\`queue_id\` integer NOT NULL,\`ts\` integer NOT NULL,\`n\` integer NOT NULL DEFAULT 0);
CREATE UNIQUE INDEX \`idx_ratelimit\` ON \`rate_limits\`(\`tenant_id\`,\`queue_id\`,\`ts\`);
`;
const EXPECTED_STATEMENTS = DESIGN_DDL.trim()
  .split('\n')
  .map((line) => line.trim().replace(/;$/, ''));

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const workerScript = path.join(repoRoot, 'test/helpers/sqlite-claim-worker.mjs');
const distBackend = path.join(repoRoot, 'dist/backends/sqlite/backend.js');

let tmpRoot: string;
let fileCounter = 0;
const openBackends: Backend[] = [];

beforeAll(() => {
  tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'smq-sqlite-'));
});
afterEach(async () => {
  for (const b of openBackends.splice(0)) await b.close();
});
afterAll(() => {
  fs.rmSync(tmpRoot, { recursive: true, force: true });
});

function freshPath(): string {
  fileCounter += 1;
  return path.join(tmpRoot, `t${fileCounter}.sqlite`);
}

async function open(file: string, options: OpenOptions = {}): Promise<Backend> {
  const b = await openSqliteBackend(file, options);
  openBackends.push(b);
  return b;
}

async function fresh(options: OpenOptions = {}): Promise<{ file: string; backend: Backend }> {
  const file = freshPath();
  return { file, backend: await open(file, { create: true, ...options }) };
}

/** A second, independent connection to look at (or tamper with) the file. */
function raw<T>(file: string, fn: (db: Database.Database) => T): T {
  const db = new Database(file, { fileMustExist: true, timeout: 5000 });
  db.defaultSafeIntegers(true);
  // better-sqlite3 turns foreign keys on; SmoothMQ's fk_messages_kv points at a non-unique
  // column set, so with them on every write to kvs fails with "foreign key mismatch".
  db.pragma('foreign_keys = OFF');
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Every row of every table, in rowid order. */
function dump(file: string): Record<string, unknown[]> {
  return raw(file, (db) => {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    const out: Record<string, unknown[]> = {};
    for (const t of tables) out[t] = db.prepare(`SELECT rowid AS _rowid, * FROM "${t.replace(/"/g, '""')}" ORDER BY rowid`).all();
    return out;
  });
}

/** SmoothMQ's seconds clock moves on at second boundaries; start a time-sensitive step just after one. */
async function startOfSecond(): Promise<void> {
  const ms = Date.now() % 1000;
  if (ms > 150) await new Promise((r) => setTimeout(r, 1000 - ms + 10));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function expectSmqError(p: Promise<unknown>, kind: SmqError['kind'], pattern?: RegExp): Promise<SmqError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e, 'expected an SmqError').toBeInstanceOf(SmqError);
  const err = e as SmqError;
  expect(err.kind).toBe(kind);
  expect(err.line()).not.toMatch(/\n/);
  if (pattern) expect(err.line()).toMatch(pattern);
  return err;
}

describe('creating and opening files', () => {
  it('creates exactly SmoothMQ DDL, statement by statement, with WAL and auto_vacuum full', async () => {
    const { file, backend } = await fresh();
    await backend.close();
    raw(file, (db) => {
      const sql = db.prepare('SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid').pluck().all();
      expect(sql).toEqual(EXPECTED_STATEMENTS);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('auto_vacuum', { simple: true })).toBe(1n); // 1 = full
      expect(db.pragma('foreign_key_list(kvs)')).toEqual([
        expect.objectContaining({ table: 'messages', from: 'tenant_id', to: 'tenant_id' }),
        expect.objectContaining({ table: 'messages', from: 'queue_id', to: 'queue_id' }),
        expect.objectContaining({ table: 'messages', from: 'message_id', to: 'id' }),
      ]);
    });
  });

  it('opens an existing SmoothMQ file again without touching its schema', async () => {
    const { file, backend } = await fresh();
    await backend.createQueue('jobs');
    await backend.close();
    const before = raw(file, (db) => db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY rowid').all());
    const again = await open(file, { create: true });
    expect((await again.listQueues()).map((q) => q.name)).toEqual(['jobs']);
    const plain = await open(file);
    expect(await plain.createQueue('jobs')).toBe(false);
    expect(raw(file, (db) => db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY rowid').all())).toEqual(before);
  });

  it('sets up an existing empty SQLite file only with create', async () => {
    const file = freshPath();
    fs.writeFileSync(file, '');
    await expectSmqError(openSqliteBackend(file, {}), 'connection', /empty SQLite database.*smq init --sqlite/);
    const b = await open(file, { create: true });
    expect(await b.createQueue('q')).toBe(true);
  });

  it('refuses a missing file without create, naming the path and how to create it', async () => {
    const file = freshPath();
    const err = await expectSmqError(openSqliteBackend(file, {}), 'connection');
    expect(err.line()).toContain(file);
    expect(err.line()).toMatch(/does not exist/);
    expect(err.line()).toMatch(/smq init --sqlite/);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('refuses a file that is not SQLite', async () => {
    const file = freshPath();
    fs.writeFileSync(file, 'this is a text file, not a database\n'.repeat(50));
    const before = fs.readFileSync(file);
    const err = await expectSmqError(openSqliteBackend(file, {}), 'connection', /not an SQLite database/);
    expect(err.line()).toContain(file);
    await expectSmqError(openSqliteBackend(file, { create: true }), 'connection', /not an SQLite database/);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('refuses an SQLite file of some other program', async () => {
    const file = freshPath();
    fs.writeFileSync(file, '');
    raw(file, (db) => db.exec('CREATE TABLE notes (id integer primary key, body text)'));
    await expectSmqError(openSqliteBackend(file, { create: true }), 'connection', /not a SmoothMQ file: it has no table/);
  });

  it('refuses a SmoothMQ-like file that lacks a column smq needs', async () => {
    const file = freshPath();
    fs.writeFileSync(file, '');
    raw(file, (db) => {
      db.exec(
        'CREATE TABLE queues (id integer, tenant_id integer, name text, rate_limit real, max_retries integer, visibility_timeout integer)',
      );
      db.exec('CREATE TABLE messages (id integer, tenant_id integer, queue_id integer, deliver_at integer, message text)');
      db.exec('CREATE TABLE kvs (tenant_id integer, queue_id integer, message_id integer, k text, v text)');
    });
    await expectSmqError(openSqliteBackend(file, {}), 'connection', /table messages lacks columns delivered_at, tries, max_tries/);
  });

  it('refuses to create a file in a missing directory, and a path that is a directory', async () => {
    const file = path.join(tmpRoot, 'no-such-dir', 'q.sqlite');
    const err = await expectSmqError(openSqliteBackend(file, { create: true }), 'connection', /directory .*no-such-dir does not exist/);
    expect(err.line()).toContain(file);
    await expectSmqError(openSqliteBackend(tmpRoot, { create: true }), 'connection', /is a directory/);
  });

  it.skipIf(process.getuid?.() === 0)('refuses to create a file where it may not write', async () => {
    const dir = fs.mkdtempSync(path.join(tmpRoot, 'ro-'));
    fs.chmodSync(dir, 0o500);
    try {
      await expectSmqError(openSqliteBackend(path.join(dir, 'q.sqlite'), { create: true }), 'connection', /no permission to write/);
    } finally {
      fs.chmodSync(dir, 0o700);
    }
  });

  it('reports info and capabilities', async () => {
    const { file, backend } = await fresh();
    const info = await backend.info();
    // fresh() creates the file: this open made the schema.
    expect(info).toEqual({
      backend: 'sqlite',
      serverVersion: expect.stringMatching(/^SQLite \d+\.\d+/),
      schema: 'SmoothMQ',
      location: file,
      schemaCreated: true,
    });
    expect(backend.kind).toBe('sqlite');
    expect(backend.capabilities).toEqual({
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
      groups: false,
      groupedHead: false,
      topics: false,
      notifyInsert: false,
      notifyCapitals: false,
      setVtAt: false,
      popQty: false,
    });
    await backend.close();
    await backend.close(); // twice is fine
    await expectSmqError(backend.listQueues(), 'connection', /closed/);
  });
});

describe('queues', () => {
  it('creates idempotently with SmoothMQ defaults, or the settings given', async () => {
    const { file, backend } = await fresh();
    expect(await backend.createQueue('orders')).toBe(true);
    expect(await backend.createQueue('orders', { visibilityTimeoutSec: 5 })).toBe(false);
    expect(await backend.createQueue('Orders', { visibilityTimeoutSec: 5, maxRetries: 3, rateLimit: 2.5 })).toBe(true);
    const stats = await backend.listQueues();
    expect(stats.map((s) => [s.name, s.visibilityTimeoutSec, s.maxRetries, s.rateLimit, s.tenant])).toEqual([
      ['Orders', 5, 3, 2.5, 1],
      ['orders', 30, -1, -1, 1],
    ]);
    const rows = raw(file, (db) => db.prepare('SELECT id, tenant_id, name FROM queues ORDER BY name').all()) as { id: bigint }[];
    for (const r of rows) expect(r.id).toBeGreaterThan(2n ** 53n);
    const created = stats[0]!.createdAt!;
    expect(Math.abs(created.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('validates names and settings before touching the file', async () => {
    const { file, backend } = await fresh();
    const before = dump(file);
    await expectSmqError(backend.createQueue(''), 'invalid-queue-name');
    await expectSmqError(backend.createQueue('a\u0007b'), 'invalid-queue-name');
    await expectSmqError(backend.createQueue('x'.repeat(300)), 'invalid-queue-name');
    await expectSmqError(backend.createQueue('q', { maxRetries: -2 }), 'invalid-input');
    await expectSmqError(backend.createQueue('q', { visibilityTimeoutSec: 1.5 }), 'invalid-input');
    await expectSmqError(backend.createQueue('q', { rateLimit: -3 }), 'invalid-input');
    expect(dump(file)).toEqual(before);
  });

  it('stores names that look like SQL as plain data', async () => {
    const { backend } = await fresh();
    const names = ['x; drop table queues', "it's", 'a"b', '$1', 'a -- b'];
    for (const n of names) expect(await backend.createQueue(n)).toBe(true);
    for (const n of names) await backend.send(n, { body: n });
    expect((await backend.listQueues()).map((q) => q.name).sort()).toEqual([...names].sort());
    for (const n of names) expect((await backend.peek(n, { limit: 5 }))[0]?.body).toBe(n);
  });

  it('drops a queue with its messages and kvs rows, and purges', async () => {
    const { file, backend } = await fresh();
    await backend.createQueue('a');
    await backend.createQueue('b');
    await backend.sendBatch('a', [{ body: '1', headers: { k: 'v' } }, { body: '2' }]);
    await backend.sendBatch('b', [{ body: '3', headers: { k: 'v' } }, { body: '4', headers: { x: 'y' } }, { body: '5' }]);
    expect(await backend.purgeQueue('b')).toBe(3);
    expect((await backend.queueStats('b')).total).toBe(0);
    await backend.dropQueue('a');
    const rows = dump(file);
    expect(rows['messages']).toEqual([]);
    expect(rows['kvs']).toEqual([]);
    expect((rows['queues'] as { name: string }[]).map((q) => q.name)).toEqual(['b']);
    await expectSmqError(backend.dropQueue('a'), 'queue-not-found', /"a" does not exist/);
    await expectSmqError(backend.purgeQueue('a'), 'queue-not-found');
    await expectSmqError(backend.queueStats('a'), 'queue-not-found');
    await expectSmqError(backend.send('a', { body: 'x' }), 'queue-not-found');
    await expectSmqError(backend.receive('a', { qty: 1 }), 'queue-not-found');
    await expectSmqError(backend.peek('a', { limit: 1 }), 'queue-not-found');
    await expectSmqError(backend.delete('a', [1n]), 'queue-not-found');
  });

  it('keeps tenants apart', async () => {
    const file = freshPath();
    const t1 = await open(file, { create: true });
    const t2 = await open(file, { tenant: 2 });
    expect(await t1.createQueue('shared')).toBe(true);
    expect(await t2.createQueue('shared')).toBe(true);
    await t2.createQueue('only-two');
    await t1.send('shared', { body: 'for tenant 1' });
    expect((await t1.queueStats('shared')).total).toBe(1);
    expect((await t2.queueStats('shared')).total).toBe(0);
    expect(await t2.receive('shared', { qty: 10 })).toEqual([]);
    await expectSmqError(t1.queueStats('only-two'), 'queue-not-found');

    // No tenant chosen: every tenant's queues; tenant chosen: only its own.
    const all = await t1.listQueues();
    expect(all.map((q) => [q.tenant, q.name, q.total])).toEqual([
      [1, 'shared', 1],
      [2, 'only-two', 0],
      [2, 'shared', 0],
    ]);
    expect((await t2.listQueues()).map((q) => [q.tenant, q.name])).toEqual([
      [2, 'only-two'],
      [2, 'shared'],
    ]);
    const explicitOne = await open(file, { tenant: 1 });
    expect((await explicitOne.listQueues()).map((q) => q.name)).toEqual(['shared']);
    raw(file, (db) => {
      expect(db.prepare('SELECT tenant_id FROM messages').pluck().all()).toEqual([1n]);
    });
  });

  it('refuses archive: SmoothMQ has none', async () => {
    const { backend } = await fresh();
    await backend.createQueue('q');
    const id = await backend.send('q', { body: 'x' });
    await expectSmqError(backend.archive('q', [id]), 'invalid-input', /archive is not supported on SmoothMQ SQLite/);
  });
});

describe('messages', () => {
  it('returns snowflake ids above 2^53 as bigint that round-trip exactly', async () => {
    const { file, backend } = await fresh();
    await backend.createQueue('q');
    const before = BigInt(Date.now() - 1288834974657) << 22n;
    const id = await backend.send('q', { body: 'hello' });
    expect(typeof id).toBe('bigint');
    expect(id).toBeGreaterThan(2n ** 53n);
    expect(id).toBeGreaterThanOrEqual(before);
    expect(raw(file, (db) => db.prepare('SELECT id FROM messages').pluck().get())).toBe(id);
    // The lowest bits would be lost in a double; the id must survive exactly.
    expect(Number(id).toString()).not.toBe(id.toString());
    const [peeked] = await backend.peek('q', { limit: 1, id });
    expect(peeked?.id).toBe(id);
    expect(peeked?.enqueuedAt?.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(await backend.delete('q', [id, id + 1n])).toEqual([id]);
    expect(await backend.delete('q', [id])).toEqual([]);
  });

  it('writes messages the way SmoothMQ does', async () => {
    const { file, backend } = await fresh();
    await backend.createQueue('q', { maxRetries: 4 });
    const t0 = Math.floor(Date.now() / 1000);
    const id = await backend.send('q', { body: 'payload', delaySec: 10 });
    const row = raw(file, (db) => db.prepare('SELECT * FROM messages').get()) as Record<string, unknown>;
    const queueId = raw(file, (db) => db.prepare('SELECT id FROM queues').pluck().get());
    expect(row).toMatchObject({ id, tenant_id: 1n, queue_id: queueId, delivered_at: 0n, tries: 0n, max_tries: 4n, message: 'payload' });
    expect(Number(row['deliver_at'])).toBeGreaterThanOrEqual(t0 + 10);
    expect(Number(row['deliver_at'])).toBeLessThanOrEqual(t0 + 11);
  });

  it('stores attributes as two kvs rows each and returns them as name -> value', async () => {
    const { file, backend } = await fresh();
    await backend.createQueue('q');
    const id = await backend.send('q', { body: 'b', headers: { trace: 'abc', 'content-type': 'text/plain' } });
    const other = await backend.send('q', { body: 'no attributes' });
    const { queueId, kvs } = raw(file, (db) => ({
      queueId: db.prepare('SELECT id FROM queues').pluck().get(),
      kvs: db.prepare('SELECT tenant_id, queue_id, message_id, k, v FROM kvs ORDER BY k').all(),
    }));
    const row = (k: string, v: string) => ({ tenant_id: 1n, queue_id: queueId, message_id: id, k, v });
    expect(kvs).toEqual([
      row('content-type', 'text/plain'),
      row('content-type_DataType', 'String'),
      row('trace', 'abc'),
      row('trace_DataType', 'String'),
    ]);
    const peeked = await backend.peek('q', { limit: 10 });
    expect(peeked.map((m) => m.headers)).toEqual([{ trace: 'abc', 'content-type': 'text/plain' }, null]);
    const [received] = await backend.receive('q', { qty: 1 });
    expect(received?.id).toBe(id);
    expect(received?.headers).toEqual({ trace: 'abc', 'content-type': 'text/plain' });
    expect(await backend.delete('q', [id])).toEqual([id]);
    expect(raw(file, (db) => db.prepare('SELECT count(*) FROM kvs').pluck().get())).toBe(0n);
    expect((await backend.peek('q', { limit: 10 })).map((m) => m.id)).toEqual([other]);
    await expectSmqError(backend.send('q', { body: 'x', headers: { a_DataType: 'x' } }), 'invalid-input', /_DataType/);
  });

  it('reads attributes SmoothMQ wrote, including ones without a type row', async () => {
    const { file, backend } = await fresh();
    await backend.createQueue('q');
    const id = await backend.send('q', { body: 'celery' });
    raw(file, (db) => {
      const q = db.prepare('SELECT id FROM queues').pluck().get();
      const ins = db.prepare('INSERT INTO kvs (tenant_id, queue_id, message_id, k, v) VALUES (1, ?, ?, ?, ?)');
      ins.run(q, id, 'n', '42');
      ins.run(q, id, 'n_DataType', 'Number');
      ins.run(q, id, 'celery_task', 'tasks.add');
    });
    const [m] = await backend.peek('q', { limit: 1 });
    expect(m?.headers).toEqual({ n: '42', celery_task: 'tasks.add' });
  });

  it('sends a batch in one transaction, ids increasing, and refuses a bad batch whole', async () => {
    const { file, backend } = await fresh();
    await backend.createQueue('q');
    const ids = await backend.sendBatch(
      'q',
      Array.from({ length: 500 }, (_, i) => ({ body: `m${i}` })),
    );
    expect(ids).toHaveLength(500);
    expect(new Set(ids).size).toBe(500);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    const before = dump(file);
    await expectSmqError(backend.sendBatch('q', [{ body: 'ok' }, { body: 'bad', delaySec: -1 }]), 'invalid-input');
    expect(dump(file)).toEqual(before);
    expect(await backend.sendBatch('q', [])).toEqual([]);
  });

  it('hides delayed messages until their time', async () => {
    const { file, backend } = await fresh();
    await backend.createQueue('q');
    const id = await backend.send('q', { body: 'later', delaySec: 60 });
    const now = await backend.send('q', { body: 'now' });
    const stats = await backend.queueStats('q');
    expect([stats.ready, stats.delayed, stats.inFlight, stats.failed, stats.total]).toEqual([1, 1, 0, 0, 2]);
    const [m] = await backend.peek('q', { limit: 1, id });
    expect(m?.state).toBe('delayed');
    expect((await backend.receive('q', { qty: 10 })).map((x) => x.id)).toEqual([now]);
    expect(await backend.receive('q', { qty: 10 })).toEqual([]);
    // Let the delay pass by moving the message's time back.
    raw(file, (db) => db.prepare('UPDATE messages SET deliver_at = deliver_at - 61 WHERE id = ?').run(id));
    const got = await backend.receive('q', { qty: 10 });
    expect(got.map((x) => [x.id, x.readCount, x.state])).toEqual([[id, 1, 'inflight']]);
  });

  it('hides received messages for the visibility timeout, then hands them out again', async () => {
    const { backend } = await fresh();
    await backend.createQueue('q', { visibilityTimeoutSec: 1 });
    const id = await backend.send('q', { body: 'x' });
    await startOfSecond();
    const t0 = Math.floor(Date.now() / 1000);
    const [first] = await backend.receive('q', { qty: 5 }); // the queue's own 1 s
    expect(first).toMatchObject({ id, readCount: 1, state: 'inflight', body: 'x' });
    expect(first?.visibleAt.getTime()).toBe((t0 + 1) * 1000);
    expect(first?.lastReadAt?.getTime()).toBe(t0 * 1000);
    expect(await backend.receive('q', { qty: 5 })).toEqual([]);
    expect((await backend.queueStats('q')).inFlight).toBe(1);
    await sleep(1100);
    const [second] = await backend.receive('q', { qty: 5, vtSec: 300 });
    expect(second).toMatchObject({ id, readCount: 2, state: 'inflight' });
    expect(await backend.receive('q', { qty: 5 })).toEqual([]);
  });

  it('changes visibility by id and reports the ids it changed', async () => {
    const { backend } = await fresh();
    await backend.createQueue('q');
    const [a, b] = await backend.sendBatch('q', [{ body: 'a' }, { body: 'b' }]);
    const got = await backend.receive('q', { qty: 2, vtSec: 300 });
    expect(got.map((m) => m.id)).toEqual([a, b]);
    expect(await backend.setVisibility('q', [b!, 12345n], 0)).toEqual([b]);
    expect((await backend.receive('q', { qty: 2 })).map((m) => m.id)).toEqual([b]);
    expect(await backend.setVisibility('q', [a!], 600)).toEqual([a]);
    const [peekA] = await backend.peek('q', { limit: 1, id: a! });
    expect(peekA?.visibleAt.getTime()).toBeGreaterThan(Date.now() + 590_000);
    await expectSmqError(backend.setVisibility('q', [a!], -1), 'invalid-input');
  });

  it('marks messages failed after max retries and never delivers them again', async () => {
    const { file, backend } = await fresh();
    await backend.createQueue('q', { maxRetries: 2 });
    const id = await backend.send('q', { body: 'poison' });
    // vt 0: visible again at once, like a consumer that keeps failing.
    expect((await backend.receive('q', { qty: 1, vtSec: 0 }))[0]?.readCount).toBe(1);
    expect((await backend.receive('q', { qty: 1, vtSec: 0 }))[0]?.readCount).toBe(2);
    expect(await backend.receive('q', { qty: 1, vtSec: 0 })).toEqual([]);
    const stats = await backend.queueStats('q');
    expect([stats.failed, stats.ready, stats.inFlight, stats.total]).toEqual([1, 0, 0, 1]);
    const [m] = await backend.peek('q', { limit: 1, state: 'failed' });
    expect(m).toMatchObject({ id, state: 'failed', readCount: 2, maxTries: 2 });
    // max_tries was copied at enqueue: raising the queue's setting later does not revive it.
    raw(file, (db) => db.prepare('UPDATE queues SET max_retries = 10').run());
    expect(await backend.receive('q', { qty: 1 })).toEqual([]);
    expect(await backend.delete('q', [id])).toEqual([id]);
  });

  it('never delivers a message whose max tries is 0', async () => {
    const { backend } = await fresh();
    await backend.createQueue('q', { maxRetries: 0 });
    await backend.send('q', { body: 'x' });
    expect(await backend.receive('q', { qty: 1 })).toEqual([]);
    expect((await backend.queueStats('q')).failed).toBe(1);
  });

  it('receives the longest-visible first (a batch in id order), at most qty, and validates its options', async () => {
    const { backend } = await fresh();
    await backend.createQueue('q');
    const ids = await backend.sendBatch(
      'q',
      Array.from({ length: 7 }, (_, i) => ({ body: String(i) })),
    );
    expect((await backend.receive('q', { qty: 3 })).map((m) => m.id)).toEqual(ids.slice(0, 3));
    expect((await backend.receive('q', { qty: 3 })).map((m) => m.body)).toEqual(['3', '4', '5']);
    expect((await backend.receive('q', { qty: 3 })).map((m) => m.body)).toEqual(['6']);
    await expectSmqError(backend.receive('q', { qty: 0 }), 'invalid-input');
    await expectSmqError(backend.receive('q', { qty: -1 }), 'invalid-input');
    await expectSmqError(backend.receive('q', { qty: 1.5 }), 'invalid-input');
    await expectSmqError(backend.receive('q', { qty: 1, vtSec: -5 }), 'invalid-input');
  });

  it('honours rate_limit: 0 pauses the queue, n >= 1 lets n out per second', async () => {
    const { file, backend } = await fresh();
    await backend.createQueue('paused', { rateLimit: 0 });
    await backend.createQueue('slow', { rateLimit: 2 });
    await backend.send('paused', { body: 'x' });
    await backend.sendBatch(
      'slow',
      Array.from({ length: 6 }, (_, i) => ({ body: String(i) })),
    );
    expect(await backend.receive('paused', { qty: 5 })).toEqual([]);
    await startOfSecond();
    expect(await backend.receive('slow', { qty: 5 })).toHaveLength(2);
    expect(await backend.receive('slow', { qty: 5 })).toHaveLength(0);
    const buckets = raw(file, (db) => db.prepare('SELECT n FROM rate_limits').pluck().all());
    expect(buckets).toEqual([2n]);
    await sleep(1000);
    expect(await backend.receive('slow', { qty: 1 })).toHaveLength(1);
  });

  it('honours a rate_limit below 1: one message per 1/rate seconds', async () => {
    const { backend } = await fresh();
    await backend.createQueue('trickle', { rateLimit: 0.1 }); // one per 10 s
    await backend.sendBatch('trickle', [{ body: 'a' }, { body: 'b' }, { body: 'c' }]);
    expect(await backend.receive('trickle', { qty: 3 })).toHaveLength(1);
    expect(await backend.receive('trickle', { qty: 3 })).toHaveLength(0);
    expect((await backend.queueStats('trickle')).ready).toBe(2);
  });
});

describe('peek', () => {
  /** ready, inflight, delayed and failed messages, some with attributes. */
  async function mixedQueue() {
    const { file, backend } = await fresh();
    await backend.createQueue('q', { maxRetries: 1 });
    const [failedId] = await backend.sendBatch('q', [{ body: 'will fail', headers: { a: '1' } }]);
    await backend.receive('q', { qty: 1, vtSec: 0 }); // tries 1 = max 1, visible: failed
    const [inflightId] = await backend.sendBatch('q', [{ body: 'in flight' }]);
    await backend.receive('q', { qty: 1, vtSec: 300 });
    const readyIds = await backend.sendBatch('q', [{ body: 'ready 1', headers: { b: '2' } }, { body: 'ready 2' }, { body: 'ready 3' }]);
    const [delayedId] = await backend.sendBatch('q', [{ body: 'delayed', delaySec: 300 }]);
    return { file, backend, failedId: failedId!, inflightId: inflightId!, readyIds, delayedId: delayedId! };
  }

  it('a body stored by another client that is not UTF-8 keeps its stored size (its text has U+FFFD)', async () => {
    const { file, backend } = await fresh();
    await backend.createQueue('q');
    const [id] = await backend.sendBatch('q', [{ body: 'placeholder' }]);
    const raw = new Database(file);
    raw.prepare('UPDATE messages SET message = ? WHERE id = ?').run(Buffer.from('6261641b5b324a0d78ff', 'hex'), id);
    raw.close();
    const [m] = await backend.peek('q', { limit: 1 });
    expect(m!.body).toBe('bad\u001b[2J\rx\ufffd');
    expect(m!.bodyBytes).toBe(10);
    const [ok] = await backend.peek('q', { limit: 1, afterId: 0n });
    expect(ok!.bodyBytes === undefined || ok!.bodyBytes === 10).toBe(true);
  });

  it('shows every state with its filter, in both orders, with keyset paging', async () => {
    const { backend, failedId, inflightId, readyIds, delayedId } = await mixedQueue();
    const all = await backend.peek('q', { limit: 100 });
    expect(all.map((m) => [m.id, m.state])).toEqual([
      [failedId, 'failed'],
      [inflightId, 'inflight'],
      [readyIds[0], 'ready'],
      [readyIds[1], 'ready'],
      [readyIds[2], 'ready'],
      [delayedId, 'delayed'],
    ]);
    expect((await backend.peek('q', { limit: 100, state: 'ready' })).map((m) => m.id)).toEqual(readyIds);
    expect((await backend.peek('q', { limit: 100, state: 'failed' })).map((m) => m.id)).toEqual([failedId]);
    expect((await backend.peek('q', { limit: 100, state: 'inflight' })).map((m) => m.id)).toEqual([inflightId]);
    expect((await backend.peek('q', { limit: 100, state: 'delayed' })).map((m) => m.id)).toEqual([delayedId]);
    const stats = await backend.queueStats('q');
    expect([stats.ready, stats.inFlight, stats.delayed, stats.failed, stats.total]).toEqual([3, 1, 1, 1, 6]);
    expect(stats.oldestAgeSec).toBeGreaterThanOrEqual(0);
    expect(stats.newestAgeSec).toBeLessThanOrEqual(stats.oldestAgeSec!);

    const newest = await backend.peek('q', { limit: 2, order: 'newest' });
    expect(newest.map((m) => m.id)).toEqual([delayedId, readyIds[2]]);
    const page2 = await backend.peek('q', { limit: 2, order: 'newest', afterId: newest[1]!.id });
    expect(page2.map((m) => m.id)).toEqual([readyIds[1], readyIds[0]]);
    const oldestPage = await backend.peek('q', { limit: 2, afterId: inflightId });
    expect(oldestPage.map((m) => m.id)).toEqual([readyIds[0], readyIds[1]]);
    expect((await backend.peek('q', { limit: 10, afterId: readyIds[0], state: 'ready' })).map((m) => m.id)).toEqual(readyIds.slice(1));

    const [one] = await backend.peek('q', { limit: 1, id: failedId });
    expect(one).toMatchObject({ id: failedId, body: 'will fail', headers: { a: '1' }, readCount: 1, maxTries: 1, state: 'failed' });
    expect(await backend.peek('q', { limit: 1, id: 999n })).toEqual([]);
    await expectSmqError(backend.peek('q', { limit: 0 }), 'invalid-input');
    await expectSmqError(backend.peek('q', { limit: 1, state: 'gone' as never }), 'invalid-input');
  });

  it('changes nothing in the file', async () => {
    const { file, backend, failedId } = await mixedQueue();
    const before = dump(file);
    const mtimes = () => ['', '-wal'].map((s) => (fs.existsSync(file + s) ? fs.readFileSync(file + s).length : -1));
    const sizes = mtimes();
    const variants: Parameters<Backend['peek']>[1][] = [
      { limit: 100 },
      { limit: 1 },
      { limit: 100, state: 'ready' },
      { limit: 100, state: 'inflight' },
      { limit: 100, state: 'delayed' },
      { limit: 100, state: 'failed' },
      { limit: 2, order: 'newest' },
      { limit: 2, afterId: failedId },
      { limit: 1, id: failedId },
    ];
    let seen = 0;
    for (const v of variants) seen += (await backend.peek('q', v)).length;
    expect(seen).toBeGreaterThan(10);
    await backend.queueStats('q');
    await backend.listQueues();
    expect(dump(file)).toEqual(before);
    expect(mtimes()).toEqual(sizes);
  });
});

describe('read-only', () => {
  it('reads, and leaves every write to be refused by SQLite itself', async () => {
    const { file, backend } = await fresh();
    await backend.createQueue('q');
    const id = await backend.send('q', { body: 'x', headers: { a: 'b' } });
    await backend.close();
    const before = dump(file);

    const ro = await open(file, { readOnly: true });
    expect((await ro.peek('q', { limit: 5 })).map((m) => m.id)).toEqual([id]);
    expect((await ro.listQueues()).map((q) => q.total)).toEqual([1]);
    const refused = [
      ro.createQueue('new'),
      ro.send('q', { body: 'y' }),
      ro.sendBatch('q', [{ body: 'y' }]),
      ro.receive('q', { qty: 1 }),
      ro.receive('q', { qty: 1, dequeue: 'naive' }),
      ro.delete('q', [id]),
      ro.setVisibility('q', [id], 10),
      ro.purgeQueue('q'),
      ro.dropQueue('q'),
    ];
    for (const p of refused) {
      const err = await expectSmqError(p, 'read-only', /read-only/);
      expect((err.cause as { code?: string }).code).toMatch(/^SQLITE_READONLY/);
    }
    expect(dump(file)).toEqual(before);
    await expectSmqError(openSqliteBackend(freshPath(), { readOnly: true, create: true }), 'connection', /does not exist/);
  });
});

describe('concurrency', () => {
  beforeAll(() => {
    // Workers load the compiled backend; rebuild when dist is missing or older than src.
    const srcDir = path.join(repoRoot, 'src');
    const newestSrc = Math.max(
      ...['backends/sqlite', 'backends', '.'].flatMap((d) =>
        fs
          .readdirSync(path.join(srcDir, d))
          .filter((f) => f.endsWith('.ts'))
          .map((f) => fs.statSync(path.join(srcDir, d, f)).mtimeMs),
      ),
    );
    const distTime = fs.existsSync(distBackend) ? fs.statSync(distBackend).mtimeMs : 0;
    if (distTime < newestSrc) {
      try {
        execFileSync(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
          cwd: repoRoot,
          stdio: 'pipe',
        });
      } catch {
        // tsc emits even with type errors elsewhere in the tree; the check below decides.
      }
    }
    expect(fs.existsSync(distBackend), 'dist/backends/sqlite/backend.js (run npm run build)').toBe(true);
  }, 120_000);

  interface ClaimConfig {
    path: string;
    queue: string;
    qty: number;
    vtSec: number;
    dequeue: 'safe' | 'naive';
    naivePauseMs?: number;
  }

  type Peer = { send(m: unknown): void; on(fn: (m: { type: string; ids?: string[]; message?: string }) => void): void; stop(): void };

  function threadPeer(config: ClaimConfig): Peer {
    const w = new Worker(workerScript, { workerData: config });
    return {
      send: (m) => w.postMessage(m),
      on: (fn) => {
        w.on('message', fn);
        w.on('error', (e) => fn({ type: 'error', message: e.message }));
      },
      stop: () => void w.terminate(),
    };
  }

  function processPeer(config: ClaimConfig): Peer {
    const child = fork(workerScript, [JSON.stringify(config)], { stdio: 'pipe' });
    return {
      send: (m) => child.send(m as object),
      on: (fn) => {
        child.on('message', (m) => fn(m as { type: string }));
        child.on('error', (e) => fn({ type: 'error', message: e.message }));
      },
      stop: () => void child.kill(),
    };
  }

  /** Starts all peers together (after each has opened the file) and collects what each received. */
  async function runClaimers(peers: Peer[]): Promise<string[][]> {
    let ready = 0;
    const results = peers.map(
      (peer) =>
        new Promise<string[]>((resolve, reject) => {
          peer.on((m) => {
            if (m.type === 'ready' && ++ready === peers.length) for (const p of peers) p.send({ type: 'go' });
            if (m.type === 'done') resolve(m.ids ?? []);
            if (m.type === 'error') reject(new Error(m.message));
          });
        }),
    );
    try {
      return await Promise.all(results);
    } finally {
      for (const p of peers) p.stop();
    }
  }

  async function seed(count: number): Promise<{ file: string; ids: bigint[] }> {
    const { file, backend } = await fresh();
    await backend.createQueue('work');
    const ids = await backend.sendBatch(
      'work',
      Array.from({ length: count }, (_, i) => ({ body: `job ${i}` })),
    );
    await backend.close();
    return { file, ids };
  }

  function duplicates(perPeer: string[][]): number {
    const all = perPeer.flat();
    return all.length - new Set(all).size;
  }

  it('safe receive in 4 worker threads never hands one message out twice', async () => {
    const { file, ids } = await seed(2000);
    const config: ClaimConfig = { path: file, queue: 'work', qty: 2, vtSec: 600, dequeue: 'safe' };
    const perWorker = await runClaimers(Array.from({ length: 4 }, () => threadPeer(config)));
    expect(duplicates(perWorker)).toBe(0);
    expect(new Set(perWorker.flat())).toEqual(new Set(ids.map(String)));
    // They really ran side by side (the last to start may find the queue already drained).
    expect(perWorker.filter((got) => got.length > 0).length).toBeGreaterThanOrEqual(2);
    raw(file, (db) => expect(db.prepare('SELECT DISTINCT tries FROM messages').pluck().all()).toEqual([1n]));
  }, 60_000);

  it('safe receive in 2 processes and 2 threads never hands one message out twice', async () => {
    const { file, ids } = await seed(300);
    const config: ClaimConfig = { path: file, queue: 'work', qty: 2, vtSec: 600, dequeue: 'safe' };
    const perPeer = await runClaimers([processPeer(config), processPeer(config), threadPeer(config), threadPeer(config)]);
    expect(duplicates(perPeer)).toBe(0);
    expect(new Set(perPeer.flat())).toEqual(new Set(ids.map(String)));
  }, 60_000);

  it("naive (SmoothMQ's select-then-update) with a pause does hand messages out twice", async () => {
    const { file } = await seed(200);
    const config: ClaimConfig = { path: file, queue: 'work', qty: 10, vtSec: 600, dequeue: 'naive', naivePauseMs: 25 };
    const perWorker = await runClaimers(Array.from({ length: 4 }, () => threadPeer(config)));
    expect(duplicates(perWorker)).toBeGreaterThan(0);
    raw(file, (db) => expect(Number(db.prepare('SELECT max(tries) FROM messages').pluck().get())).toBeGreaterThan(1));
  }, 60_000);
});
