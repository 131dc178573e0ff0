import { inject, test, expect } from 'vitest';
import pg from 'pg';
import { clonePgmq, NO_RELEASES } from '../helpers/real-pgmq.js';

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
const installs = inject('pgmqInstalls');
test.skipIf(installs.length === 0)(
  `real pgmq releases are installed as templates, in both forms${installs.length ? '' : ` (${NO_RELEASES})`}`,
  async () => {
    expect(installs.map((i) => i.label)).toEqual([
      'pgmq 1.4.4 (extension)',
      'pgmq 1.5.1 (plain SQL)',
      'pgmq 1.5.1 (extension)',
      'pgmq 1.13.0 (plain SQL)',
      'pgmq 1.13.0 (extension)',
    ]);
    expect(Object.keys(inject('pgmqReleases')).sort()).toEqual(['1.13.0', '1.4.4', '1.5.1']);
    for (const { label, release, form, template } of installs) {
      // Templates are cloned, never used: a connection to a template blocks every clone.
      const url = await clonePgmq(template, `harness_${release.replaceAll('.', '_')}_${form}`);
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        const q = await c.query(
          "SELECT to_regclass('pgmq.meta') AS meta, to_regclass('pgmq.smq_compat') AS compat, (SELECT extversion FROM pg_extension WHERE extname = 'pgmq') AS ext",
        );
        expect(q.rows[0].meta, label).not.toBeNull();
        expect(q.rows[0].compat, label).toBeNull();
        expect(q.rows[0].ext, label).toBe(form === 'extension' ? release : null);
        // headers arrived in 1.5: a cheap check that each template is the release it claims to be.
        await c.query("SELECT pgmq.create('h')");
        const cols = await c.query("SELECT column_name FROM information_schema.columns WHERE table_schema='pgmq' AND table_name='q_h'");
        expect(
          cols.rows.some((r) => r.column_name === 'headers'),
          label,
        ).toBe(release !== '1.4.4');
        await c.query("SELECT pgmq.drop_queue('h')");
      } finally {
        await c.end();
      }
    }
  },
);
