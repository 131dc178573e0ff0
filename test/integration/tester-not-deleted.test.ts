// Messages the tester delivered but could not delete, with the faults injected from outside
// by the test's own SQL on PostgreSQL (a trigger that refuses some deletes, a concurrent
// loop that deletes leased rows, a role without DELETE), never through the tester's hooks.
// Before: each of them was counted ok ("delivered and deleted once"), and the verdict was
// clean without a word.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import type { TesterReport } from '../../src/tester/index.js';
import { ensureBuilt, runCli } from '../helpers/run-cli.js';
import { baseConfig, loadTester } from '../helpers/tester-dist.js';

beforeAll(() => ensureBuilt());

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const freshQueue = (what: string) => `tnd_${what}_${randomBytes(4).toString('hex')}`;

async function client(url = inject('pgUrl')): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  cleanups.push(() => c.end());
  return c;
}

const count = async (c: pg.Client, text: string) => Number((await c.query<{ n: string }>(text)).rows[0]!.n);

async function createQueue(c: pg.Client, queue: string): Promise<void> {
  await c.query(`SELECT pgmq.create('${queue}')`);
  cleanups.push(() => c.query(`SELECT pgmq.drop_queue('${queue}')`).catch(() => undefined));
}

describe('deletes that fail or find no row (PostgreSQL)', () => {
  test('a delete trigger that raises for msg_id % 40 = 0: those messages are not ok but not deleted, with the error, in text and JSON', async () => {
    const sql = await client();
    const url = inject('pgUrl');
    for (const mode of ['json', 'text'] as const) {
      const queue = freshQueue(mode);
      await createQueue(sql, queue);
      await sql.query(`
        CREATE FUNCTION pgmq.${queue}_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'refused delete of %', OLD.msg_id; END $$;
        CREATE TRIGGER refuse BEFORE DELETE ON pgmq.q_${queue}
          FOR EACH ROW WHEN (OLD.msg_id % 40 = 0) EXECUTE FUNCTION pgmq.${queue}_refuse();`);
      cleanups.push(() => sql.query(`DROP FUNCTION IF EXISTS pgmq.${queue}_refuse() CASCADE`));
      const args = ['tester', '--url', url, '--queue', queue, '--senders', '1', '--receivers', '2', '--messages', '400', '--batch', '5'];
      const r = await runCli(mode === 'json' ? [...args, '--json'] : args, { timeoutMs: 60_000 });
      const left = await count(sql, `SELECT count(*) AS n FROM pgmq.q_${queue}`);
      // A batch is deleted in one statement: the one refused row keeps its 4 batch-mates.
      expect(left).toBeGreaterThanOrEqual(10);
      expect(left % 5).toBe(0);
      // The queue lost nothing and duplicated nothing: clean, exit 0, but not without a word.
      expect(r.code).toBe(0);
      if (mode === 'json') {
        const report = JSON.parse(r.stdout) as TesterReport;
        expect(report.verdict).toBe('clean');
        expect(report.counts).toMatchObject({
          sent: 400,
          ok: 400 - left,
          notDeleted: left,
          notDeletedAckFailed: left,
          notDeletedNotFound: 0,
          acknowledged: 400 - left,
          ackFailed: left,
          ackNotFound: 0,
          lost: 0,
        });
        expect(report.calls.ackFailed).toBe(left / 5);
        expect(report.queue.messagesAfter).toBe(left);
        expect(report.examples.notDeleted.length).toBe(10);
        const w = report.tester.warnings.find((x) => x.includes('not deleted by the tester'));
        expect(w).toMatch(
          new RegExp(
            `^${left} delivered message\\(s\\) were not deleted by the tester, so not counted ok: ${left} because their delete failed .*last delete error: .*refused delete of \\d+`,
          ),
        );
      } else {
        expect(r.stdout).toMatch(new RegExp(`^ok +${400 - left} `, 'm'));
        expect(r.stdout).toMatch(new RegExp(`^not deleted +${left} +ack not found +0`, 'm'));
        expect(r.stdout).toMatch(/^not deleted examples: sender 0 seq \d+ \(id \d+\)/m);
        expect(r.stdout).toMatch(/^warning: \d+ delivered message\(s\) were not deleted by the tester.*refused delete of/m);
        expect(r.stdout).toMatch(/verdict {5}clean\n$/);
      }
    }
  }, 120_000);

  test('another client deletes leased rows during --ack-delay: the tester’s deletes find no row; not ok, not a failed call', async () => {
    const sql = await client();
    const loop = await client();
    const queue = freshQueue('gone');
    await createQueue(sql, queue);
    let stop = false;
    let deleted = 0;
    const looping = (async () => {
      while (!stop) {
        deleted += await count(
          loop,
          `WITH d AS (DELETE FROM pgmq.q_${queue} WHERE read_ct > 0 AND vt > clock_timestamp() AND msg_id % 4 = 0 RETURNING 1) SELECT count(*) AS n FROM d`,
        );
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const { TesterRun } = await loadTester();
    let report: TesterReport;
    try {
      report = await new TesterRun(
        baseConfig(
          { kind: 'pgmq', url: inject('pgUrl') },
          { queue, keep: true, senders: 1, receivers: 2, messagesPerSender: 250, batch: 25, ackDelayMs: 1000 },
        ),
      ).run();
    } finally {
      stop = true;
      await looping;
    }
    expect(deleted).toBeGreaterThan(30);
    expect(report.verdict).toBe('clean');
    expect(report.counts).toMatchObject({
      sent: 250,
      ok: 250 - deleted,
      notDeleted: deleted,
      notDeletedNotFound: deleted,
      notDeletedAckFailed: 0,
      ackNotFound: deleted,
      ackFailed: 0,
      lost: 0,
    });
    // No delete call failed: each answered, without the rows another client had deleted.
    expect(report.calls.ackFailed).toBe(0);
    expect(report.tester.warnings.find((x) => x.includes('not deleted by the tester'))).toBe(
      `${deleted} delivered message(s) were not deleted by the tester, so not counted ok: ` +
        `${deleted} because their delete found no row (deleted by another client)`,
    );
  }, 90_000);

  test('a role without DELETE: nothing is ok, every message is not deleted, and the run failed', async () => {
    const url = inject('pgUrl');
    const admin = await client();
    const queue = freshQueue('nodel');
    const role = `smq_nodel_${randomBytes(3).toString('hex')}`;
    await createQueue(admin, queue);
    await admin.query(
      `CREATE ROLE ${role} LOGIN PASSWORD 'nodel-pass-1'; GRANT USAGE ON SCHEMA pgmq TO ${role};
       GRANT SELECT ON ALL TABLES IN SCHEMA pgmq TO ${role}; GRANT INSERT, UPDATE ON pgmq.q_${queue} TO ${role};
       GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA pgmq TO ${role};`,
    );
    cleanups.push(() => admin.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`));
    const u = new URL(url);
    u.username = role;
    u.password = 'nodel-pass-1';
    const r = await runCli(
      ['tester', '--url', u.toString(), '--queue', queue, '--senders', '1', '--receivers', '1', '--messages', '20', '--json'],
      { timeoutMs: 60_000 },
    );
    const report = JSON.parse(r.stdout) as TesterReport;
    expect(report.counts).toMatchObject({ sent: 20, ok: 0, notDeleted: 20, notDeletedAckFailed: 20, acknowledged: 0, ackFailed: 20 });
    expect(report.queue.messagesAfter).toBe(20);
    expect(report.verdict).toBe('failed');
    expect(report.failure).toMatch(/every acknowledgement failed .*permission denied/);
    expect(report.tester.warnings.join('\n')).toMatch(/20 because their delete failed .*permission denied for table q_/);
    expect(r.code).toBe(1);
  }, 90_000);
});
