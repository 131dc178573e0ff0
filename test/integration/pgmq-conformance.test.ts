// pgmq conformance: calls pgmq's SQL functions directly and checks results, result column
// names and types, and semantics. The same assertions run against smq's compat schema
// (always), against every real pgmq install of the release matrix when SMQ_TEST_PGMQ_DIR is
// set (1.4.4 as the extension, 1.5.1 and 1.13.0 as plain SQL and as the extension; each on a
// clone of its template), and against SMQ_TEST_PGMQ_URL when that is set. A check of a
// feature an older release lacks runs from the release that has it (`since`); the few checks
// that only hold for smq's schema (its error texts, its stricter checks) say so.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { compareVersions } from '../../src/backends/pgmq/install.js';
import { clonePgmq } from '../helpers/real-pgmq.js';

interface Target {
  readonly name: string;
  readonly url: () => Promise<string>;
  /** smq's compat schema (true) or a real pgmq (false). */
  readonly compat: boolean;
  /** The real release; null for the compat schema (at pgmq 1.13's API) and an unknown pgmq. */
  readonly release: string | null;
}

const targets: Target[] = [
  { name: 'smq compat schema', url: async () => inject('pgUrl'), compat: true, release: null },
  ...inject('pgmqInstalls').map((i) => ({
    name: i.label,
    url: () => clonePgmq(i.template, `conformance_${i.release.replaceAll('.', '_')}_${i.form}_${randomBytes(3).toString('hex')}`),
    compat: false,
    release: i.release,
  })),
];
const pgmqUrl = process.env['SMQ_TEST_PGMQ_URL'];
if (pgmqUrl) targets.push({ name: 'pgmq at SMQ_TEST_PGMQ_URL', url: async () => pgmqUrl, compat: false, release: null });

// Type OIDs as reported in node-postgres' field metadata.
const OID = {
  bool: 16,
  int8: 20,
  int4: 23,
  text: 25,
  varchar: 1043,
  timestamptz: 1184,
  jsonb: 3802,
} as const;

const MESSAGE_RECORD: ReadonlyArray<readonly [string, number]> = [
  ['msg_id', OID.int8],
  ['read_ct', OID.int4],
  ['enqueued_at', OID.timestamptz],
  ['last_read_at', OID.timestamptz],
  ['vt', OID.timestamptz],
  ['message', OID.jsonb],
  ['headers', OID.jsonb],
];

const METRICS_RESULT: ReadonlyArray<readonly [string, number]> = [
  ['queue_name', OID.text],
  ['queue_length', OID.int8],
  ['newest_msg_age_sec', OID.int4],
  ['oldest_msg_age_sec', OID.int4],
  ['total_messages', OID.int8],
  ['scrape_time', OID.timestamptz],
  ['queue_visible_length', OID.int8],
];

const QUEUE_RECORD: ReadonlyArray<readonly [string, number]> = [
  ['queue_name', OID.varchar],
  ['is_partitioned', OID.bool],
  ['is_unlogged', OID.bool],
  ['created_at', OID.timestamptz],
];

interface MessageRow {
  msg_id: string; // int8 arrives as text
  read_ct: number;
  enqueued_at: Date;
  last_read_at: Date | null;
  vt: Date;
  message: unknown;
  headers: unknown;
}

interface MetricsRow {
  queue_name: string;
  queue_length: string;
  newest_msg_age_sec: number | null;
  oldest_msg_age_sec: number | null;
  total_messages: string;
  scrape_time: Date;
  queue_visible_length: string;
}

const columns = (r: pg.QueryResult) => r.fields.map((f) => [f.name, f.dataTypeID] as const);
const ids = (rows: ReadonlyArray<{ msg_id: string }>) => rows.map((r) => BigInt(r.msg_id));

let counter = 0;
/** A queue name no other test (in this run or any other) uses. */
function uniqueName(prefix = 'cf'): string {
  counter += 1;
  return `${prefix}_${process.pid.toString(36)}_${Date.now().toString(36)}_${counter.toString(36)}`;
}

/** The server error of a query that must fail. */
async function failure(promise: Promise<unknown>): Promise<pg.DatabaseError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof pg.DatabaseError) return e;
    throw e;
  }
  throw new Error('expected the query to fail, but it succeeded');
}

/** Ids that occur more than once. */
function duplicates(all: readonly bigint[]): bigint[] {
  const seen = new Set<bigint>();
  const dup = new Set<bigint>();
  for (const id of all) (seen.has(id) ? dup : seen).add(id);
  return [...dup];
}

/** Resolves once `n` callers have arrived: lets several connections start a step together. */
function barrier(n: number): () => Promise<void> {
  let arrived = 0;
  let release!: () => void;
  const open = new Promise<void>((resolve) => (release = resolve));
  return () => {
    arrived += 1;
    if (arrived === n) release();
    return open;
  };
}

describe.each(targets)('pgmq conformance: $name', (target) => {
  let pool: pg.Pool;
  let url: string;
  const created: string[] = [];
  /** The target has what pgmq `version` brought. */
  const since = (version: string) => target.release === null || compareVersions(target.release, version) >= 0;
  /** message_record's columns on this target: headers came with pgmq 1.5, last_read_at with 1.10. */
  const messageRecord = () => MESSAGE_RECORD.filter(([n]) => (n !== 'headers' || since('1.5')) && (n !== 'last_read_at' || since('1.10')));
  /** metrics_result's columns up to queue_visible_length (1.5+); 1.13 appends one more. */
  const metricsResult = () => METRICS_RESULT.filter(([n]) => n !== 'queue_visible_length' || since('1.5'));
  const metricsColumns = (r: pg.QueryResult) => columns(r).slice(0, metricsResult().length);

  const query = <R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params: unknown[] = []) => pool.query<R>(sql, params);

  // pgmq returns the rows of read, pop, and the array forms of delete and archive in the
  // order its UPDATE/DELETE ... RETURNING yields them, which is no set order; smq's schema
  // returns them by msg_id. Row order is checked on the compat target only.
  const byId = <T extends { msg_id: string }>(rows: readonly T[]): T[] =>
    target.compat ? [...rows] : [...rows].sort((x, y) => (BigInt(x.msg_id) < BigInt(y.msg_id) ? -1 : 1));

  async function newQueue(prefix?: string): Promise<string> {
    const name = uniqueName(prefix);
    await query('SELECT pgmq.create($1)', [name]);
    created.push(name);
    return name;
  }

  const send = async (queue: string, msg: unknown = { n: 1 }) =>
    BigInt((await query<{ send: string }>('SELECT * FROM pgmq.send($1, $2::jsonb)', [queue, JSON.stringify(msg)])).rows[0]!.send);

  const read = async (queue: string, vt: number, qty: number) =>
    (await query<MessageRow>('SELECT * FROM pgmq.read($1, $2, $3)', [queue, vt, qty])).rows;

  const liveRow = async (queue: string, id: bigint) =>
    (
      await query<MessageRow & { seconds_left: number }>(
        `SELECT *, extract(epoch FROM vt - clock_timestamp())::float8 AS seconds_left
         FROM pgmq.${'q_' + queue.toLowerCase()} WHERE msg_id = $1`,
        [id],
      )
    ).rows[0];

  const tableCount = async () =>
    Number((await query<{ n: string }>("SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'pgmq'")).rows[0]!.n);
  const metaCount = async () => Number((await query<{ n: string }>('SELECT count(*) AS n FROM pgmq.meta')).rows[0]!.n);

  beforeAll(async () => {
    url = await target.url();
    pool = new pg.Pool({ connectionString: url, max: 8 });
    pool.on('error', () => {}); // an idle client's error must not kill the test process
  });

  afterAll(async () => {
    for (const name of created) await query('SELECT pgmq.drop_queue($1)', [name]).catch(() => {});
    await pool.end();
  });

  describe('queues', () => {
    test('create makes q_ and a_ tables with pgmq 1.10 columns and indexes, and is idempotent', async () => {
      const name = await newQueue();
      await query('SELECT pgmq.create($1)', [name]); // again: no error, nothing doubled
      const meta = await query('SELECT * FROM pgmq.meta WHERE queue_name = $1', [name]);
      expect(meta.rows).toHaveLength(1);

      const cols = async (table: string) =>
        (
          await query<{ column_name: string; data_type: string; is_identity: string; identity_generation: string | null }>(
            `SELECT column_name, data_type, is_identity, identity_generation
             FROM information_schema.columns WHERE table_schema = 'pgmq' AND table_name = $1
             ORDER BY ordinal_position`,
            [table],
          )
        ).rows;
      const live = await cols(`q_${name}`);
      expect(live.map((c) => [c.column_name, c.data_type])).toEqual(
        [
          ['msg_id', 'bigint'],
          ['read_ct', 'integer'],
          ['enqueued_at', 'timestamp with time zone'],
          ['last_read_at', 'timestamp with time zone'],
          ['vt', 'timestamp with time zone'],
          ['message', 'jsonb'],
          ['headers', 'jsonb'],
        ].filter(([n]) => (n !== 'headers' || since('1.5')) && (n !== 'last_read_at' || since('1.10'))),
      );
      expect(live[0]).toMatchObject({ is_identity: 'YES', identity_generation: 'ALWAYS' });

      const archive = await cols(`a_${name}`);
      expect(archive.map((c) => c.column_name).sort()).toEqual([...live.map((c) => c.column_name), 'archived_at'].sort());
      expect(archive.find((c) => c.column_name === 'archived_at')?.data_type).toBe('timestamp with time zone');

      const indexes = async (table: string) =>
        (
          await query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE schemaname = 'pgmq' AND tablename = $1", [table])
        ).rows.map((r) => r.indexdef);
      expect((await indexes(`q_${name}`)).some((d) => /\(vt\)/.test(d))).toBe(true);
      expect((await indexes(`a_${name}`)).some((d) => /\(archived_at\)/.test(d))).toBe(true);
    });

    test('meta keeps the name as given; tables are lower-cased; every function accepts the name as given', async () => {
      const name = uniqueName('CfMixed');
      await query('SELECT pgmq.create($1)', [name]);
      created.push(name);
      const tables = await query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [`pgmq.q_${name.toLowerCase()}`]);
      expect(tables.rows[0]!.t).not.toBeNull();
      const listed = await query<{ queue_name: string }>('SELECT queue_name FROM pgmq.list_queues() WHERE lower(queue_name) = lower($1)', [
        name,
      ]);
      expect(listed.rows.map((r) => r.queue_name)).toEqual([name]);
      const id = await send(name);
      expect(ids(await read(name, 30, 1))).toEqual([id]);
    });

    test('create_unlogged makes an unlogged live table and says so in list_queues', async () => {
      const name = uniqueName('cfu');
      await query('SELECT pgmq.create_unlogged($1)', [name]);
      created.push(name);
      const persistence = await query<{ relpersistence: string }>('SELECT relpersistence FROM pg_class WHERE oid = to_regclass($1)', [
        `pgmq.q_${name}`,
      ]);
      expect(persistence.rows[0]?.relpersistence).toBe('u');
      const row = (await query('SELECT * FROM pgmq.list_queues() WHERE queue_name = $1', [name])).rows[0];
      expect(row).toMatchObject({ queue_name: name, is_unlogged: true, is_partitioned: false });
    });

    // pgmq itself does not serialize this; smq's schema makes concurrent creates safe.
    test.runIf(target.compat)('concurrent create() calls of one queue all succeed and make one queue', async () => {
      const name = uniqueName();
      const clients = Array.from({ length: 6 }, () => new pg.Client({ connectionString: url }));
      await Promise.all(clients.map((c) => c.connect()));
      try {
        const start = barrier(clients.length);
        await Promise.all(
          clients.map(async (c) => {
            await start();
            await c.query('BEGIN');
            await c.query('SELECT pgmq.create($1)', [name]);
            await c.query('COMMIT');
          }),
        );
        created.push(name);
        expect((await query('SELECT 1 FROM pgmq.meta WHERE queue_name = $1', [name])).rowCount).toBe(1);
        expect(await read(name, 30, 1)).toEqual([]);
      } finally {
        await Promise.all(clients.map((c) => c.end()));
      }
    });

    test('list_queues returns pgmq.queue_record rows', async () => {
      const name = await newQueue();
      const r = await query('SELECT * FROM pgmq.list_queues()');
      expect(columns(r)).toEqual(QUEUE_RECORD);
      const row = r.rows.find((x) => x['queue_name'] === name);
      expect(row).toMatchObject({ queue_name: name, is_partitioned: false, is_unlogged: false });
      expect(row?.['created_at']).toBeInstanceOf(Date);
      const typed = await query<{ t: string }>('SELECT pg_typeof(q)::text AS t FROM pgmq.list_queues() AS q LIMIT 1');
      expect(typed.rows[0]!.t).toBe('pgmq.queue_record');
    });

    test('purge_queue deletes every message, returns the count and keeps the queue', async () => {
      const name = await newQueue();
      for (let i = 0; i < 4; i++) await send(name, { i });
      const r = await query('SELECT * FROM pgmq.purge_queue($1)', [name]);
      expect(columns(r)).toEqual([['purge_queue', OID.int8]]);
      expect(r.rows[0]!['purge_queue']).toBe('4');
      expect((await query(`SELECT * FROM pgmq.q_${name}`)).rowCount).toBe(0);
      expect((await query('SELECT 1 FROM pgmq.list_queues() WHERE queue_name = $1', [name])).rowCount).toBe(1);
      await send(name);
      expect(await read(name, 30, 10)).toHaveLength(1);
    });

    test('drop_queue removes both tables and the meta row; a second drop returns false', async () => {
      const name = uniqueName();
      await query('SELECT pgmq.create($1)', [name]);
      await send(name);
      const r = await query('SELECT pgmq.drop_queue($1)', [name]);
      expect(columns(r)).toEqual([['drop_queue', OID.bool]]);
      expect(r.rows[0]!['drop_queue']).toBe(true);
      const left = await query<{ q: string | null; a: string | null }>('SELECT to_regclass($1)::text AS q, to_regclass($2)::text AS a', [
        `pgmq.q_${name}`,
        `pgmq.a_${name}`,
      ]);
      expect(left.rows[0]).toEqual({ q: null, a: null });
      expect((await query('SELECT 1 FROM pgmq.meta WHERE queue_name = $1', [name])).rowCount).toBe(0);
      // pgmq 1.6+; before, a second drop fails (extension) or returns true (plain SQL 1.5.1).
      if (since('1.6')) expect((await query('SELECT pgmq.drop_queue($1) AS d', [name])).rows[0]!['d']).toBe(false);
    });
  });

  describe('sending and reading', () => {
    test('send returns the new id; read returns pgmq.message_record and claims the message', async () => {
      const name = await newQueue();
      const sent = await query('SELECT * FROM pgmq.send($1, $2::jsonb)', [name, '{"hello":"world","n":[1,2]}']);
      expect(columns(sent)).toEqual([['send', OID.int8]]);
      const id = BigInt(sent.rows[0]!['send'] as string);

      const r = await query<MessageRow & { db_now: Date }>('SELECT m.*, clock_timestamp() AS db_now FROM pgmq.read($1, 30, 1) AS m', [
        name,
      ]);
      expect(columns(r).slice(0, messageRecord().length)).toEqual(messageRecord());
      expect(r.rows).toHaveLength(1);
      const m = r.rows[0]!;
      expect(BigInt(m.msg_id)).toBe(id);
      expect(m.read_ct).toBe(1);
      expect(m.message).toEqual({ hello: 'world', n: [1, 2] });
      if (since('1.5')) expect(m.headers).toBeNull();
      if (since('1.10')) {
        expect(m.last_read_at).toBeInstanceOf(Date);
        expect(m.last_read_at!.getTime()).toBeGreaterThanOrEqual(m.enqueued_at.getTime());
      }
      // vt = the moment of the read + 30 s
      const secondsLeft = (m.vt.getTime() - m.db_now.getTime()) / 1000;
      expect(secondsLeft).toBeGreaterThan(28);
      expect(secondsLeft).toBeLessThanOrEqual(30);

      await send(name);
      const typed = await query<{ t: string }>('SELECT pg_typeof(m)::text AS t FROM pgmq.read($1, 0, 1) AS m', [name]);
      expect(typed.rows[0]?.t).toBe('pgmq.message_record');
    });

    test('a read message stays hidden until its vt passes; each read counts in read_ct', async () => {
      const name = await newQueue();
      const id = await send(name);
      expect(ids(await read(name, 30, 5))).toEqual([id]);
      expect(await read(name, 30, 5)).toEqual([]); // hidden for 30 s

      const other = await newQueue();
      const id2 = await send(other);
      const first = (await read(other, 0, 1))[0]!; // vt 0: visible again at once
      const second = (await read(other, 0, 1))[0]!;
      expect([first.read_ct, second.read_ct]).toEqual([1, 2]);
      expect(BigInt(second.msg_id)).toBe(id2);
      if (since('1.10')) expect(second.last_read_at!.getTime()).toBeGreaterThanOrEqual(first.last_read_at!.getTime());
      expect((await liveRow(other, id2))?.read_ct).toBe(2);

      // With vt 1 it comes back after about a second: poll for it rather than sleep.
      const third = await query<MessageRow>('SELECT * FROM pgmq.read($1, 1, 1)', [other]);
      expect(third.rows[0]?.read_ct).toBe(3);
      expect(await read(other, 1, 1)).toEqual([]);
      const started = Date.now();
      const back = await query<MessageRow>('SELECT * FROM pgmq.read_with_poll($1, 30, 1, 5, 50)', [other]);
      expect(back.rows[0]?.read_ct).toBe(4);
      expect(Date.now() - started).toBeGreaterThan(300);
    });

    test('read takes the oldest visible messages first, at most qty', async () => {
      const name = await newQueue();
      const sent: bigint[] = [];
      for (let i = 0; i < 5; i++) sent.push(await send(name, { i }));
      expect(ids(byId(await read(name, 30, 3)))).toEqual(sent.slice(0, 3));
      expect(ids(byId(await read(name, 30, 10)))).toEqual(sent.slice(3));
      expect(await read(name, 30, 10)).toEqual([]);
    });

    test.runIf(since('1.5'))('read with conditional returns only messages containing it', async () => {
      const name = await newQueue();
      await send(name, { kind: 'a', n: 1 });
      const b = await send(name, { kind: 'b', n: 2 });
      const r = await query<MessageRow>('SELECT * FROM pgmq.read($1, 30, 10, $2::jsonb)', [name, '{"kind":"b"}']);
      expect(ids(r.rows)).toEqual([b]);
      expect(await read(name, 30, 10)).toHaveLength(1); // the 'a' message was left alone
    });

    test('send with an integer delay hides the message for that many seconds', async () => {
      const name = await newQueue();
      const id = BigInt(
        (await query<{ send: string }>('SELECT * FROM pgmq.send($1, $2::jsonb, $3::integer)', [name, '{}', 30])).rows[0]!.send,
      );
      expect(await read(name, 30, 10)).toEqual([]);
      const row = await liveRow(name, id);
      expect(row?.seconds_left).toBeGreaterThan(28);
      expect(row?.seconds_left).toBeLessThanOrEqual(30);
      expect(row?.read_ct).toBe(0);
      if (since('1.10')) expect(row?.last_read_at).toBeNull();
    });

    test.runIf(since('1.5'))('send with a timestamp delay makes the message visible at that time', async () => {
      const name = await newQueue();
      const at = new Date('2100-01-02T03:04:05.678Z');
      const later = BigInt(
        (await query<{ send: string }>('SELECT * FROM pgmq.send($1, $2::jsonb, $3::timestamptz)', [name, '{}', at])).rows[0]!.send,
      );
      expect((await liveRow(name, later))?.vt.getTime()).toBe(at.getTime());
      const past = BigInt(
        (
          await query<{ send: string }>('SELECT * FROM pgmq.send($1, $2::jsonb, $3::timestamptz)', [
            name,
            '{}',
            new Date(Date.now() - 60_000),
          ])
        ).rows[0]!.send,
      );
      expect(ids(await read(name, 30, 10))).toEqual([past]);
    });

    test.runIf(since('1.5'))('send with headers stores them; headers with a delay do both', async () => {
      const name = await newQueue();
      const h = { trace_id: 'abc', n: 1 };
      await query('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb)', [name, '{"a":1}', JSON.stringify(h)]);
      const delayed = BigInt(
        (
          await query<{ send: string }>('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb, $4::integer)', [
            name,
            '{"a":2}',
            '{"x":"y"}',
            60,
          ])
        ).rows[0]!.send,
      );
      const at = new Date('2100-01-01T00:00:00Z');
      const stamped = BigInt(
        (
          await query<{ send: string }>('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb, $4::timestamptz)', [
            name,
            '{"a":3}',
            '{"z":1}',
            at,
          ])
        ).rows[0]!.send,
      );
      const got = await read(name, 30, 10);
      expect(got.map((m) => [m.message, m.headers])).toEqual([[{ a: 1 }, h]]);
      expect((await liveRow(name, delayed))?.headers).toEqual({ x: 'y' });
      expect((await liveRow(name, delayed))?.seconds_left).toBeGreaterThan(58);
      expect((await liveRow(name, stamped))?.vt.getTime()).toBe(at.getTime());
    });

    test('send_batch returns the ids in message order', async () => {
      const name = await newQueue();
      const msgs = Array.from({ length: 6 }, (_, i) => JSON.stringify({ i }));
      const r = await query<{ send_batch: string }>('SELECT * FROM pgmq.send_batch($1, $2::jsonb[])', [name, msgs]);
      expect(columns(r)).toEqual([['send_batch', OID.int8]]);
      const batch = ids(r.rows.map((x) => ({ msg_id: x.send_batch })));
      expect(batch).toHaveLength(6);
      expect([...batch].sort((a, b) => (a < b ? -1 : 1))).toEqual(batch); // ascending
      const got = byId(await read(name, 30, 10));
      expect(got.map((m) => [BigInt(m.msg_id), m.message])).toEqual(batch.map((id, i) => [id, { i }]));
    });

    test.runIf(since('1.5'))('send_batch with headers, with a delay, and with both', async () => {
      const name = await newQueue();
      const withHeaders = await query<{ send_batch: string }>('SELECT * FROM pgmq.send_batch($1, $2::jsonb[], $3::jsonb[])', [
        name,
        ['{"m":1}', '{"m":2}'],
        ['{"h":1}', '{"h":2}'],
      ]);
      expect(withHeaders.rows).toHaveLength(2);
      const got = byId(await read(name, 30, 10));
      expect(got.map((m) => [m.message, m.headers])).toEqual([
        [{ m: 1 }, { h: 1 }],
        [{ m: 2 }, { h: 2 }],
      ]);

      const delayed = await query<{ send_batch: string }>('SELECT * FROM pgmq.send_batch($1, $2::jsonb[], $3::integer)', [
        name,
        ['{"d":1}', '{"d":2}'],
        60,
      ]);
      const both = await query<{ send_batch: string }>('SELECT * FROM pgmq.send_batch($1, $2::jsonb[], $3::jsonb[], $4::integer)', [
        name,
        ['{"d":3}'],
        ['{"h":3}'],
        60,
      ]);
      const at = new Date('2100-06-01T00:00:00Z');
      const stamped = await query<{ send_batch: string }>('SELECT * FROM pgmq.send_batch($1, $2::jsonb[], $3::timestamptz)', [
        name,
        ['{"d":4}'],
        at,
      ]);
      expect(await read(name, 30, 10)).toEqual([]);
      for (const row of [...delayed.rows, ...both.rows]) {
        expect((await liveRow(name, BigInt(row.send_batch)))?.seconds_left).toBeGreaterThan(58);
      }
      expect((await liveRow(name, BigInt(both.rows[0]!.send_batch)))?.headers).toEqual({ h: 3 });
      expect((await liveRow(name, BigInt(stamped.rows[0]!.send_batch)))?.vt.getTime()).toBe(at.getTime());
    });

    // pgmq checks this from 1.11 on; smq's schema always does.
    test.runIf(since('1.11'))('send_batch rejects a headers array of another length, sending nothing', async () => {
      const name = await newQueue();
      const e = await failure(query('SELECT * FROM pgmq.send_batch($1, $2::jsonb[], $3::jsonb[])', [name, ['{}', '{}'], ['{}']]));
      expect(e.code).toBe('P0001');
      expect((await query(`SELECT 1 FROM pgmq.q_${name}`)).rowCount).toBe(0);
    });

    test('pop returns the oldest visible messages and deletes them', async () => {
      const name = await newQueue();
      const sent: bigint[] = [];
      for (let i = 0; i < 4; i++) sent.push(await send(name, { i }));
      await read(name, 60, 1); // sent[0] is now in flight: pop must skip it
      const one = await query<MessageRow>('SELECT * FROM pgmq.pop($1)', [name]);
      expect(columns(one)).toEqual(messageRecord());
      expect(ids(one.rows)).toEqual([sent[1]]);
      expect(await liveRow(name, sent[1]!)).toBeUndefined();
      // pop(queue, qty): pgmq 1.13; before, pop takes one message.
      const rest = since('1.13')
        ? await query<MessageRow>('SELECT * FROM pgmq.pop($1, 10)', [name])
        : {
            rows: [
              ...(await query<MessageRow>('SELECT * FROM pgmq.pop($1)', [name])).rows,
              ...(await query<MessageRow>('SELECT * FROM pgmq.pop($1)', [name])).rows,
            ],
          };
      expect(ids(byId(rest.rows))).toEqual(sent.slice(2));
      expect((await query('SELECT * FROM pgmq.pop($1)', [name])).rowCount).toBe(0);
      expect(await liveRow(name, sent[0]!)).toBeDefined();
    });

    test('read_with_poll returns as soon as a message arrives', async () => {
      const name = await newQueue();
      const poller = new pg.Client({ connectionString: url });
      await poller.connect();
      try {
        const pid = (await poller.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        const started = Date.now();
        const polling = poller.query<MessageRow>('SELECT * FROM pgmq.read_with_poll($1, 30, 5, 20, 50)', [name]);
        polling.catch(() => {}); // awaited below; a failure must not surface as unhandled first
        // Wait until the poller is really inside its sleep loop, then send. (pgmq 1.4.4's loop
        // is never seen in PgSleep: there, a second of being active is taken as polling.)
        for (;;) {
          const s = await query<{ wait_event: string | null; state: string | null }>(
            'SELECT wait_event, state FROM pg_stat_activity WHERE pid = $1',
            [pid],
          );
          if (s.rows[0]?.wait_event === 'PgSleep') break;
          if (!since('1.5') && s.rows[0]?.state === 'active' && Date.now() - started > 1_000) break;
          if (Date.now() - started > 10_000) throw new Error('the poller never started polling');
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        const sentAt = Date.now();
        const id = await send(name, { late: true });
        const got = await polling;
        expect(ids(got.rows)).toEqual([id]);
        expect(got.rows[0]?.message).toEqual({ late: true });
        expect(Date.now() - sentAt).toBeLessThan(5_000); // far less than max_poll_seconds (20)
      } finally {
        await poller.end();
      }
    });

    test('read_with_poll gives up after max_poll_seconds on an empty queue', async () => {
      const name = await newQueue();
      const started = Date.now();
      const r = await query('SELECT * FROM pgmq.read_with_poll($1, 30, 1, 1, 50)', [name]);
      const elapsed = Date.now() - started;
      expect(columns(r)).toEqual(messageRecord());
      expect(r.rowCount).toBe(0);
      expect(elapsed).toBeGreaterThanOrEqual(900);
      expect(elapsed).toBeLessThan(4_000);
    });
  });

  describe('deleting, archiving, visibility', () => {
    test('delete: one id returns a boolean, an array returns the ids deleted', async () => {
      const name = await newQueue();
      const [a, b, c] = [await send(name), await send(name), await send(name)];
      const one = await query('SELECT pgmq.delete($1, $2::bigint)', [name, a]);
      expect(columns(one)).toEqual([['delete', OID.bool]]);
      expect(one.rows[0]!['delete']).toBe(true);
      expect((await query('SELECT pgmq.delete($1, $2::bigint) AS d', [name, a])).rows[0]!['d']).toBe(false);
      const many = await query<{ delete: string }>('SELECT * FROM pgmq.delete($1, $2::bigint[])', [name, [b, c, 999_999_999n]]);
      expect(columns(many)).toEqual([['delete', OID.int8]]);
      expect(ids(byId(many.rows.map((r) => ({ msg_id: r.delete }))))).toEqual([b, c]);
      expect((await query(`SELECT 1 FROM pgmq.q_${name}`)).rowCount).toBe(0);
    });

    test.runIf(since('1.5'))('archive moves the row to a_ with archived_at; single and array forms', async () => {
      const name = await newQueue();
      const a = BigInt(
        (await query<{ send: string }>('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb)', [name, '{"a":1}', '{"h":"x"}'])).rows[0]!.send,
      );
      await read(name, 0, 1); // read_ct 1, last_read_at set: both must travel to the archive
      const b = await send(name, { b: 2 });
      const c = await send(name, { c: 3 });

      const one = await query('SELECT pgmq.archive($1, $2::bigint)', [name, a]);
      expect(columns(one)).toEqual([['archive', OID.bool]]);
      expect(one.rows[0]!['archive']).toBe(true);
      expect(await liveRow(name, a)).toBeUndefined();
      const archived = await query<MessageRow & { archived_at: Date }>(`SELECT * FROM pgmq.a_${name} WHERE msg_id = $1`, [a]);
      expect(archived.rows).toHaveLength(1);
      const row = archived.rows[0]!;
      expect(row).toMatchObject({ read_ct: 1, message: { a: 1 }, headers: { h: 'x' } });
      if (since('1.10')) expect(row.last_read_at).toBeInstanceOf(Date);
      expect(row.archived_at).toBeInstanceOf(Date);
      expect(row.archived_at.getTime()).toBeGreaterThanOrEqual(row.enqueued_at.getTime());

      expect((await query('SELECT pgmq.archive($1, $2::bigint) AS x', [name, a])).rows[0]!['x']).toBe(false);

      const many = await query<{ archive: string }>('SELECT * FROM pgmq.archive($1, $2::bigint[])', [name, [b, c, 999_999_999n]]);
      expect(columns(many)).toEqual([['archive', OID.int8]]);
      expect(ids(byId(many.rows.map((r) => ({ msg_id: r.archive }))))).toEqual([b, c]);
      expect((await query(`SELECT 1 FROM pgmq.q_${name}`)).rowCount).toBe(0);
      expect((await query(`SELECT 1 FROM pgmq.a_${name}`)).rowCount).toBe(3);
    });

    test('set_vt sets the visibility and returns the message; array form too', async () => {
      const name = await newQueue();
      const a = await send(name, { a: 1 });
      const b = await send(name, { b: 2 });
      // Newer pgmq (1.11.3 was checked) also has timestamptz forms: an untyped vt is ambiguous there.
      const r = await query<MessageRow & { db_now: Date }>(
        'SELECT m.*, clock_timestamp() AS db_now FROM pgmq.set_vt($1, $2::bigint, $3::integer) AS m',
        [name, a, 60],
      );
      expect(columns(r).slice(0, messageRecord().length)).toEqual(messageRecord());
      expect(ids(r.rows)).toEqual([a]);
      expect(r.rows[0]!.message).toEqual({ a: 1 });
      expect(r.rows[0]!.read_ct).toBe(0); // set_vt is not a read
      const left = (r.rows[0]!.vt.getTime() - r.rows[0]!.db_now.getTime()) / 1000;
      expect(left).toBeGreaterThan(58);
      expect(left).toBeLessThanOrEqual(60);
      expect(ids(await read(name, 30, 10))).toEqual([b]);

      expect(ids((await query<MessageRow>('SELECT * FROM pgmq.set_vt($1, $2::bigint, 0)', [name, a])).rows)).toEqual([a]);
      expect(ids(await read(name, 30, 10))).toEqual([a]);

      expect((await query('SELECT * FROM pgmq.set_vt($1, $2::bigint, 0)', [name, 999_999_999n])).rowCount).toBe(0);
      if (!since('1.10')) return; // the array form (and so the ambiguity below) came with pgmq 1.10
      const both = await query<MessageRow>('SELECT * FROM pgmq.set_vt($1, $2::bigint[], 0)', [name, [a, b, 999_999_999n]]);
      expect(columns(both).slice(0, messageRecord().length)).toEqual(messageRecord());
      expect(ids(byId(both.rows))).toEqual([a, b]);
      expect(ids(byId(await read(name, 30, 10)))).toEqual([a, b]);

      // pgmq has set_vt for one id and for an array of ids, so an untyped id matches both
      // (this is why pgmq-js's untyped setVt call fails on pgmq).
      const e = await failure(query('SELECT * FROM pgmq.set_vt($1, $2, $3::integer)', [name, String(a), 0]));
      expect(e.code).toBe('42725'); // ambiguous_function
    });
  });

  describe('metrics', () => {
    test('metrics returns pgmq.metrics_result with exact counts', async () => {
      const name = await newQueue();
      const empty = await query<MetricsRow>('SELECT * FROM pgmq.metrics($1)', [name]);
      expect(metricsColumns(empty)).toEqual(metricsResult());
      expect(empty.rows[0]).toMatchObject({
        queue_name: name,
        queue_length: '0',
        newest_msg_age_sec: null,
        oldest_msg_age_sec: null,
        total_messages: '0',
        ...(since('1.5') ? { queue_visible_length: '0' } : {}),
      });

      const first = await send(name);
      await send(name);
      await send(name);
      await query('SELECT * FROM pgmq.send($1, $2::jsonb, $3::integer)', [name, '{}', 60]); // delayed
      await read(name, 60, 1); // one in flight
      await query('SELECT pgmq.delete($1, $2::bigint)', [name, first]); // the in-flight one goes
      await read(name, 60, 1); // another in flight

      const m = (await query<MetricsRow>('SELECT * FROM pgmq.metrics($1)', [name])).rows[0]!;
      expect(m.queue_name).toBe(name);
      expect(m.queue_length).toBe('3'); // 4 sent, 1 deleted
      if (since('1.5')) expect(m.queue_visible_length).toBe('1'); // minus one in flight, one delayed
      expect(m.total_messages).toBe('4'); // counts every message ever sent
      expect(m.newest_msg_age_sec).toBeGreaterThanOrEqual(0);
      expect(m.oldest_msg_age_sec).toBeGreaterThanOrEqual(m.newest_msg_age_sec!);
      expect(m.scrape_time).toBeInstanceOf(Date);
      const typed = await query<{ t: string }>('SELECT pg_typeof(pgmq.metrics($1))::text AS t', [name]);
      expect(typed.rows[0]!.t).toBe('pgmq.metrics_result');
    });

    test('metrics_all has one row per queue with the same columns', async () => {
      const a = await newQueue();
      const b = await newQueue();
      await send(a);
      await send(b);
      await send(b);
      const r = await query<MetricsRow>('SELECT * FROM pgmq.metrics_all()');
      expect(metricsColumns(r)).toEqual(metricsResult());
      const byName = new Map(r.rows.map((x) => [x.queue_name, x]));
      expect(byName.get(a)?.queue_length).toBe('1');
      expect(byName.get(b)?.queue_length).toBe('2');
      expect(r.rows.filter((x) => x.queue_name === a)).toHaveLength(1);
    });
  });

  describe('the API surface', () => {
    // The argument names of pgmq 1.13 (headers and conditional since 1.5, pop's qty since 1.13).
    test.runIf(since('1.13'))("functions take pgmq's argument names", async () => {
      const name = uniqueName();
      await query('SELECT pgmq.create(queue_name => $1)', [name]);
      created.push(name);
      const id = BigInt(
        (
          await query<{ send: string }>(
            'SELECT * FROM pgmq.send(queue_name => $1, msg => $2::jsonb, headers => $3::jsonb, delay => $4::integer)',
            [name, '{}', '{}', 0],
          )
        ).rows[0]!.send,
      );
      await query('SELECT * FROM pgmq.send_batch(queue_name => $1, msgs => $2::jsonb[], headers => $3::jsonb[], delay => $4::integer)', [
        name,
        ['{}'],
        ['{}'],
        0,
      ]);
      await query('SELECT * FROM pgmq.read(queue_name => $1, vt => 0, qty => 1, conditional => $2::jsonb)', [name, '{}']);
      await query(
        'SELECT * FROM pgmq.read_with_poll(queue_name => $1, vt => 0, qty => 1, max_poll_seconds => 1, poll_interval_ms => 10, conditional => $2::jsonb)',
        [name, '{}'],
      );
      await query('SELECT * FROM pgmq.set_vt(queue_name => $1, msg_id => $2::bigint, vt => 0)', [name, id]);
      await query('SELECT * FROM pgmq.pop(queue_name => $1, qty => 1)', [name]);
      await query('SELECT pgmq.delete(queue_name => $1, msg_id => $2::bigint)', [name, id]);
      await query('SELECT * FROM pgmq.delete(queue_name => $1, msg_ids => $2::bigint[])', [name, [id]]);
      await query('SELECT pgmq.archive(queue_name => $1, msg_id => $2::bigint)', [name, id]);
      await query('SELECT * FROM pgmq.archive(queue_name => $1, msg_ids => $2::bigint[])', [name, [id]]);
      await query('SELECT * FROM pgmq.metrics(queue_name => $1)', [name]);
      await query('SELECT * FROM pgmq.purge_queue(queue_name => $1)', [name]);
      expect((await query('SELECT pgmq.drop_queue(queue_name => $1) AS d', [name])).rows[0]!['d']).toBe(true);
      const unlogged = uniqueName();
      await query('SELECT pgmq.create_unlogged(queue_name => $1)', [unlogged]);
      created.push(unlogged);
    });
  });

  describe('bad input', () => {
    const rejected: ReadonlyArray<readonly [string, string]> = [
      ['a semicolon (SQL injection)', 'x; drop table y'],
      ['a quote', "it's"],
      ['a dollar sign', 'a$b'],
      ['a double dash (SQL comment)', 'a--b'],
      ['48 characters', 'n'.repeat(48)],
    ];

    test.each(rejected)('a queue name with %s is rejected and nothing changes', async (_why, name) => {
      const [tables, meta] = [await tableCount(), await metaCount()];
      const e = await failure(query('SELECT pgmq.create($1)', [name]));
      if (target.compat) {
        expect(e.code).toBe('P0001');
        expect(e.message).toMatch(/^invalid queue name/);
      }
      await failure(query('SELECT * FROM pgmq.send($1, $2::jsonb)', [name, '{}']));
      expect([await tableCount(), await metaCount()]).toEqual([tables, meta]);
    });

    test.runIf(target.compat)('an empty queue name is rejected (smq is stricter than pgmq here)', async () => {
      const [tables, meta] = [await tableCount(), await metaCount()];
      const e = await failure(query("SELECT pgmq.create('')"));
      expect(e.code).toBe('P0001');
      expect([await tableCount(), await metaCount()]).toEqual([tables, meta]);
    });

    test('a queue name of 47 characters is accepted', async () => {
      const name = uniqueName('l').padEnd(47, 'x');
      expect(name).toHaveLength(47);
      await query('SELECT pgmq.create($1)', [name]);
      created.push(name);
      const id = await send(name);
      expect(ids(await read(name, 30, 1))).toEqual([id]);
      await query('SELECT pgmq.archive($1, $2::bigint)', [name, id]);
      expect((await query(`SELECT 1 FROM pgmq.a_${name}`)).rowCount).toBe(1);
    });

    test('operations on a missing queue fail with undefined_table (42P01); drop_queue returns false', async () => {
      const name = uniqueName('missing');
      const calls: ReadonlyArray<readonly [string, unknown[]]> = [
        ['SELECT * FROM pgmq.send($1, $2::jsonb)', [name, '{}']],
        ['SELECT * FROM pgmq.send_batch($1, $2::jsonb[])', [name, ['{}']]],
        ['SELECT * FROM pgmq.read($1, 30, 1)', [name]],
        ['SELECT * FROM pgmq.read_with_poll($1, 30, 1, 1, 10)', [name]],
        ['SELECT * FROM pgmq.pop($1)', [name]],
        ['SELECT pgmq.delete($1, 1::bigint)', [name]],
        ['SELECT * FROM pgmq.delete($1, ARRAY[1]::bigint[])', [name]],
        ['SELECT pgmq.archive($1, 1::bigint)', [name]],
        ['SELECT * FROM pgmq.archive($1, ARRAY[1]::bigint[])', [name]],
        ['SELECT * FROM pgmq.set_vt($1, 1::bigint, 0)', [name]],
        ['SELECT * FROM pgmq.purge_queue($1)', [name]],
        ['SELECT * FROM pgmq.metrics($1)', [name]],
      ];
      for (const [sql, params] of calls) {
        const e = await failure(query(sql, params));
        expect({ sql, code: e.code }).toEqual({ sql, code: '42P01' });
        if (target.compat) expect(e.message).toBe(`queue "${name}" does not exist`);
      }
      if (since('1.6')) expect((await query('SELECT pgmq.drop_queue($1) AS d', [name])).rows[0]!['d']).toBe(false);
    });
  });

  describe('concurrency', () => {
    const READERS = 10;
    const MESSAGES = 300;

    async function connectReaders(): Promise<pg.Client[]> {
      const clients = Array.from({ length: READERS }, () => new pg.Client({ connectionString: url }));
      await Promise.all(clients.map((c) => c.connect()));
      return clients;
    }

    async function fill(name: string) {
      const msgs = Array.from({ length: MESSAGES }, (_, i) => JSON.stringify({ i }));
      await query('SELECT * FROM pgmq.send_batch($1, $2::jsonb[])', [name, msgs]);
    }

    test('concurrent read() calls on one queue never hand out the same message twice', async () => {
      const name = await newQueue();
      await fill(name);
      const clients = await connectReaders();
      try {
        const start = barrier(READERS);
        const perReader = await Promise.all(
          clients.map(async (c) => {
            const got: bigint[] = [];
            await start(); // every reader begins at the same moment
            for (;;) {
              const r = await c.query<MessageRow>('SELECT * FROM pgmq.read($1, 300, 3)', [name]);
              if (r.rowCount === 0) break;
              got.push(...ids(r.rows));
            }
            return got;
          }),
        );
        const all = perReader.flat();
        expect(duplicates(all)).toEqual([]);
        expect(new Set(all).size).toBe(MESSAGES);
        // A double claim would also show as read_ct 2.
        const counts = await query<{ read_ct: number; n: string }>(`SELECT read_ct, count(*) AS n FROM pgmq.q_${name} GROUP BY read_ct`);
        expect(counts.rows.map((r) => [r.read_ct, Number(r.n)])).toEqual([[1, MESSAGES]]);
        // More than one reader got work, so the readers really overlapped.
        expect(perReader.filter((g) => g.length > 0).length).toBeGreaterThan(1);
      } finally {
        await Promise.all(clients.map((c) => c.end()));
      }
    });

    // The check above must be able to fail: a select-then-update claim (no row locks, two
    // statements under READ COMMITTED) hands the same messages to every reader.
    test('the duplicate check catches a racy select-then-update claim', async () => {
      const name = await newQueue();
      await fill(name);
      const clients = await connectReaders();
      try {
        const selected = barrier(READERS);
        const perReader = await Promise.all(
          clients.map(async (c) => {
            const candidates = await c.query<{ msg_id: string }>(
              `SELECT msg_id FROM pgmq.q_${name} WHERE vt <= clock_timestamp() ORDER BY msg_id LIMIT 3`,
            );
            await selected(); // everyone has chosen before anyone claims
            const claimed = await c.query<{ msg_id: string }>(
              `UPDATE pgmq.q_${name} SET vt = clock_timestamp() + interval '300 seconds', read_ct = read_ct + 1
               WHERE msg_id = ANY($1::bigint[]) RETURNING msg_id`,
              [ids(candidates.rows)],
            );
            return ids(claimed.rows);
          }),
        );
        expect(duplicates(perReader.flat()).length).toBeGreaterThan(0);
      } finally {
        await Promise.all(clients.map((c) => c.end()));
      }
    });
  });
});
