// What only the pgmq backend does: connection errors, read-only and isolation enforced by the
// server, estimated stats for large queues, the naive dequeue's double deliveries, health.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { openPgmqBackend, pgmqBackendOn, pgmqClientConfig, type PgmqBackend } from '../../src/backends/pgmq/backend.js';
import { SmqError } from '../../src/errors.js';
import { freePort } from '../helpers/pg-server.js';
import { uniqueQueue } from '../helpers/backends.js';

const url = () => inject('pgUrl');
const password = () => decodeURIComponent(new URL(url()).password);

/**
 * A backend over a pg.Pool the test holds: made as smq makes its connections (same settings),
 * so SQL the test runs on the pool goes over the backend's own connections.
 */
async function openOwned(options: Parameters<typeof pgmqClientConfig>[1] = {}): Promise<{ backend: PgmqBackend; pool: pg.Pool }> {
  const { config, ctx } = await pgmqClientConfig(url(), options);
  const pool = new pg.Pool({ ...config, max: 4 });
  pool.on('error', () => {});
  return { backend: await pgmqBackendOn(pool, ctx), pool };
}

async function failure(p: Promise<unknown>): Promise<SmqError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(SmqError);
  return e as SmqError;
}

describe('connecting', () => {
  test('an unreachable server fails within 5 s with a clear connection error', async () => {
    const port = await freePort();
    const started = Date.now();
    const e = await failure(openPgmqBackend(`postgres://u:hunter2@127.0.0.1:${port}/db`, { connectTimeoutMs: 5000 }));
    expect(Date.now() - started).toBeLessThan(5500);
    expect(e.kind).toBe('connection');
    expect(e.exitCode).toBe(1);
    expect(e.line()).toMatch(/cannot connect to postgres:\/\/u:\*\*\*@127\.0\.0\.1/);
    expect(e.line()).not.toContain('hunter2');
  });

  test('a wrong password is an auth error that does not show the password', async () => {
    const u = new URL(url());
    u.password = 'not-the-password';
    const e = await failure(openPgmqBackend(u.toString()));
    expect(e.kind).toBe('auth');
    expect(e.line()).toMatch(/authentication failed/);
    expect(e.line()).not.toContain('not-the-password');
  });

  test('a database without pgmq says to run smq init', async () => {
    const admin = new pg.Client({ connectionString: url() });
    await admin.connect();
    const db = uniqueQueue('nopgmq');
    await admin.query(`CREATE DATABASE ${db}`);
    try {
      const u = new URL(url());
      u.pathname = `/${db}`;
      const e = await failure(openPgmqBackend(u.toString()));
      expect(e.line()).toMatch(/pgmq is not installed.*smq init/);
      expect(e.line()).not.toContain(password());
    } finally {
      await admin.query(`DROP DATABASE ${db}`);
      await admin.end();
    }
  });

  test('a pgmq installed from its SQL file (no extension row) is used, not refused', async () => {
    const admin = new pg.Client({ connectionString: url() });
    await admin.connect();
    const db = uniqueQueue('sqlpgmq');
    await admin.query(`CREATE DATABASE ${db}`);
    try {
      const u = new URL(url());
      u.pathname = `/${db}`;
      // What pgmq's plain-SQL install leaves (in part): schema pgmq, pgmq.meta, the message type.
      const c = new pg.Client({ connectionString: u.toString() });
      await c.connect();
      try {
        await c.query('CREATE SCHEMA pgmq');
        await c.query(
          'CREATE TABLE pgmq.meta (queue_name varchar UNIQUE NOT NULL, is_partitioned boolean NOT NULL, is_unlogged boolean NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
        );
        await c.query(
          'CREATE TYPE pgmq.message_record AS (msg_id bigint, read_ct integer, enqueued_at timestamptz, last_read_at timestamptz, vt timestamptz, message jsonb, headers jsonb)',
        );
      } finally {
        await c.end();
      }
      const sqlInstall = await openPgmqBackend(u.toString());
      try {
        expect((await sqlInstall.info()).schema).toMatch(/^pgmq, installed from its SQL file/);
        expect(sqlInstall.columns).toEqual({ headers: true, lastReadAt: true });
        expect(await sqlInstall.listQueues()).toEqual([]);
      } finally {
        await sqlInstall.close();
      }
    } finally {
      await admin.query(`DROP DATABASE ${db} WITH (FORCE)`);
      await admin.end();
    }
  });
});

describe('with a queue', () => {
  let b: PgmqBackend;
  const q = uniqueQueue('pgb');
  beforeAll(async () => {
    b = await openPgmqBackend(url());
    await b.createQueue(q);
  });
  afterAll(async () => {
    await b.dropQueue(q).catch(() => {});
    await b.close();
  });

  test('messages sent without a delay are never counted delayed while sends commit during the count', async () => {
    // The counts compared vt with now(), the statement's start: a send whose vt was taken
    // after that and that committed before the count's snapshot was "delayed" (seen in top
    // as DELAYED 50 for a producer of batches of 50).
    const busy = uniqueQueue('pgbrace');
    await b.createQueue(busy);
    const producer = new pg.Client({ connectionString: url() });
    await producer.connect();
    let stop = false;
    const sending = (async () => {
      while (!stop) {
        await producer.query(`SELECT pgmq.send_batch($1, array_fill('{"p":1}'::jsonb, array[50]))`, [busy]);
      }
    })();
    try {
      const seen: number[] = [];
      const listed: number[] = [];
      const until = Date.now() + 4000;
      while (Date.now() < until) {
        seen.push((await b.queueStats(busy, { exact: true })).delayed);
        const rows = await b.peek(busy, { limit: 1000, state: 'delayed', order: 'newest' });
        listed.push(rows.length);
      }
      expect(seen.filter((n) => n > 0)).toEqual([]);
      expect(listed.filter((n) => n > 0)).toEqual([]);
    } finally {
      stop = true;
      await sending;
      await producer.end();
      await b.dropQueue(busy);
    }
  });

  test('info names PostgreSQL and the pgmq schema in use', async () => {
    const info = await b.info();
    expect(info.serverVersion).toMatch(/^PostgreSQL 15/);
    expect(info.schema).toMatch(/^(smq compat schema \(pgmq \d|pgmq \d|pgmq, installed from its SQL file)/);
    expect(info.location).not.toContain(password());
    expect(b.columns).toEqual({ headers: true, lastReadAt: true });
  });

  test('read-only is enforced by the server, not only by smq', async () => {
    const { backend: ro, pool } = await openOwned({ readOnly: true });
    try {
      expect((await ro.listQueues()).some((s) => s.name === q)).toBe(true);
      const e = await failure(ro.send(q, { body: '{"n": 1}' }));
      expect(e.kind).toBe('read-only');
      // Even SQL that bypasses the backend's methods is refused on this connection.
      await expect(pool.query(`SELECT pgmq.send($1::text, '{}'::jsonb)`, [q])).rejects.toMatchObject({ code: '25006' });
    } finally {
      await ro.close();
    }
    expect((await b.queueStats(q)).total).toBe(0);
  });

  test('a write refused by a read-only server setting names it, not --read-only (which was not given)', async () => {
    const roUrl = `${url()}${url().includes('?') ? '&' : '?'}options=${encodeURIComponent('-c default_transaction_read_only=on')}`;
    const ro = await openPgmqBackend(roUrl);
    try {
      const e = await failure(ro.send(q, { body: '{"n": 1}' }));
      expect(e.kind).toBe('read-only');
      expect(e.hint).not.toContain('--read-only');
      expect(e.hint).toMatch(/standby, or default_transaction_read_only in the URL/);
    } finally {
      await ro.close();
    }
    const { backend: asked } = await openOwned({ readOnly: true });
    try {
      expect((await failure(asked.send(q, { body: '{}' }))).hint).toMatch(/drop --read-only/);
    } finally {
      await asked.close();
    }
  });

  test('the isolation level asked for is the one in effect', async () => {
    const { backend: s, pool } = await openOwned({ isolation: 'serializable' });
    try {
      const r = await pool.query<{ level: string }>("SELECT current_setting('transaction_isolation') AS level");
      expect(r.rows[0]?.level).toBe('serializable');
    } finally {
      await s.close();
    }
  });

  test('large queues get estimated counts (marked), small ones exact', async () => {
    const big = uniqueQueue('big');
    await b.createQueue(big);
    const admin = new pg.Client({ connectionString: url() });
    await admin.connect();
    try {
      await admin.query(
        `INSERT INTO pgmq.${'q_' + big} (vt, message) SELECT now(), jsonb_build_object('i', g) FROM generate_series(1, 3000) g`,
      );
      await b.receive(big, { qty: 10, vtSec: 300 });
      await admin.query(`ANALYZE pgmq.${'q_' + big}`);
      const exact = (await b.listQueues({ exactThreshold: 1_000_000 })).find((s) => s.name === big)!;
      expect(exact).toMatchObject({ total: 3000, inFlight: 10, ready: 2990, estimated: false });
      const est = (await b.listQueues({ exactThreshold: 100 })).find((s) => s.name === big)!;
      expect(est.estimated).toBe(true);
      expect(est.inFlight).toBe(10); // the invisible part is always counted
      expect(est.total).toBeGreaterThan(2000);
      expect(est.total).toBeLessThan(4000);
      expect(est.oldestAgeSec).not.toBeNull();
    } finally {
      await admin.end();
      await b.dropQueue(big);
    }
  });

  // top's Ctrl-D guards its drop with the count its question stated: an estimate there could
  // be below the true count with nothing sent, and the drop then refused every time.
  test('queueStats estimates a queue past 100,000 rows, and counts it exactly when asked to', async () => {
    const big = uniqueQueue('big');
    await b.createQueue(big);
    const admin = new pg.Client({ connectionString: url() });
    await admin.connect();
    try {
      await admin.query(
        `INSERT INTO pgmq.${'q_' + big} (vt, message) SELECT now(), jsonb_build_object('i', g) FROM generate_series(1, 120000) g`,
      );
      await admin.query(`ANALYZE pgmq.${'q_' + big}`);
      expect((await b.queueStats(big)).estimated).toBe(true);
      expect(await b.queueStats(big, { exact: true })).toMatchObject({ total: 120_000, ready: 120_000, estimated: false });
    } finally {
      await admin.end();
      await b.dropQueue(big);
    }
  });

  test('listQueues makes a bounded number of round trips: one, plus one per hundred queues', async () => {
    const extra = [uniqueQueue('rt'), uniqueQueue('rt'), uniqueQueue('rt')];
    for (const x of extra) await b.createQueue(x);
    const { backend: counted, pool } = await openOwned();
    let calls = 0;
    const original = pool.query.bind(pool);
    (pool as { query: unknown }).query = (...args: unknown[]) => {
      calls++;
      return (original as (...a: unknown[]) => unknown)(...args);
    };
    try {
      const list = await counted.listQueues();
      expect(list.length).toBeGreaterThanOrEqual(4);
      expect(calls).toBe(1 + Math.ceil(list.length / 100));
    } finally {
      (pool as { query: unknown }).query = original;
      await counted.close();
      for (const x of extra) await b.dropQueue(x);
    }
  });

  test('stats of more queues than one statement holds still land on the right queue', async () => {
    const names = Array.from({ length: 130 }, (_, i) => `chunk_${i}_${uniqueQueue('c')}`);
    for (const n of names) await b.createQueue(n);
    try {
      await Promise.all(
        names.map((n, i) =>
          i % 7 === 0
            ? Promise.resolve([])
            : b.sendBatch(
                n,
                Array.from({ length: i % 5 }, () => ({ body: '{}' })),
              ),
        ),
      );
      const list = new Map((await b.listQueues()).map((s) => [s.name, s]));
      names.forEach((n, i) => expect(list.get(n)?.total, n).toBe(i % 7 === 0 ? 0 : i % 5));
    } finally {
      for (const n of names) await b.dropQueue(n);
    }
  });

  test('the naive dequeue hands one message to two receivers under READ COMMITTED', async () => {
    const racy = uniqueQueue('racy');
    await b.createQueue(racy);
    const receivers = await Promise.all([1, 2, 3, 4].map(() => openPgmqBackend(url(), { poolSize: 1 })));
    try {
      await b.sendBatch(
        racy,
        Array.from({ length: 40 }, (_, i) => ({ body: `{"i": ${i}}` })),
      );
      const got = await Promise.all(receivers.map((r) => r.receive(racy, { qty: 5, vtSec: 300, dequeue: 'naive', naivePauseMs: 100 })));
      const ids = got.flat().map((m) => m.id);
      expect(new Set(ids).size).toBeLessThan(ids.length);
      // The safe dequeue under the same conditions never does.
      await b.setVisibility(racy, ids, 0);
      const safe = await Promise.all(receivers.map((r) => r.receive(racy, { qty: 5, vtSec: 300 })));
      const safeIds = safe.flat().map((m) => m.id);
      expect(new Set(safeIds).size).toBe(safeIds.length);
    } finally {
      await Promise.all(receivers.map((r) => r.close()));
      await b.dropQueue(racy);
    }
  });

  test('receive returns the lease by the queue clock', async () => {
    await b.send(q, { body: '{"n": 1}' });
    const [m] = await b.receive(q, { qty: 1, vtSec: 30 });
    expect(m!.lastReadAt).toBeInstanceOf(Date);
    const lease = (m!.visibleAt.getTime() - m!.lastReadAt!.getTime()) / 1000;
    expect(lease).toBeCloseTo(30, 0);
    await b.delete(q, [m!.id]);
  });

  test('health counts dead tuples (what holds back vacuum: pgmq-health.test.ts)', async () => {
    const h = await b.health();
    expect(h.summary).toMatch(/dead tuples in queue tables: \d{1,3}(,\d{3})*( ·|$)/);
  });
});
