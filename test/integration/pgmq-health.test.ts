// top's health line on pgmq (issue 18), as pg_activity does it: what holds back vacuum for
// this database (a transaction open for a while, with its state, duration, application and
// client; or a replication slot no standby uses), never smq's own connection, and nothing
// when the horizon is fine. Real PostgreSQL, a database of the test's own; the words are
// unit-tested in test/unit/pgmq-health-words.test.ts.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { openBackend } from '../../src/backends/index.js';
import type { Backend } from '../../src/backends/types.js';
import { createDatabase } from '../helpers/real-pgmq.js';
import { installSchema } from '../helpers/schema.js';

describe('health: what holds back vacuum (real PostgreSQL)', () => {
  let url: string;
  let b: Backend;

  beforeAll(async () => {
    url = await createDatabase(inject('pgUrl'), `health_${randomBytes(4).toString('hex')}`);
    await installSchema(url);
    b = await openBackend({ kind: 'pgmq', url });
  });
  afterAll(async () => {
    await b?.close();
  });

  test("a quiet database: nothing about the horizon, and never smq's own connection", async () => {
    for (let i = 0; i < 3; i++) {
      const h = await b.health!();
      expect(h.summary).not.toMatch(/xmin|held|pid/);
      expect(h.warnings.join(' ')).not.toMatch(/pid/);
      expect(h.summary).toMatch(/dead tuples in queue tables: \d+/);
    }
  });

  test('a transaction left idle: its pid, state, duration, application and client, highlighted', async () => {
    const stuck = new pg.Client({ connectionString: url, application_name: 'stuck-worker' });
    await stuck.connect();
    try {
      const pid = (await stuck.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await stuck.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await stuck.query('SELECT txid_current(), count(*) FROM pg_class');
      // Under the threshold (5 s) it is an ordinary transaction.
      expect((await b.health!()).warnings.join(' ')).not.toContain(`pid ${pid}`);
      await new Promise((r) => setTimeout(r, 5_500));
      const h = await b.health!();
      const said = h.warnings.join(' · ');
      expect(said).toMatch(new RegExp(`vacuum held by pid ${pid} \\(stuck-worker, 127\\.0\\.0\\.1\\), idle in transaction for [5-9]s`));
      expect(h.summary).not.toContain(`pid ${pid}`);
    } finally {
      await stuck.end();
    }
    const after = await b.health!();
    expect([after.summary, ...after.warnings].join(' ')).not.toMatch(/held by pid/);
  });

  test('a transaction in another database does not hold back this one', async () => {
    const other = await createDatabase(inject('pgUrl'), `health_other_${randomBytes(4).toString('hex')}`);
    const c = new pg.Client({ connectionString: other });
    await c.connect();
    try {
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await c.query('SELECT txid_current()');
      await new Promise((r) => setTimeout(r, 5_500));
      const h = await b.health!();
      expect([h.summary, ...h.warnings].join(' ')).not.toMatch(/held by pid/);
    } finally {
      await c.end();
    }
  });
});
