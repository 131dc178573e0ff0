// The drain's end on real PostgreSQL, with the faults injected from outside by the test's own
// SQL: one acknowledged send that never arrives (an insert trigger deletes its row) and one
// message that can never be deleted (a delete trigger raises), redelivered every --vt.
// Before: every redelivery of the undeletable message counted as "something new" and reset the
// drain's idle clock, so the drain never ended (a user's 3 s run had to be killed after 60 s).
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import type { TesterReport } from '../../src/tester/index.js';
import { ensureBuilt, runCli } from '../helpers/run-cli.js';
import { loadTester } from '../helpers/tester-dist.js';

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

describe('a drain of an earlier run (--senders 0) cannot judge loss nor unexpected messages (PostgreSQL)', () => {
  test('two kept messages deleted and one forged by the test SQL: lost and unexpected not judged (null), the gaps named, verdict not clean', async () => {
    const sql = await client();
    const url = inject('pgUrl');
    const queue = `tdo_${randomBytes(4).toString('hex')}`;
    const runId = `run${randomBytes(3).toString('hex')}`;
    cleanups.push(() => sql.query(`SELECT pgmq.drop_queue('${queue}')`).catch(() => undefined));
    const fill = await runCli(
      ['tester', '--url', url, '--queue', queue, '--senders', '1', '--receivers', '0', '--messages', '20'].concat([
        '--keep',
        '--run-id',
        runId,
        '--json',
      ]),
      { timeoutMs: 30_000 },
    );
    expect(JSON.parse(fill.stdout)).toMatchObject({ counts: { sent: 20, notDrained: 20 } });
    // From outside the tester: two acknowledged messages vanish (seq 2 and 3), one is forged (seq 999).
    await sql.query(`DELETE FROM pgmq.q_${queue} WHERE message->>'q' IN ('2', '3')`);
    await sql.query(
      `INSERT INTO pgmq.q_${queue} (vt, message) SELECT vt, jsonb_set(message, '{q}', '999') FROM pgmq.q_${queue} WHERE message->>'q' = '4'`,
    );
    const args = [
      'tester',
      '--url',
      url,
      '--queue',
      queue,
      '--senders',
      '0',
      '--receivers',
      '1',
      '--run-id',
      runId,
      '--drain-timeout',
      '2s',
    ];
    const r = await runCli([...args, '--json'], { timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(6);
    const report = JSON.parse(r.stdout) as TesterReport;
    expect(report.verdict).toBe('incomplete');
    expect(report.counts.lost).toBeNull();
    expect(report.counts.unexpected).toBeNull();
    expect(report.notJudged.map((n) => n.class)).toEqual(['lost', 'unexpected']);
    expect(report.counts).toMatchObject({ received: 19, ok: 19 });
    const w = report.tester.warnings.find((x) => x.includes('below the highest'));
    expect(w).toMatch(/^sender 0: 981 sequence number\(s\) below the highest one seen \(999\) never came: seq 2, 3, 20, 21, 22/);
    // The text says so too, never 0 and never clean.
    const { formatReport } = await loadTester();
    const text = formatReport(report);
    expect(text).toMatch(/^ok +19 +lost +not judged +double-dequeue +0$/m);
    expect(text).toMatch(/resurrected +0 +unexpected +not judged$/m);
    expect(text).toMatch(/^not judged {2}lost, unexpected: /m);
    expect(text).toMatch(/^verdict +incomplete /m);
    expect(text).not.toMatch(/verdict\s+clean/);
    // Nothing was sent by this run: no end-to-end nor send latency was measured, and none is shown as 0.
    expect(report.latency.endToEnd).toMatchObject({ count: 0, p50: null, p99: null, max: null });
    expect(report.latency.send).toMatchObject({ count: 0, p50: null, p99: null, max: null });
    expect(report.latency.receive.count).toBeGreaterThan(0);
    expect(text).toMatch(/^end-to-end +– +– +– +– +– +0$/m);
    expect(text).toMatch(/^send +– +– +– +– +– +0$/m);
    const { htmlReport } = await loadTester();
    expect(htmlReport(report)).toMatch(/end-to-end +– +– +– +– +– +0/);
    // tester compare reads such a report (a latency without samples is left out, not compared as 0).
    const file = join(tmpdir(), `smq-drain-${randomBytes(4).toString('hex')}.json`);
    writeFileSync(file, r.stdout);
    cleanups.push(async () => rmSync(file, { force: true }));
    const cmp = await runCli(['tester', 'compare', file, file]);
    expect(cmp.code, cmp.stderr).toBe(0);
    expect(cmp.stdout).not.toMatch(/endToEnd.*p50/);
  }, 90_000);
});

describe('a send-only run (--receivers 0) on SQLite', () => {
  test('the messages left in the queue are explained by no receiver having run, not by a lost receive', async () => {
    const { tempSqlite } = await import('../helpers/tester-dist.js');
    const db = tempSqlite();
    try {
      expect((await runCli(['init', '--sqlite', db.path])).code).toBe(0);
      const r = await runCli(['tester', '--sqlite', db.path, '--senders', '1', '--receivers', '0', '--messages', '5', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as TesterReport;
      expect(report.counts.notDrained).toBe(5);
      const w = report.tester.warnings.filter((x) => x.includes('still in the queue'));
      expect(w).toEqual([
        '5 acknowledged message(s) are still in the queue: no receiver ran (--receivers 0), so they were not drained; not judged as lost',
      ]);
      expect(report.tester.warnings.join('\n')).not.toContain('claimed by a receive');
    } finally {
      db.cleanup();
    }
  });
});
