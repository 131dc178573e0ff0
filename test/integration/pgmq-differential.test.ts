// The differential test: the same pgmq calls against real pgmq 1.13.0 (installed from its
// own script, ../shared/pgmq) and against smq's compat schema, each on a database of its own,
// in lockstep. Compared: the API's signatures (argument names, types, defaults, result
// columns), composite types and tables; then for every call its result columns and types,
// its rows (times relative to the call, within a tolerance; ids are equal because both sides
// make the same queues and sends in the same order) and whether it fails, with which SQLSTATE.
// The compat schema is written from pgmq's documentation; this test is what shows it matches.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { initPgmq } from '../../src/backends/pgmq/install.js';
import { same, sameCatalog, Side } from '../helpers/differential.js';
import { clonePgmq, createDatabase, NO_RELEASES } from '../helpers/real-pgmq.js';

const oracle = inject('pgmqInstalls').find((i) => i.release === '1.13.0' && i.form === 'sql');
const title = 'pgmq differential: compat schema vs real pgmq 1.13.0';

/**
 * pgmq's own helpers and what smq does not emulate, each with the reason. Everything else
 * in real pgmq's schema must exist in the compat schema with the same signature.
 */
const NOT_EMULATED: Record<string, string> = {
  _belongs_to_pgmq: "pgmq's internal helper (extension membership)",
  _create_fifo_index_if_not_exists: "pgmq's internal helper; create_fifo_index is emulated",
  _ensure_pg_partman_installed: 'partitioned queues (pg_partman) are not emulated',
  _extension_exists: "pgmq's internal helper",
  _get_partition_col: 'partitioned queues (pg_partman) are not emulated',
  _get_pg_partman_major_version: 'partitioned queues (pg_partman) are not emulated',
  _get_pg_partman_schema: 'partitioned queues (pg_partman) are not emulated',
  _send_batch: "pgmq's internal helper; send_batch is emulated",
  _validate_batch_params: "pgmq's internal helper; send_batch checks the same",
  acquire_queue_lock: "pgmq's internal helper; smq's schema locks queue DDL its own way",
  convert_archive_partitioned: 'partitioned archives (pg_partman) are not emulated',
  format_table_name: "pgmq's internal helper (table names)",
  notify_queue_listeners: "pgmq's trigger function; smq's is _smq_notify_insert",
  validate_queue_name: "pgmq's internal helper; smq checks names in _smq_check_queue_name",
};

describe.skipIf(!oracle)(oracle ? title : `${title} (${NO_RELEASES})`, () => {
  let real: Side;
  let compat: Side;
  const tag = randomBytes(3).toString('hex');

  beforeAll(async () => {
    const realUrl = await clonePgmq(oracle!.template, `diff_real_${tag}`);
    const compatUrl = await createDatabase(oracle!.template, `diff_compat_${tag}`);
    const [a, b] = [new pg.Client({ connectionString: realUrl }), new pg.Client({ connectionString: compatUrl })];
    await Promise.all([a.connect(), b.connect()]);
    expect((await initPgmq(b)).mode).toBe('compat-installed');
    real = new Side('real pgmq 1.13.0', realUrl, a);
    compat = new Side('compat schema', compatUrl, b);
  });
  afterAll(async () => {
    await real?.client.end();
    await compat?.client.end();
  });

  const both = (sql: string, params: unknown[] = [], ordered = false) => same(real, compat, sql, params, { ordered });
  const oneRow = async (sql: string, params: unknown[] = []) => (await both(sql, params)).rows[0] as unknown[];
  /** A queue made on both sides. */
  const queue = async (name: string) => {
    await both('SELECT pgmq.create($1)', [name]);
    return name;
  };

  describe('the API surface', () => {
    test('every function of real pgmq has the same signatures in the compat schema', async () => {
      const names = (
        await real.client.query<{ proname: string }>(
          "SELECT DISTINCT proname FROM pg_proc WHERE pronamespace = 'pgmq'::regnamespace ORDER BY 1",
        )
      ).rows
        .map((r) => r.proname)
        .filter((n) => !(n in NOT_EMULATED));
      await sameCatalog(
        real,
        compat,
        `SELECT p.proname, pg_get_function_arguments(p.oid) AS args, pg_get_function_result(p.oid) AS result
         FROM pg_proc p WHERE p.pronamespace = 'pgmq'::regnamespace AND p.proname = ANY($1)`,
        [names],
      );
    });

    test("the compat schema has no public function real pgmq lacks (smq's own start with _smq_)", async () => {
      const realNames = new Set(
        (await real.client.query<{ proname: string }>("SELECT proname FROM pg_proc WHERE pronamespace = 'pgmq'::regnamespace")).rows.map(
          (r) => r.proname,
        ),
      );
      const extra = (
        await compat.client.query<{ proname: string }>(
          "SELECT DISTINCT proname FROM pg_proc WHERE pronamespace = 'pgmq'::regnamespace AND proname NOT LIKE '\\_smq\\_%' ORDER BY 1",
        )
      ).rows
        .map((r) => r.proname)
        .filter((n) => !realNames.has(n));
      expect(extra).toEqual([]);
    });

    test('composite types have the same attributes in the same order', async () => {
      await sameCatalog(
        real,
        compat,
        `SELECT t.typname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) AS type
         FROM pg_type t JOIN pg_class c ON c.oid = t.typrelid AND c.relkind = 'c'
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
         WHERE t.typnamespace = 'pgmq'::regnamespace`,
      );
    });

    test("pgmq's own tables have the same columns", async () => {
      await sameCatalog(
        real,
        compat,
        `SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull
         FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
         WHERE c.relnamespace = 'pgmq'::regnamespace AND c.relkind IN ('r', 'p')
           AND c.relname !~ '^[qa]_' AND c.relname <> 'smq_compat'`,
      );
    });

    test("a queue's tables have the same columns (last_read_at since 1.10), in the same order", async () => {
      const q = await queue('d_tables');
      await sameCatalog(
        real,
        compat,
        `SELECT c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull
         FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
         WHERE c.relnamespace = 'pgmq'::regnamespace AND c.relname IN ($1, $2)`,
        [`q_${q}`, `a_${q}`],
      );
    });
  });

  describe('queues, sending, reading (the API before 1.13)', () => {
    test('create, list_queues, metrics, purge, drop', async () => {
      const q = await queue('d_admin');
      await both('SELECT pgmq.create($1)', [q]);
      await both('SELECT pgmq.create_unlogged($1)', ['d_admin_unlogged']);
      await both(
        "SELECT queue_name, is_partitioned, is_unlogged, created_at FROM pgmq.list_queues() WHERE queue_name LIKE 'd\\_admin%' ORDER BY 1",
      );
      await both('SELECT * FROM pgmq.send($1, $2::jsonb)', [q, '{"a":1}']);
      await both('SELECT * FROM pgmq.send($1, $2::jsonb, $3::integer)', [q, '{"a":2}', 60]);
      await both('SELECT * FROM pgmq.read($1, 30, 1)', [q]);
      await both('SELECT * FROM pgmq.metrics($1)', [q]);
      await both('SELECT * FROM pgmq.metrics_all() WHERE queue_name = $1', [q]);
      await both('SELECT * FROM pgmq.purge_queue($1)', [q]);
      await both('SELECT pgmq.drop_queue($1)', [q]);
      await both('SELECT pgmq.drop_queue($1)', [q]);
      await both('SELECT pgmq.drop_queue($1)', ['d_admin_unlogged']);
    });

    test('send and send_batch, every overload', async () => {
      const q = await queue('d_send');
      const future = new Date(Date.now() + 3_600_000);
      await both('SELECT * FROM pgmq.send($1, $2::jsonb)', [q, '{"n":1}']);
      await both('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb)', [q, '{"n":2}', '{"h":"x"}']);
      await both('SELECT * FROM pgmq.send($1, $2::jsonb, $3::integer)', [q, '{"n":3}', 5]);
      await both('SELECT * FROM pgmq.send($1, $2::jsonb, $3::timestamptz)', [q, '{"n":4}', future]);
      await both('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb, $4::integer)', [q, '{"n":5}', '{"h":5}', 0]);
      await both('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb, $4::timestamptz)', [q, '{"n":6}', '{"h":6}', future]);
      await both('SELECT * FROM pgmq.send_batch($1, $2::jsonb[])', [q, ['{"b":1}', '{"b":2}']]);
      await both('SELECT * FROM pgmq.send_batch($1, $2::jsonb[], $3::jsonb[])', [q, ['{"b":3}'], ['{"h":3}']]);
      await both('SELECT * FROM pgmq.send_batch($1, $2::jsonb[], $3::integer)', [q, ['{"b":4}'], 10]);
      await both('SELECT * FROM pgmq.send_batch($1, $2::jsonb[], $3::timestamptz)', [q, ['{"b":5}'], future]);
      await both('SELECT * FROM pgmq.send_batch($1, $2::jsonb[], $3::jsonb[], $4::integer)', [q, ['{"b":6}'], ['{"h":6}'], 0]);
      await both('SELECT * FROM pgmq.send_batch($1, $2::jsonb[], $3::jsonb[], $4::timestamptz)', [q, ['{"b":7}'], ['{"h":7}'], future]);
      await both('SELECT * FROM pgmq.send_batch($1, $2::jsonb[], $3::jsonb[])', [q, ['{"b":8}', '{"b":9}'], ['{}']]);
      await both(`SELECT msg_id, read_ct, enqueued_at, last_read_at, vt, message, headers FROM pgmq.q_${q}`);
    });

    test('read, conditional read, read_with_poll, pop', async () => {
      const q = await queue('d_read');
      await both('SELECT * FROM pgmq.send_batch($1, $2::jsonb[])', [q, ['{"k":"a"}', '{"k":"b"}', '{"k":"a"}', '{"k":"c"}', '{"k":"d"}']]);
      await both('SELECT * FROM pgmq.read($1, 30, 1)', [q]);
      await both('SELECT * FROM pgmq.read($1, 30, 2, $2::jsonb)', [q, '{"k":"a"}']);
      await both('SELECT * FROM pgmq.read_with_poll($1, 30, 1, 1, 50)', [q]);
      await both('SELECT * FROM pgmq.pop($1)', [q]);
      await both('SELECT * FROM pgmq.pop($1, 5)', [q]);
      await both('SELECT * FROM pgmq.read_with_poll($1, 30, 1, 1, 50)', [q]);
      await both('SELECT * FROM pgmq.read($1, 30, 0)', [q]);
    });

    test('delete, archive, set_vt with seconds', async () => {
      const q = await queue('d_ack');
      await both('SELECT * FROM pgmq.send_batch($1, $2::jsonb[])', [q, ['{"i":1}', '{"i":2}', '{"i":3}', '{"i":4}', '{"i":5}']]);
      await both('SELECT * FROM pgmq.read($1, 30, 2)', [q]);
      await both('SELECT pgmq.delete($1, 1::bigint)', [q]);
      await both('SELECT pgmq.delete($1, 1::bigint)', [q]);
      await both('SELECT * FROM pgmq.delete($1, ARRAY[2, 99]::bigint[])', [q]);
      await both('SELECT pgmq.archive($1, 3::bigint)', [q]);
      await both('SELECT * FROM pgmq.archive($1, ARRAY[3, 4, 99]::bigint[])', [q]);
      await both(`SELECT msg_id, read_ct, enqueued_at, last_read_at, vt, message, headers, archived_at FROM pgmq.a_${q}`);
      await both('SELECT * FROM pgmq.set_vt($1, 5::bigint, 60)', [q]);
      await both('SELECT * FROM pgmq.set_vt($1, ARRAY[5, 99]::bigint[], 0)', [q]);
      await both('SELECT * FROM pgmq.set_vt($1, 99::bigint, 0)', [q]);
      await both('SELECT * FROM pgmq.set_vt($1, $2, $3::integer)', [q, '5', 0]);
    });

    test('a missing queue and bad names fail the same way', async () => {
      const calls: [string, unknown[]][] = [
        ['SELECT * FROM pgmq.send($1, $2::jsonb)', ['d_missing', '{}']],
        ['SELECT * FROM pgmq.read($1, 30, 1)', ['d_missing']],
        ['SELECT * FROM pgmq.pop($1)', ['d_missing']],
        ['SELECT pgmq.delete($1, 1::bigint)', ['d_missing']],
        ['SELECT * FROM pgmq.set_vt($1, 1::bigint, 0)', ['d_missing']],
        ['SELECT * FROM pgmq.metrics($1)', ['d_missing']],
        ['SELECT pgmq.create($1)', ['a;b']],
        ['SELECT pgmq.create($1)', ['x'.repeat(48)]],
        ['SELECT pgmq.create($1)', ["it's"]],
      ];
      for (const [sql, params] of calls) await both(sql, params);
    });
  });

  describe('pgmq 1.13: set_vt with a timestamp, last_read_at', () => {
    test('set_vt to a point in time, for one id and for an array of ids', async () => {
      const q = await queue('d_setvt_ts');
      await both('SELECT * FROM pgmq.send_batch($1, $2::jsonb[])', [q, ['{"i":1}', '{"i":2}', '{"i":3}']]);
      const later = new Date(Date.now() + 120_000);
      const earlier = new Date(Date.now() - 120_000);
      await both('SELECT * FROM pgmq.set_vt($1, 1::bigint, $2::timestamptz)', [q, later]);
      await both('SELECT * FROM pgmq.set_vt($1, ARRAY[2, 3, 99]::bigint[], $2::timestamptz)', [q, later]);
      await both('SELECT * FROM pgmq.read($1, 30, 5)', [q]);
      await both('SELECT * FROM pgmq.set_vt($1, ARRAY[1, 2]::bigint[], $2::timestamptz)', [q, earlier]);
      await both('SELECT * FROM pgmq.read($1, 30, 5)', [q]);
      await both('SELECT * FROM pgmq.set_vt($1, $2::bigint, $3)', [q, 3, later.toISOString()]);
      await both('SELECT * FROM pgmq.set_vt($1, 1::bigint, $2::timestamptz)', ['d_missing', later]);
    });

    test('last_read_at: null until read, then the time of the last read', async () => {
      const q = await queue('d_last_read');
      await both('SELECT * FROM pgmq.send($1, $2::jsonb)', [q, '{}']);
      await both(`SELECT last_read_at FROM pgmq.q_${q}`);
      await both('SELECT * FROM pgmq.read($1, 0, 1)', [q]);
      await both('SELECT * FROM pgmq.read($1, 0, 1)', [q]);
      await both(`SELECT read_ct, last_read_at FROM pgmq.q_${q}`);
    });
  });

  describe('pgmq 1.13: FIFO groups', () => {
    /** A queue holding groups a (3), b (2), c (1) and 2 messages without a group, interleaved. */
    async function grouped(name: string): Promise<string> {
      const q = await queue(name);
      const sends: [string, string | null][] = [
        ['a1', 'a'],
        ['b1', 'b'],
        ['n1', null],
        ['a2', 'a'],
        ['c1', 'c'],
        ['b2', 'b'],
        ['n2', null],
        ['a3', 'a'],
      ];
      for (const [m, g] of sends) {
        const headers = g === null ? '{"other":1}' : JSON.stringify({ 'x-pgmq-group': g });
        await both('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb)', [q, JSON.stringify({ m }), headers]);
      }
      await both('SELECT * FROM pgmq.send($1, $2::jsonb)', [q, '{"m":"n3"}']); // no headers at all
      return q;
    }

    test('read_grouped fills the batch from the oldest available group first', async () => {
      const q = await grouped('d_fifo_fill');
      await both('SELECT * FROM pgmq.read_grouped($1, 30, 2)', [q], true);
      await both('SELECT * FROM pgmq.read_grouped($1, 30, 4)', [q], true);
      await both('SELECT * FROM pgmq.read_grouped($1, 30, 10)', [q], true);
      await both('SELECT * FROM pgmq.read_grouped($1, 30, 10)', [q], true);
    });

    test('read_grouped_rr takes round robin across the groups', async () => {
      const q = await grouped('d_fifo_rr');
      await both('SELECT * FROM pgmq.read_grouped_rr($1, 30, 3)', [q], true);
      await both('SELECT * FROM pgmq.read_grouped_rr($1, 30, 10)', [q], true);
    });

    test('read_grouped_rr with more room than messages', async () => {
      const q = await grouped('d_fifo_rr_all');
      await both('SELECT * FROM pgmq.read_grouped_rr($1, 30, 20)', [q], true);
    });

    test('read_grouped_head returns the head of each of up to qty groups', async () => {
      const q = await grouped('d_fifo_head');
      await both('SELECT * FROM pgmq.read_grouped_head($1, 30, 2)', [q], true);
      await both('SELECT * FROM pgmq.read_grouped_head($1, 30, 10)', [q], true);
      await both('SELECT * FROM pgmq.read_grouped_head($1, 30, 10)', [q], true);
    });

    test('a group is blocked while one of its messages is in flight, and free again after', async () => {
      const q = await grouped('d_fifo_block');
      await both('SELECT * FROM pgmq.read($1, 30, 1)', [q]); // a1 in flight, by a plain read
      await both('SELECT * FROM pgmq.read_grouped($1, 30, 10)', [q], true);
      await both('SELECT * FROM pgmq.set_vt($1, ARRAY[1, 2]::bigint[], 0)', [q]);
      await both('SELECT * FROM pgmq.read_grouped_rr($1, 30, 10)', [q], true);
      await both('SELECT pgmq.delete($1, 1::bigint)', [q]);
      await both('SELECT * FROM pgmq.set_vt($1, 4::bigint, 0)', [q]);
      await both('SELECT * FROM pgmq.read_grouped_head($1, 30, 10)', [q], true);
    });

    test('a delayed message in a group', async () => {
      const q = await queue('d_fifo_delay');
      const h = JSON.stringify({ 'x-pgmq-group': 'g' });
      await both('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb)', [q, '{"m":1}', h]);
      await both('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb, $4::integer)', [q, '{"m":2}', h, 60]);
      await both('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb)', [q, '{"m":3}', h]);
      await both('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb, $4::integer)', [
        q,
        '{"m":4}',
        JSON.stringify({ 'x-pgmq-group': 'd' }),
        60,
      ]);
      await both('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb)', [q, '{"m":5}', JSON.stringify({ 'x-pgmq-group': 'd' })]);
      await both('SELECT * FROM pgmq.read_grouped($1, 30, 10)', [q], true);
      await both('SELECT * FROM pgmq.read_grouped_rr($1, 30, 10)', [q], true);
      await both('SELECT * FROM pgmq.read_grouped_head($1, 30, 10)', [q], true);
    });

    test('group values that are not strings, and empty or odd headers', async () => {
      const q = await queue('d_fifo_odd');
      const headers = ['{"x-pgmq-group": 1}', '{"x-pgmq-group": "1"}', '{"x-pgmq-group": null}', '{"x-pgmq-group": ""}', '{}', 'null'];
      for (const h of headers) await both('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb)', [q, '{}', h]);
      await both('SELECT * FROM pgmq.read_grouped_head($1, 30, 10)', [q], true);
      await both('SELECT * FROM pgmq.read_grouped($1, 30, 10)', [q], true);
    });

    test('quantities of 0 and below, a missing queue', async () => {
      const q = await grouped('d_fifo_qty');
      for (const fn of ['read_grouped', 'read_grouped_rr', 'read_grouped_head']) {
        await both(`SELECT * FROM pgmq.${fn}($1, 30, 0)`, [q]);
        await both(`SELECT * FROM pgmq.${fn}($1, 30, -1)`, [q]);
        await both(`SELECT * FROM pgmq.${fn}($1, 30, 1)`, ['d_missing']);
      }
    });

    test('the _with_poll forms: messages at once, or nothing after max_poll_seconds', async () => {
      const q = await grouped('d_fifo_poll');
      for (const fn of ['read_grouped', 'read_grouped_rr', 'read_grouped_head']) {
        await both(`SELECT * FROM pgmq.${fn}_with_poll($1, 30, 2, 1, 50)`, [q], true);
      }
      const empty = await queue('d_fifo_poll_empty');
      for (const fn of ['read_grouped', 'read_grouped_rr', 'read_grouped_head']) {
        const started = Date.now();
        await both(`SELECT * FROM pgmq.${fn}_with_poll($1, 30, 2, 1, 50)`, [empty]);
        expect(Date.now() - started).toBeGreaterThanOrEqual(1_800); // about a second on each side
      }
    });

    test('create_fifo_index and create_fifo_indexes_all', async () => {
      const q = await grouped('d_fifo_index');
      await both('SELECT pgmq.create_fifo_index($1)', [q]);
      await both('SELECT pgmq.create_fifo_index($1)', [q]);
      await both('SELECT pgmq.create_fifo_indexes_all()');
      await both('SELECT pgmq.create_fifo_index($1)', ['d_missing']);
      await both('SELECT * FROM pgmq.read_grouped($1, 30, 3)', [q], true);
    });

    test('read_grouped_head: one message for each group, the group-less lane included', async () => {
      const q = await grouped('d_fifo_one');
      expect(await oneRow('SELECT count(*) FROM pgmq.read_grouped_head($1, 30, 10)', [q])).toEqual(['4']);
    });
  });

  describe('pgmq 1.11: topics', () => {
    test('validate_routing_key and validate_topic_pattern accept and refuse the same', async () => {
      const keys = [
        'logs',
        'logs.api.error',
        'a-b_c.9',
        '',
        '.logs',
        'logs.',
        'logs..error',
        'logs.*',
        'logs.#',
        'lo gs',
        'x'.repeat(255),
        'x'.repeat(256),
        'ünï',
      ];
      for (const k of keys) await both('SELECT pgmq.validate_routing_key($1)', [k]);
      await both('SELECT pgmq.validate_routing_key(NULL)');
      const patterns = [
        'logs.*',
        'logs.#',
        '#',
        '*',
        '*.error',
        '#.error',
        'logs.*.error',
        'logs.**',
        'logs.##',
        'logs.*#',
        'logs.#*',
        'logs*',
        'lo#gs',
        '',
        '.x',
        'x.',
        'a..b',
        'a b',
      ];
      for (const p of patterns) await both('SELECT pgmq.validate_topic_pattern($1)', [p]);
    });

    test('bind, list, test_routing, unbind', async () => {
      const all = await queue('d_topic_all');
      const errors = await queue('d_topic_errors');
      const api = await queue('d_topic_api');
      await both('SELECT pgmq.bind_topic($1, $2)', ['logs.#', all]);
      await both('SELECT pgmq.bind_topic($1, $2)', ['logs.*.error', errors]);
      await both('SELECT pgmq.bind_topic($1, $2)', ['logs.api.error', api]);
      await both('SELECT pgmq.bind_topic($1, $2)', ['#', api]);
      await both('SELECT pgmq.bind_topic($1, $2)', ['logs.#', all]); // again: nothing doubled
      await both('SELECT pgmq.bind_topic($1, $2)', ['logs.**', all]);
      await both('SELECT pgmq.bind_topic($1, $2)', ['x.#', 'd_missing']);
      await both('SELECT * FROM pgmq.list_topic_bindings()', [], false);
      await both('SELECT * FROM pgmq.list_topic_bindings($1)', [errors]);
      await both('SELECT * FROM pgmq.list_topic_bindings($1)', ['d_missing']);
      await both('SELECT * FROM pgmq.topic_bindings');
      for (const key of ['logs.api.error', 'logs.db.error', 'logs.api.info', 'logs', 'other', 'logs.a.b.c'])
        await both('SELECT * FROM pgmq.test_routing($1)', [key]);
      await both('SELECT * FROM pgmq.test_routing($1)', ['logs.*']);
      await both('SELECT pgmq.unbind_topic($1, $2)', ['#', api]);
      await both('SELECT pgmq.unbind_topic($1, $2)', ['#', api]);
      await both('SELECT pgmq.unbind_topic($1, $2)', ['nope', 'd_missing']);
      await both('SELECT * FROM pgmq.test_routing($1)', ['other']);
      await both('SELECT pgmq.drop_queue($1)', [errors]);
      await both('SELECT pattern, queue_name FROM pgmq.topic_bindings');
      for (const p of ['logs.#', 'logs.*.error', 'logs.api.error'])
        await both('SELECT pgmq.unbind_topic(b.pattern, b.queue_name) FROM pgmq.topic_bindings b WHERE b.pattern = $1', [p]);
      await both('SELECT drop_queue FROM pgmq.drop_queue($1)', [all]);
      await both('SELECT drop_queue FROM pgmq.drop_queue($1)', [api]);
    });

    test('send_topic and send_batch_topic, every overload, deliver to each matching queue once', async () => {
      const a = await queue('d_route_a');
      const b = await queue('d_route_b');
      await both('SELECT pgmq.bind_topic($1, $2)', ['orders.#', a]);
      await both('SELECT pgmq.bind_topic($1, $2)', ['orders.*', b]);
      await both('SELECT pgmq.bind_topic($1, $2)', ['#', b]); // b matches twice: still one copy
      const future = new Date(Date.now() + 3_600_000);
      await both('SELECT pgmq.send_topic($1, $2::jsonb)', ['orders.new', '{"s":1}']);
      await both('SELECT pgmq.send_topic($1, $2::jsonb, $3::integer)', ['orders.new', '{"s":2}', 30]);
      await both('SELECT pgmq.send_topic($1, $2::jsonb, $3::jsonb, $4::integer)', ['orders.x.y', '{"s":3}', '{"h":1}', 0]);
      await both('SELECT pgmq.send_topic($1, $2::jsonb)', ['nothing.matches.here.but.hash', '{"s":4}']);
      await both('SELECT pgmq.send_topic($1, $2::jsonb)', ['bad..key', '{"s":5}']);
      await both('SELECT * FROM pgmq.send_batch_topic($1, $2::jsonb[])', ['orders.new', ['{"b":1}', '{"b":2}']]);
      await both('SELECT * FROM pgmq.send_batch_topic($1, $2::jsonb[], $3::jsonb[])', ['orders.new', ['{"b":3}'], ['{"h":3}']]);
      await both('SELECT * FROM pgmq.send_batch_topic($1, $2::jsonb[], $3::integer)', ['orders.new', ['{"b":4}'], 10]);
      await both('SELECT * FROM pgmq.send_batch_topic($1, $2::jsonb[], $3::timestamptz)', ['orders.new', ['{"b":5}'], future]);
      await both('SELECT * FROM pgmq.send_batch_topic($1, $2::jsonb[], $3::jsonb[], $4::integer)', [
        'orders.new',
        ['{"b":6}'],
        ['{"h":6}'],
        0,
      ]);
      await both('SELECT * FROM pgmq.send_batch_topic($1, $2::jsonb[], $3::jsonb[], $4::timestamptz)', [
        'orders.new',
        ['{"b":7}'],
        ['{"h":7}'],
        future,
      ]);
      await both('SELECT * FROM pgmq.send_batch_topic($1, $2::jsonb[], $3::jsonb[])', ['orders.new', ['{"b":8}', '{"b":9}'], ['{}']]);
      await both('SELECT * FROM pgmq.send_batch_topic($1, $2::jsonb[])', ['orders.*', ['{}']]);
      for (const q of [a, b]) await both(`SELECT msg_id, read_ct, enqueued_at, vt, message, headers FROM pgmq.q_${q}`);
      for (const q of [a, b]) await both('SELECT pgmq.drop_queue($1)', [q]);
      await both('SELECT count(*) FROM pgmq.topic_bindings');
    });
  });

  describe('pgmq 1.7/1.13: insert notifications', () => {
    /** A LISTEN connection on each side, collecting what arrives on the queue's channel. */
    async function listeners(q: string) {
      const made: { client: pg.Client; got: { channel: string; payload: string | undefined }[] }[] = [];
      for (const side of [real, compat]) {
        const client = new pg.Client({ connectionString: side.url });
        await client.connect();
        const got: { channel: string; payload: string | undefined }[] = [];
        client.on('notification', (n) => got.push({ channel: n.channel, payload: n.payload }));
        await client.query(`LISTEN "pgmq.q_${q}.INSERT"`);
        made.push({ client, got });
      }
      return {
        /** What each side received, after a moment for the last notification to arrive. */
        async received() {
          await new Promise((r) => setTimeout(r, 300));
          const [a, b] = made.map((m) => m.got.splice(0));
          expect(b, 'notifications').toEqual(a);
          return a!;
        },
        close: () => Promise.all(made.map((m) => m.client.end())),
      };
    }

    test('enable, notify on insert, throttle, update, list, disable', async () => {
      const q = await queue('d_notify');
      await both('SELECT pgmq.enable_notify_insert($1, 0)', [q]);
      await both('SELECT * FROM pgmq.list_notify_insert_throttles()');
      await both('SELECT * FROM pgmq.notify_insert_throttle');
      const l = await listeners(q);
      try {
        await both('SELECT * FROM pgmq.send($1, $2::jsonb)', [q, '{}']);
        expect(await l.received()).toHaveLength(1);
        for (let i = 0; i < 3; i++) await both('SELECT * FROM pgmq.send($1, $2::jsonb)', [q, '{}']);
        expect(await l.received()).toHaveLength(3);
        await both('SELECT * FROM pgmq.send_batch($1, $2::jsonb[])', [q, ['{}', '{}', '{}']]);
        expect(await l.received()).toHaveLength(1);
        await both('SELECT * FROM pgmq.list_notify_insert_throttles()');
        await both('SELECT pgmq.update_notify_insert($1, 60000)', [q]);
        await both('SELECT * FROM pgmq.list_notify_insert_throttles()');
        for (let i = 0; i < 3; i++) await both('SELECT * FROM pgmq.send($1, $2::jsonb)', [q, '{}']);
        await l.received();
        await both('SELECT queue_name, throttle_interval_ms FROM pgmq.list_notify_insert_throttles()');
        await both('SELECT pgmq.enable_notify_insert($1)', [q]);
        await both('SELECT queue_name, throttle_interval_ms FROM pgmq.list_notify_insert_throttles()');
        await both('SELECT pgmq.disable_notify_insert($1)', [q]);
        await both('SELECT * FROM pgmq.send($1, $2::jsonb)', [q, '{}']);
        expect(await l.received()).toEqual([]);
        await both('SELECT * FROM pgmq.list_notify_insert_throttles()');
        await both('SELECT pgmq.disable_notify_insert($1)', [q]);
        await both('SELECT pgmq.update_notify_insert($1, 10)', [q]);
      } finally {
        await l.close();
      }
    });

    test('the default throttle: one notification for a burst', async () => {
      const q = await queue('d_notify_default');
      await both('SELECT pgmq.enable_notify_insert($1)', [q]);
      const l = await listeners(q);
      try {
        for (let i = 0; i < 3; i++) await both('SELECT * FROM pgmq.send($1, $2::jsonb)', [q, '{}']);
        expect((await l.received()).length).toBeGreaterThanOrEqual(1);
        await both('SELECT pgmq.drop_queue($1)', [q]);
        await both('SELECT * FROM pgmq.list_notify_insert_throttles()');
      } finally {
        await l.close();
      }
    });

    test('a missing queue, a negative throttle', async () => {
      await both('SELECT pgmq.enable_notify_insert($1)', ['d_missing']);
      await both('SELECT pgmq.disable_notify_insert($1)', ['d_missing']);
      await both('SELECT pgmq.update_notify_insert($1, 5)', ['d_missing']);
      const q = await queue('d_notify_bad');
      await both('SELECT pgmq.enable_notify_insert($1, -1)', [q]);
      await both('SELECT pgmq.enable_notify_insert($1, NULL)', [q]);
    });
  });
});
