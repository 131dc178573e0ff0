import { inject, test, expect } from 'vitest';
import pg from 'pg';
import { clonePgmq } from '../helpers/real-pgmq.js';

test('the suite has its own Postgres 15 with the schema', async () => {
  const c = new pg.Client({ connectionString: inject('pgUrl') });
  await c.connect();
  const r = await c.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
  expect(Number(r.rows[0]?.v)).toBeGreaterThanOrEqual(150000);
  const s = await c.query("SELECT to_regclass('pgmq.smq_compat') AS t");
  expect(s.rows[0].t).not.toBeNull();
  await c.end();
});

// The real releases are there when .ci/run found ../shared/pgmq; on a user's machine they are not.
const releases = inject('pgmqReleases');
test.skipIf(Object.keys(releases).length === 0)(
  'real pgmq releases are installed as templates (skipped: SMQ_TEST_PGMQ_DIR not set)',
  async () => {
    expect(Object.keys(releases).sort()).toEqual(['1.13.0', '1.4.4', '1.5.1']);
    for (const [release, template] of Object.entries(releases)) {
      // Templates are cloned, never used: a connection to a template blocks every clone.
      const url = await clonePgmq(template, `harness_${release.replaceAll('.', '_')}`);
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        const q = await c.query("SELECT to_regclass('pgmq.meta') AS meta, to_regclass('pgmq.smq_compat') AS compat");
        expect(q.rows[0].meta, release).not.toBeNull();
        expect(q.rows[0].compat, release).toBeNull();
        // headers arrived in 1.5: a cheap check that each template is the release it claims to be.
        await c.query("SELECT pgmq.create('h')");
        const cols = await c.query("SELECT column_name FROM information_schema.columns WHERE table_schema='pgmq' AND table_name='q_h'");
        expect(
          cols.rows.some((r) => r.column_name === 'headers'),
          release,
        ).toBe(release !== '1.4.4');
        await c.query("SELECT pgmq.drop_queue('h')");
      } finally {
        await c.end();
      }
    }
  },
);
