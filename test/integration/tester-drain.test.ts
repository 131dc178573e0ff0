// The drain's end on real PostgreSQL, with the faults injected from outside by the test's own
// SQL: one acknowledged send that never arrives (an insert trigger deletes its row) and one
// message that can never be deleted (a delete trigger raises), redelivered every --vt.
// Before: every redelivery of the undeletable message counted as "something new" and reset the
// drain's idle clock, so the drain never ended (a user's 3 s run had to be killed after 60 s).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import type { TesterReport } from '../../src/tester/index.js';
import { ensureBuilt, runCli } from '../helpers/run-cli.js';

beforeAll(() => ensureBuilt());

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function client(url = inject('pgUrl')): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  cleanups.push(() => c.end());
  return c;
}

describe('the drain ends when nothing progresses (PostgreSQL)', () => {
  test('a lost send and an undeletable message redelivered every second: the drain times out after --drain-timeout, not never', async () => {
    const sql = await client();
    const url = inject('pgUrl');
    const queue = `tdr_${randomBytes(4).toString('hex')}`;
    await sql.query(`SELECT pgmq.create('${queue}')`);
    cleanups.push(() => sql.query(`SELECT pgmq.drop_queue('${queue}')`).catch(() => undefined));
    cleanups.push(() => sql.query(`DROP FUNCTION IF EXISTS pgmq.${queue}_refuse() CASCADE`));
    cleanups.push(() => sql.query(`DROP FUNCTION IF EXISTS pgmq.${queue}_swallow() CASCADE`));
    await sql.query(`
      CREATE FUNCTION pgmq.${queue}_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused delete of %', OLD.msg_id; END $$;
      CREATE TRIGGER refuse BEFORE DELETE ON pgmq.q_${queue}
        FOR EACH ROW WHEN (OLD.msg_id = 5) EXECUTE FUNCTION pgmq.${queue}_refuse();
      CREATE FUNCTION pgmq.${queue}_swallow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN DELETE FROM pgmq.q_${queue} WHERE msg_id = NEW.msg_id; RETURN NULL; END $$;
      CREATE TRIGGER swallow AFTER INSERT ON pgmq.q_${queue}
        FOR EACH ROW WHEN (NEW.msg_id = 12) EXECUTE FUNCTION pgmq.${queue}_swallow();`);
    const args = ['tester', '--url', url, '--queue', queue, '--senders', '1', '--receivers', '1', '--messages', '20', '--batch', '1'];
    const r = await runCli([...args, '--vt', '1', '--drain-timeout', '3s', '--json'], { timeoutMs: 40_000 });
    expect(r.code, r.stderr).toBe(4);
    const report = JSON.parse(r.stdout) as TesterReport;
    expect(report.counts).toMatchObject({ sent: 20, lost: 1, notDeleted: 1, notDeletedAckFailed: 1, ok: 18 });
    expect(report.examples.lost).toEqual([{ sender: 0, seq: 11 }]);
    // The undeletable message came back several times during the drain, and none of it was progress.
    expect(report.counts.received).toBeGreaterThanOrEqual(20 + 2);
    expect(report.drain).toMatchObject({ timedOut: true, complete: false });
    expect(report.drain.durationMs).toBeGreaterThanOrEqual(3000);
    expect(report.drain.durationMs).toBeLessThan(6000);
    expect(r.ms).toBeLessThan(25_000);
  }, 60_000);
});
