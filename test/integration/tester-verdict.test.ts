// The tester's verdict under faults injected from outside, with the test's own SQL on the
// store (triggers, a concurrent loop, a role without rights), never through the tester's
// hooks: messages that are not the run's (issue 13 item 3), deletes that do not stick (16),
// a message that exists twice (17), runs in which nothing worked or that were interrupted (19).
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import type { TesterConfig, TesterReport } from '../../src/tester/index.js';
import { ensureBuilt, runCli } from '../helpers/run-cli.js';
import { baseConfig, loadBackends, loadTester, testerStores, type TesterStore } from '../helpers/tester-dist.js';

beforeAll(() => ensureBuilt());

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const stores = testerStores();
const freshQueue = (what: string) => `tv_${what}_${randomBytes(4).toString('hex')}`;

/** The test's own SQL on the store, on a connection of its own. */
interface StoreSql {
  exec(text: string): Promise<void>;
  count(text: string): Promise<number>;
}

async function storeSql(target: TesterConfig['target']): Promise<StoreSql> {
  if (target.kind === 'pgmq') {
    const c = new pg.Client({ connectionString: target.url });
    await c.connect();
    cleanups.push(() => c.end());
    return {
      exec: async (text) => void (await c.query(text)),
      count: async (text) => Number((await c.query<{ n: string }>(text)).rows[0]!.n),
    };
  }
  const db = new Database(target.path);
  db.pragma('busy_timeout = 5000');
  cleanups.push(() => void db.close());
  return {
    exec: async (text) => void db.exec(text),
    count: async (text) => Number((db.prepare(text).get() as { n: number | bigint }).n),
  };
}

/** Creates the queue (and the SQLite file) through smq's own backend. */
async function createQueue(store: TesterStore, target: TesterConfig['target'], queue: string, plainMessages = 0): Promise<void> {
  const { openBackend } = await loadBackends();
  const backend = await openBackend(target, { create: store.create });
  try {
    await backend.createQueue(queue);
    for (let i = 0; i < plainMessages; i++) await backend.send(queue, { body: JSON.stringify({ order: i, note: 'a real message' }) });
  } finally {
    await backend.close();
  }
}

/** Where a queue's messages are: pgmq's table, or SmoothMQ's messages of one queue id. */
function rowsOf(target: TesterConfig['target'], queue: string): { table: string; where: string } {
  return target.kind === 'pgmq'
    ? { table: `pgmq.q_${queue}`, where: 'true' }
    : { table: 'messages', where: `queue_id = (SELECT id FROM queues WHERE name = '${queue}')` };
}

describe.each(stores)('messages that are not the run’s, on $name (item 3)', (store) => {
  test('a non-empty queue is refused without --allow-foreign; with it, foreign messages are left untouched (never received), counted, never deleted', async () => {
    const { TesterRun } = await loadTester();
    const target = store.target();
    const queue = freshQueue('foreign');
    await createQueue(store, target, queue, 8);
    const sql = await storeSql(target);
    const { table, where } = rowsOf(target, queue);

    // Refused before anything is read: the 8 messages are untouched.
    await expect(new TesterRun(baseConfig(target, { queue, keep: true })).run()).rejects.toThrow(/holds 8 message/);
    const untouched = target.kind === 'pgmq' ? 'read_ct = 0' : 'tries = 0';
    expect(await sql.count(`SELECT count(*) AS n FROM ${table} WHERE ${where} AND ${untouched}`)).toBe(8);

    // One message per receive (the command's default): foreign messages at the head of a
    // pgmq queue (read oldest id first) must not starve the run's own.
    const report: TesterReport = await new TesterRun(baseConfig(target, { queue, keep: true, allowForeign: true, batch: 1 })).run();
    expect(report.counts).toMatchObject({ sent: 600, ok: 600, lost: 0, unexpected: 0, foreign: 8 });
    expect(report.verdict).toBe('clean');
    expect(report.queue.messagesBefore).toBe(8);
    expect(report.queue.messagesAfter).toBe(8);
    // The receivers asked for this run's messages only: the 8 were never received.
    expect(report.counts.foreignDeliveries).toBe(0);
    expect(report.tester.warnings.join('\n')).toMatch(/8 message\(s\) without this run's id are in the queue: left untouched/);
    expect(await sql.count(`SELECT count(*) AS n FROM ${table} WHERE ${where} AND ${untouched}`)).toBe(8);
    // All 8 are still there, and visible.
    const visible = target.kind === 'pgmq' ? 'vt <= clock_timestamp()' : `deliver_at <= CAST(strftime('%s','now') AS INTEGER)`;
    expect(await sql.count(`SELECT count(*) AS n FROM ${table} WHERE ${where} AND ${visible}`)).toBe(8);
  }, 60_000);
});

test('SmoothMQ: a queue that limits tries is run with --allow-foreign, its messages never received (tries stay 0)', async () => {
  const { TesterRun } = await loadTester();
  const { openBackend } = await loadBackends();
  const target = stores[0]!.target();
  const queue = freshQueue('tries');
  const backend = await openBackend(target, { create: true });
  try {
    await backend.createQueue(queue, { maxRetries: 3 });
    await backend.send(queue, { body: JSON.stringify({ order: 1 }) });
  } finally {
    await backend.close();
  }
  // The receivers ask for the run's messages only (the file can filter): the stranger's one
  // is never received, so its tries are not used up.
  const report = await new TesterRun(baseConfig(target, { queue, keep: true, allowForeign: true })).run();
  expect(report.verdict).toBe('clean');
  expect(report.counts).toMatchObject({ foreign: 1, foreignDeliveries: 0 });
  const sql = await storeSql(target);
  expect(await sql.count(`SELECT count(*) AS n FROM messages WHERE tries = 0`)).toBe(1);
}, 30_000);

test('smq tester --queue on a non-empty queue: one line, exit 2, nothing read', async () => {
  const url = inject('pgUrl');
  const queue = freshQueue('cli_foreign');
  const { openBackend } = await loadBackends();
  const backend = await openBackend({ kind: 'pgmq', url }, {});
  cleanups.push(async () => {
    await backend.dropQueue(queue).catch(() => undefined);
    await backend.close();
  });
  await backend.createQueue(queue);
  for (let i = 0; i < 8; i++) await backend.send(queue, { body: JSON.stringify({ order: i }) });
  const r = await runCli(['tester', '--url', url, '--queue', queue, '--messages', '20'], { timeoutMs: 60_000 });
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(/--allow-foreign/);
  expect(r.stdout).toBe('');
  const left = await backend.peek(queue, { limit: 100, state: 'all' });
  expect(left).toHaveLength(8);
  expect(left.every((m) => m.readCount === 0)).toBe(true);
}, 60_000);

describe.each(stores)('a delete that does not stick, on $name (item 16)', (store) => {
  test('rows of acknowledged messages back in the queue after the drain are resurrected (default --vt 30)', async () => {
    const { TesterRun } = await loadTester();
    const target = store.target();
    const queue = freshQueue('undelete');
    await createQueue(store, target, queue);
    const sql = await storeSql(target);
    // Every third deleted row comes back under its own id, leased for 30 s: the delete
    // "succeeded" (the client was told so), the row returns when its lease ends.
    if (target.kind === 'pgmq') {
      await sql.exec(`
        CREATE FUNCTION pgmq.${queue}_undelete() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE r pgmq.q_${queue}%ROWTYPE;
        BEGIN
          r := OLD;
          r.vt := clock_timestamp() + interval '30 seconds';
          INSERT INTO pgmq.q_${queue} OVERRIDING SYSTEM VALUE SELECT (r).*;
          RETURN NULL;
        END $$;
        CREATE TRIGGER undelete AFTER DELETE ON pgmq.q_${queue}
          FOR EACH ROW WHEN (OLD.msg_id % 3 = 0) EXECUTE FUNCTION pgmq.${queue}_undelete();`);
    } else {
      await sql.exec(`
        CREATE TRIGGER undelete AFTER DELETE ON messages
        WHEN OLD.id % 3 = 0 AND OLD.queue_id = (SELECT id FROM queues WHERE name = '${queue}')
        BEGIN
          INSERT INTO messages (id, tenant_id, queue_id, deliver_at, delivered_at, tries, max_tries, message)
          VALUES (OLD.id, OLD.tenant_id, OLD.queue_id, CAST(strftime('%s','now') AS INTEGER) + 30, OLD.delivered_at, OLD.tries, OLD.max_tries, OLD.message);
        END;`);
    }
    const report = await new TesterRun(baseConfig(target, { queue, keep: true })).run();
    const { table, where } = rowsOf(target, queue);
    const back = await sql.count(`SELECT count(*) AS n FROM ${table} WHERE ${where}`);
    expect(back).toBeGreaterThan(100);
    expect(report.queue.messagesAfter).toBe(back);
    expect(report.counts.resurrected).toBe(back);
    expect(report.examples.resurrected.length).toBeGreaterThan(0);
    expect(report.verdict).toBe('violations');
    expect(report.config['settleMs']).toBe(null);
    expect(report.drain.settleMs).toBe(0);
    expect(report.tester.warnings.join('\n')).toMatch(/late resurrections .*not judged/);
  }, 60_000);
});

test('--settle: a row put back a second after its delete, by a concurrent SQL loop, is caught while settling (pgmq, --vt 2)', async () => {
  const { TesterRun } = await loadTester();
  const url = inject('pgUrl');
  const target = { kind: 'pgmq' as const, url };
  const queue = freshQueue('late');
  const sql = await storeSql(target);
  await sql.exec(`SELECT pgmq.create('${queue}')`);
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`SELECT pgmq.drop_queue('${queue}')`).catch(() => undefined);
    await c.query(`DROP TABLE IF EXISTS public.${queue}_graveyard, public.${queue}_buried`);
    await c.end();
  });
  // Every fifth deleted row goes to a graveyard; the loop below puts it back, visible, a
  // second later: nothing of it is in the queue when the drain ends.
  await sql.exec(`
    CREATE TABLE public.${queue}_graveyard (LIKE pgmq.q_${queue}, buried_at timestamptz DEFAULT clock_timestamp());
    CREATE TABLE public.${queue}_buried (msg_id bigint);
    CREATE FUNCTION pgmq.${queue}_bury() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO public.${queue}_graveyard SELECT OLD.*;
      INSERT INTO public.${queue}_buried VALUES (OLD.msg_id);
      RETURN NULL;
    END $$;
    CREATE TRIGGER bury AFTER DELETE ON pgmq.q_${queue}
      FOR EACH ROW WHEN (OLD.msg_id % 5 = 0) EXECUTE FUNCTION pgmq.${queue}_bury();`);
  const loop = await storeSql(target);
  let stop = false;
  let revived = 0;
  const looping = (async () => {
    while (!stop) {
      revived += await loop.count(`
        WITH due AS (DELETE FROM public.${queue}_graveyard WHERE buried_at < clock_timestamp() - interval '1 second' RETURNING *),
        back AS (INSERT INTO pgmq.q_${queue} (msg_id, read_ct, enqueued_at, vt, message)
                 OVERRIDING SYSTEM VALUE SELECT msg_id, read_ct, enqueued_at, clock_timestamp(), message FROM due RETURNING 1)
        SELECT count(*) AS n FROM back`);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  let report: TesterReport;
  try {
    report = await new TesterRun(baseConfig(target, { queue, keep: true, vtSec: 2, messagesPerSender: 200 })).run();
  } finally {
    stop = true;
    await looping;
  }
  // The default settle: one --vt after the last acknowledgement of the drain.
  expect(report.config['settleMs']).toBe(null);
  expect(report.drain.settleMs).toBeGreaterThanOrEqual(1500);
  expect(revived).toBeGreaterThan(20);
  // Every row deleted during the drain came back within the settle and was delivered again
  // (a revived row deleted again is buried again under the same id: count ids).
  const buried = await sql.count(`SELECT count(DISTINCT msg_id) AS n FROM public.${queue}_buried`);
  expect(report.counts.resurrected).toBe(buried);
  expect(report.verdict).toBe('violations');
}, 60_000);

describe.each(stores)('a message that exists twice, on $name (item 17)', (store) => {
  test('a copy under a new queue id is duplicated (not redelivered, not double-dequeued)', async () => {
    const { TesterRun } = await loadTester();
    const target = store.target();
    const queue = freshQueue('twice');
    await createQueue(store, target, queue);
    const sql = await storeSql(target);
    // Every fifth message sent gets a copy under a new id, logged in a table of the test's.
    if (target.kind === 'pgmq') {
      await sql.exec(`
        CREATE TABLE public.${queue}_copies (orig bigint);
        CREATE FUNCTION pgmq.${queue}_copy() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF pg_trigger_depth() > 1 THEN RETURN NULL; END IF;
          INSERT INTO pgmq.q_${queue} (read_ct, enqueued_at, vt, message) VALUES (0, NEW.enqueued_at, NEW.vt, NEW.message);
          INSERT INTO public.${queue}_copies VALUES (NEW.msg_id);
          RETURN NULL;
        END $$;
        CREATE TRIGGER copy AFTER INSERT ON pgmq.q_${queue}
          FOR EACH ROW WHEN (NEW.msg_id % 5 = 0) EXECUTE FUNCTION pgmq.${queue}_copy();`);
      cleanups.push(() => sql.exec(`DROP TABLE public.${queue}_copies`));
    } else {
      // SmoothMQ ids are snowflakes made by the client: the copy flips a node bit, so it can
      // never meet an id smq makes. (SQLite triggers do not fire for their own inserts.)
      await sql.exec(`
        CREATE TABLE test_copies (orig integer);
        CREATE TRIGGER copy AFTER INSERT ON messages
        WHEN NEW.id % 5 = 0 AND NEW.queue_id = (SELECT id FROM queues WHERE name = '${queue}')
        BEGIN
          INSERT INTO messages (id, tenant_id, queue_id, deliver_at, delivered_at, tries, max_tries, message)
          VALUES ((NEW.id | 2097152) - (NEW.id & 2097152), NEW.tenant_id, NEW.queue_id, NEW.deliver_at, NEW.delivered_at, 0, NEW.max_tries, NEW.message);
          INSERT INTO test_copies VALUES (NEW.id);
        END;`);
    }
    const report = await new TesterRun(baseConfig(target, { queue, keep: true })).run();
    const copies = await sql.count(`SELECT count(*) AS n FROM ${target.kind === 'pgmq' ? `public.${queue}_copies` : 'test_copies'}`);
    expect(copies).toBeGreaterThan(50);
    expect(report.counts.duplicated).toBe(copies);
    expect(report.counts.doubleDequeued).toBe(0);
    expect(report.counts.resurrected).toBe(0);
    expect(report.counts.lost).toBe(0);
    expect(report.counts.ok + report.counts.duplicated).toBe(600);
    expect(report.examples.duplicated.length).toBeGreaterThan(0);
    expect(report.examples.duplicated[0]!.id).toMatch(/^\d+$/);
    expect(report.verdict).toBe('violations');
  }, 60_000);
});

describe('runs in which nothing worked, or that were interrupted (item 19)', () => {
  test('a role with SELECT only: failed, the reason in one line, exit 1', async () => {
    const url = inject('pgUrl');
    const admin = await storeSql({ kind: 'pgmq', url });
    const queue = freshQueue('ro');
    const role = `smq_ro_${randomBytes(3).toString('hex')}`;
    await admin.exec(`SELECT pgmq.create('${queue}')`);
    await admin.exec(
      `CREATE ROLE ${role} LOGIN PASSWORD 'ro-pass-1'; GRANT USAGE ON SCHEMA pgmq TO ${role}; GRANT SELECT ON ALL TABLES IN SCHEMA pgmq TO ${role};`,
    );
    cleanups.push(async () => {
      await admin.exec(`SELECT pgmq.drop_queue('${queue}')`).catch(() => undefined);
      await admin.exec(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
    });
    const u = new URL(url);
    u.username = role;
    u.password = 'ro-pass-1';
    const { TesterRun } = await loadTester();
    const report = await new TesterRun(
      baseConfig({ kind: 'pgmq', url: u.toString() }, { queue, senders: 1, messagesPerSender: 5, batch: 1, receivers: 1 }),
    ).run();
    expect(report.counts.sent).toBe(0);
    expect(report.errors.count).toBeGreaterThan(0);
    expect(report.verdict).toBe('failed');
    expect(report.failure).toMatch(/no send was acknowledged/);

    const r = await runCli(
      ['tester', '--url', u.toString(), '--queue', queue, '--senders', '1', '--messages', '5', '--receivers', '1', '--json'],
      { timeoutMs: 60_000 },
    );
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ verdict: 'failed' });
    expect(
      r.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('[')),
    ).toHaveLength(1);
    expect(r.stderr).toMatch(/no send was acknowledged/);
  }, 90_000);

  test('an interrupted run’s verdict is "interrupted", never "clean"', async () => {
    const { TesterRun } = await loadTester();
    const run = new TesterRun(
      baseConfig({ kind: 'pgmq', url: inject('pgUrl') }, { messagesPerSender: undefined, durationMs: 30_000, ratePerSec: 500 }),
    );
    run.on('progress', (p) => {
      if (p.totals.received > 0) run.interrupt('SIGINT');
    });
    const report = await run.run();
    expect(report.interrupted).toBe(true);
    expect(report.verdict).toBe('interrupted');
  }, 60_000);
});
