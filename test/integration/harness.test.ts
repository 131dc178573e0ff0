import { inject, test, expect } from 'vitest';
import pg from 'pg';

test('the suite has its own Postgres 15 with the schema', async () => {
  const c = new pg.Client({ connectionString: inject('pgUrl') });
  await c.connect();
  const r = await c.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
  expect(Number(r.rows[0]?.v)).toBeGreaterThanOrEqual(150000);
  const s = await c.query("SELECT to_regclass('pgmq.smq_compat') AS t");
  expect(s.rows[0].t).not.toBeNull();
  await c.end();
});
