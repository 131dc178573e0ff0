// initPgmq / smq's pgmq-compatible schema: installs on a fresh database, is idempotent
// (data survives a second run), is all-or-nothing, and never replaces a real pgmq.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { compatSql, compatVersion, initPgmq } from '../../src/backends/pgmq/install.js';
import { ensureBuilt, runCli } from '../helpers/run-cli.js';

const baseUrl = inject('pgUrl');
const EMULATED_VERSION = '1.13.0';
/** The compat schema as smq's previous release installed it (emulating pgmq 1.10), frozen. */
const OLD_SCHEMA = new URL('../fixtures/pgmq-compat-1.10.0.sql', import.meta.url);

/** The same server as baseUrl, another database. */
function urlFor(database: string): string {
  const u = new URL(baseUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const made: string[] = [];
let counter = 0;

/** A new, empty database (dropped after the file's tests). */
async function freshDatabase(): Promise<string> {
  counter += 1;
  const name = `smq_init_${process.pid}_${Date.now().toString(36)}_${counter}`;
  await withClient(baseUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  made.push(name);
  return urlFor(name);
}

afterAll(async () => {
  await withClient(baseUrl, async (c) => {
    for (const name of made) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
});

/** What the pgmq schema holds: tables, functions and types, as one comparable list. */
async function pgmqObjects(c: pg.Client): Promise<string[]> {
  const r = await c.query<{ o: string }>(`
    SELECT 'rel ' || c.relname AS o FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'pgmq'
    UNION ALL
    SELECT 'fn ' || p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'pgmq'
    ORDER BY 1`);
  return r.rows.map((x) => x.o);
}

/** The schema's functions with their signatures, composite types and pgmq's own tables (not the queues'). */
async function apiShape(c: pg.Client): Promise<string[]> {
  const r = await c.query<{ o: string }>(`
    SELECT 'fn ' || p.proname || '(' || pg_get_function_arguments(p.oid) || ') ' || pg_get_function_result(p.oid) AS o
    FROM pg_proc p WHERE p.pronamespace = 'pgmq'::regnamespace
    UNION ALL
    SELECT 'col ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnum
    FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    WHERE c.relnamespace = 'pgmq'::regnamespace AND c.relkind IN ('r', 'c') AND c.relname !~ '^[qa]_'
    ORDER BY 1`);
  return r.rows.map((x) => x.o);
}

describe('initPgmq', () => {
  test('installs the compat schema on a fresh database, then reports it as existing', async () => {
    const url = await freshDatabase();
    await withClient(url, async (c) => {
      expect(await compatVersion(c)).toBeNull();
      expect(await initPgmq(c)).toEqual({ mode: 'compat-installed', version: EMULATED_VERSION });
      expect(await compatVersion(c)).toBe(EMULATED_VERSION);
      expect((await c.query('SELECT * FROM pgmq.smq_compat')).rows).toEqual([{ version: EMULATED_VERSION }]);
      // The API is usable right away.
      await c.query("SELECT pgmq.create('fresh_q')");
      await c.query(`SELECT * FROM pgmq.send('fresh_q', '{"x":1}'::jsonb)`);
      expect((await c.query("SELECT * FROM pgmq.read('fresh_q', 30, 1)")).rowCount).toBe(1);
      expect(await initPgmq(c)).toEqual({ mode: 'compat-existing', version: EMULATED_VERSION });
    });
  });

  test('reports the suite database, installed by the global setup, as existing', async () => {
    await withClient(baseUrl, async (c) => {
      expect(await initPgmq(c)).toEqual({ mode: 'compat-existing', version: EMULATED_VERSION });
    });
  });

  // On a database of its own: running the script again replaces every function, which must
  // not race with other test files using the suite database.
  test('is idempotent: a second run, and the script run again by hand, keep every message', async () => {
    const url = await freshDatabase();
    await withClient(url, async (c) => {
      await initPgmq(c);
      const queue = 'keep_me';
      await c.query('SELECT pgmq.create($1)', [queue]);
      await c.query('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb)', [queue, '{"keep":1}', '{"h":1}']);
      await c.query('SELECT * FROM pgmq.send($1, $2::jsonb)', [queue, '{"keep":2}']);
      await c.query('SELECT * FROM pgmq.read($1, 300, 1)', [queue]); // one in flight
      await c.query(`SELECT pgmq.archive($1, (SELECT max(msg_id) FROM pgmq.q_${queue}))`, [queue]);
      const snapshot = async () => ({
        live: (await c.query(`SELECT * FROM pgmq.q_${queue} ORDER BY msg_id`)).rows,
        archived: (await c.query(`SELECT * FROM pgmq.a_${queue} ORDER BY msg_id`)).rows,
        meta: (await c.query('SELECT * FROM pgmq.meta')).rows,
        version: (await c.query('SELECT * FROM pgmq.smq_compat')).rows,
        objects: await pgmqObjects(c),
      });
      const before = await snapshot();
      expect(before.live).toHaveLength(1);
      expect(before.archived).toHaveLength(1);

      expect(await initPgmq(c)).toEqual({ mode: 'compat-existing', version: EMULATED_VERSION });
      // initPgmq skips an installed schema; the script itself must be safe to rerun too.
      await c.query('BEGIN');
      await c.query(compatSql());
      await c.query('COMMIT');

      expect(await snapshot()).toEqual(before);
      // Ids go on where they were: the identity sequence was not reset.
      const next = await c.query<{ send: string }>('SELECT * FROM pgmq.send($1, $2::jsonb)', [queue, '{}']);
      expect(BigInt(next.rows[0]!.send)).toBe(3n);
      expect((await c.query('SELECT * FROM pgmq.read($1, 30, 10)', [queue])).rowCount).toBe(1);
    });
  });

  test('installing is all-or-nothing: a failure late in the script leaves nothing behind', async () => {
    const url = await freshDatabase();
    await withClient(url, async (c) => {
      // A function the script must replace with another return type, which PostgreSQL
      // refuses: the script gets most of the way, then fails.
      await c.query('CREATE SCHEMA pgmq');
      await c.query('CREATE FUNCTION pgmq.list_queues() RETURNS integer LANGUAGE sql AS $$ SELECT 1 $$');
      const before = await pgmqObjects(c);

      await expect(initPgmq(c)).rejects.toThrow(/return type/);

      expect(await pgmqObjects(c)).toEqual(before);
      expect(await compatVersion(c)).toBeNull();
      const left = await c.query<{ meta: string | null; create: string | null }>(
        "SELECT to_regclass('pgmq.meta')::text AS meta, to_regprocedure('pgmq.create(text)')::text AS create",
      );
      expect(left.rows[0]).toEqual({ meta: null, create: null });

      // Once the obstacle is gone, the same call installs everything.
      await c.query('DROP FUNCTION pgmq.list_queues()');
      expect(await initPgmq(c)).toEqual({ mode: 'compat-installed', version: EMULATED_VERSION });
      expect((await c.query('SELECT * FROM pgmq.list_queues()')).rowCount).toBe(0);
    });
  });

  test('never installs over a pgmq that smq did not make', async () => {
    const url = await freshDatabase();
    await withClient(url, async (c) => {
      // What pgmq's plain-SQL install leaves: schema pgmq with pgmq.meta, no extension row.
      await c.query('CREATE SCHEMA pgmq');
      await c.query(
        'CREATE TABLE pgmq.meta (queue_name varchar UNIQUE NOT NULL, is_partitioned boolean NOT NULL, is_unlogged boolean NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
      );
      const before = await pgmqObjects(c);
      expect(await initPgmq(c)).toEqual({ mode: 'sql-existing', version: 'unknown' });
      expect(await pgmqObjects(c)).toEqual(before);

      // Run by hand, the script refuses as well.
      await c.query('BEGIN');
      await expect(c.query(compatSql())).rejects.toThrow(/did not make/);
      await c.query('ROLLBACK');
      expect(await pgmqObjects(c)).toEqual(before);
    });
  });

  test('two inits at once on a fresh database: one installs, the other finds it', async () => {
    const url = await freshDatabase();
    const results = await Promise.all([0, 1].map(() => withClient(url, (c) => initPgmq(c))));
    expect(results.map((r) => r.mode).sort()).toEqual(['compat-existing', 'compat-installed']);
  });

  // smq before the pgmq 1.13 work installed the 1.10-level schema; init brings it up to date
  // where it stands, and nothing in it is lost.
  test('upgrades an older compat schema in place: queues, messages, archive and ids kept', async () => {
    const url = await freshDatabase();
    await withClient(url, async (c) => {
      await c.query('BEGIN');
      await c.query(readFileSync(OLD_SCHEMA, 'utf8'));
      await c.query('COMMIT');
      expect(await compatVersion(c)).toBe('1.10.0');
      const queue = 'Old_Orders';
      await c.query('SELECT pgmq.create($1)', [queue]);
      await c.query('SELECT pgmq.create_unlogged($1)', ['old_fast']);
      await c.query('SELECT * FROM pgmq.send_batch($1, $2::jsonb[], $3::jsonb[])', [
        queue,
        ['{"n":1}', '{"n":2}', '{"n":3}'],
        ['{"x-pgmq-group":"g"}', '{"x-pgmq-group":"g"}', '{"x-pgmq-group":"h"}'],
      ]);
      await c.query('SELECT * FROM pgmq.read($1, 300, 1)', [queue]); // n1 in flight
      await c.query('SELECT pgmq.archive($1, 3::bigint)', [queue]);
      const snapshot = async () => ({
        live: (await c.query('SELECT * FROM pgmq.q_old_orders ORDER BY msg_id')).rows,
        archived: (await c.query('SELECT * FROM pgmq.a_old_orders ORDER BY msg_id')).rows,
        meta: (await c.query('SELECT * FROM pgmq.meta ORDER BY queue_name')).rows,
      });
      const before = await snapshot();

      expect(await initPgmq(c)).toEqual({ mode: 'compat-upgraded', version: EMULATED_VERSION, from: '1.10.0' });
      expect(await snapshot()).toEqual(before);
      // The upgraded schema is the one a fresh install makes: the same functions (no overload
      // left behind), types and pgmq tables.
      const fresh = await freshDatabase();
      await withClient(fresh, (f) => initPgmq(f));
      const shape = (cl: pg.Client) => apiShape(cl);
      expect(await shape(c)).toEqual(await withClient(fresh, shape));
      // 1.13's API on the old queue: g is blocked (n1 in flight), h was archived.
      expect((await c.query('SELECT msg_id FROM pgmq.read_grouped($1, 30, 10)', [queue])).rows).toEqual([]);
      const next = await c.query<{ send: string }>('SELECT * FROM pgmq.send($1, $2::jsonb)', [queue, '{}']);
      expect(BigInt(next.rows[0]!.send)).toBe(4n);
      await c.query('SELECT pgmq.bind_topic($1, $2)', ['orders.#', queue]);
      expect((await c.query('SELECT pgmq.send_topic($1, $2::jsonb) AS n', ['orders.new', '{}'])).rows).toEqual([{ n: 1 }]);
      await c.query('SELECT * FROM pgmq.set_vt($1, 1::bigint, now())', [queue]);
      expect(await initPgmq(c)).toEqual({ mode: 'compat-existing', version: EMULATED_VERSION });
    });
  });

  test('`smq init` says it upgraded the schema', async () => {
    ensureBuilt();
    const url = await freshDatabase();
    await withClient(url, async (c) => {
      await c.query('BEGIN');
      await c.query(readFileSync(OLD_SCHEMA, 'utf8'));
      await c.query('COMMIT');
      await c.query("SELECT pgmq.create('kept')");
    });
    const r = await runCli(['init', '--url', url, '--output', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^upgraded smq's pgmq-compatible schema to 1\.13\.0; every queue and message kept\n$/);
    const again = await runCli(['init', '--url', url]);
    expect(JSON.parse(again.stdout)).toMatchObject({ backend: 'pgmq', mode: 'compat-existing', version: '1.13.0' });
    await withClient(url, async (c) => expect((await c.query('SELECT queue_name FROM pgmq.meta')).rows).toEqual([{ queue_name: 'kept' }]));
  }, 60_000);
});
