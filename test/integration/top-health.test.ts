// top's health line in a real terminal (issue 18): a transaction left idle in this database is
// named with its pid, application, client, state and duration, in yellow; top's own
// connection never is. Real PostgreSQL, a database of the test's own; the built `smq top`.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import { tmuxAvailable } from '../helpers/tmux.js';
import { createDatabase } from '../helpers/real-pgmq.js';
import { installSchema } from '../helpers/schema.js';
import { killTop, requireBuild, startTop } from '../helpers/top-screen.js';

afterEach(killTop);
beforeAll(requireBuild);

describe.skipIf(!tmuxAvailable())('health line: what holds back vacuum (real terminal, real Postgres)', () => {
  test('a transaction left idle is named in yellow; a quiet database names nobody', async () => {
    const url = await createDatabase(inject('pgUrl'), `tophealth_${randomBytes(4).toString('hex')}`);
    await installSchema(url);
    const t = startTop(['--url', url, '--interval', '1'], { width: 140, height: 12 });
    let screen = await t.waitFor(/^health: dead tuples in queue tables: \d+/m);
    expect(screen).not.toMatch(/held by|xmin/);
    const stuck = new pg.Client({ connectionString: url, application_name: 'stuck-worker' });
    await stuck.connect();
    try {
      const pid = (await stuck.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await stuck.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await stuck.query('SELECT txid_current(), count(*) FROM pg_class');
      // Named from 5 s on, at top's next health read (every 10 s).
      const held = `vacuum held by pid ${pid} (stuck-worker, 127.0.0.1), idle in transaction for`;
      screen = await t.waitFor(held, 25_000);
      const line = t
        .captureWithEscapes()
        .split('\n')
        .find((l) => l.includes(`pid ${pid}`))!;
      expect(line).toMatch(new RegExp(`\\u001b\\[33m[^\\n]*vacuum held by pid ${pid}`));
    } finally {
      await stuck.end();
    }
  }, 60_000);
});
