// What a run cost the database (pgmq): the report's figures against the server's own
// statistics, read by the test itself after the run on the kept queue's tables.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { ensureBuilt } from '../helpers/run-cli.js';
import { baseConfig, loadTester, tempSqlite } from '../helpers/tester-dist.js';

const url = inject('pgUrl');
const admin = new pg.Client({ connectionString: url });
beforeAll(async () => {
  ensureBuilt();
  await admin.connect();
});
afterAll(() => admin.end());

/** The server's counters for a table, once the closed connections' inserts and deletes have arrived. */
async function statsOf(table: string, inserted: number, deleted: number) {
  for (let i = 0; ; i++) {
    const { rows } = await admin.query(
      `SELECT n_tup_ins::int AS ins, n_tup_upd::int AS upd, n_tup_del::int AS del, pg_relation_size(relid)::int AS size
         FROM pg_stat_user_tables WHERE schemaname = 'pgmq' AND relname = $1`,
      [table],
    );
    if (((rows[0]?.ins ?? 0) >= inserted && (rows[0]?.del ?? 0) >= deleted) || i > 20) return rows[0];
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('tester: what the run cost the database', () => {
  test.each(['delete', 'archive'] as const)('--ack %s: rows, WAL and size per message agree with the server', async (ack) => {
    const { TesterRun, formatReport } = await loadTester();
    const queue = `tt_db_${ack}_${Date.now().toString(36)}`;
    const report = await new TesterRun(baseConfig({ kind: 'pgmq', url }, { queue, keep: true, ack })).run();
    try {
      expect(report.verdict).toBe('clean');
      const sent = report.counts.sent;
      expect(sent).toBe(600);
      const db = report.database!;
      expect(db.walBytes).toBeGreaterThan(sent * 100); // at least a body's worth per message
      expect(db.walBytesPerMessage).toBeCloseTo(db.walBytes / sent);
      const q = db.tables.find((t) => t.table === `q_${queue}`)!;
      const a = db.tables.find((t) => t.table === `a_${queue}`)!;
      const qStats = await statsOf(`q_${queue}`, sent, sent);
      const aStats = await statsOf(`a_${queue}`, ack === 'archive' ? sent : 0, 0);
      // A fresh queue: the server's totals are the run's.
      expect(q).toMatchObject({ inserted: qStats.ins, updated: qStats.upd, deleted: qStats.del, tableBytesAfter: qStats.size });
      expect(a).toMatchObject({ inserted: aStats.ins, deleted: aStats.del });
      expect(q.inserted).toBe(sent);
      expect(q.updated).toBeGreaterThanOrEqual(sent); // every read sets the lease
      expect(q.deleted).toBe(sent);
      expect(a.inserted).toBe(ack === 'archive' ? sent : 0);
      const text = formatReport(report);
      expect(text).toMatch(/^database {4}[\d.,]+ (B|kB) of WAL per message \([\d.]+ (kB|MB) in all, the whole server's\)$/m);
      expect(text).toContain(`q_${queue}: 600 inserted,`);
    } finally {
      await admin.query('SELECT pgmq.drop_queue($1)', [queue]);
    }
  });

  test('SQLite has no such counters: the report says nothing of them', async () => {
    const { TesterRun, formatReport } = await loadTester();
    const file = tempSqlite();
    try {
      const report = await new TesterRun(baseConfig({ kind: 'sqlite', path: file.path }, { createSqlite: true })).run();
      expect(report.database).toBeNull();
      expect(formatReport(report)).not.toMatch(/^database/m);
    } finally {
      file.cleanup();
    }
  });
});
