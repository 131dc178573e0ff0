// smq top's queue details (issue 18): `i` on the queue list shows how the highlighted queue is
// stored. pgmq (smq's compat schema): created at, unlogged, partitioned, insert notifications,
// the FIFO index, and for q_ and a_ their sizes, live and dead tuples, vacuum times and
// indexes, compared with what the test reads from the catalog itself. SmoothMQ: the queue's
// settings and the file. Keys go in bursts.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { openBackend } from '../../src/backends/index.js';
import { formatBytes } from '../../src/ui/model/details.js';
import { tmuxAvailable } from '../helpers/tmux.js';
import { makeTempDir } from '../helpers/backends.js';
import { createDatabase } from '../helpers/real-pgmq.js';
import { installSchema } from '../helpers/schema.js';
import { killTop, lastLine, requireBuild, startTop, topOn } from '../helpers/top-screen.js';

afterEach(killTop);
beforeAll(requireBuild);

const tag = () => randomBytes(3).toString('hex');
const tmuxDescribe = tmuxAvailable() ? describe : describe.skip;

tmuxDescribe('queue details on pgmq (compat schema, real terminal)', () => {
  const p = `det${tag()}`;
  const [logged, unlogged] = [`${p}_a`, `${p}_b`];
  let url: string;
  let c: pg.Client;

  beforeAll(async () => {
    url = await createDatabase(inject('pgUrl'), `topdetails_${tag()}`);
    await installSchema(url);
    c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('SELECT pgmq.create($1)', [logged]);
    await c.query('SELECT pgmq.create_unlogged($1)', [unlogged]);
    await c.query('SELECT pgmq.create_fifo_index($1)', [logged]);
    await c.query('SELECT pgmq.enable_notify_insert($1, 250)', [logged]);
    await c.query(`SELECT pgmq.send_batch($1, (SELECT array_agg(jsonb_build_object('n', i)) FROM generate_series(1, 3000) i))`, [logged]);
    await c.query('SELECT pgmq.archive($1, 1::bigint)', [logged]);
    // Autovacuum would take the 1,000 dead tuples away before the screen shows them.
    await c.query(`ALTER TABLE pgmq.${pg.escapeIdentifier(`q_${logged}`)} SET (autovacuum_enabled = false)`);
    await c.query(`DELETE FROM pgmq.${pg.escapeIdentifier(`q_${logged}`)} WHERE msg_id <= 1000`);
    await c.query('SELECT pg_stat_force_next_flush()');
  });
  afterAll(async () => {
    await c?.end();
  });

  test('i shows created at, notify, FIFO index, tables with sizes and dead tuples; Enter opens the queue; Esc goes back', async () => {
    const t = await topOn(url, p, { width: 110, height: 40 });
    const sizes = (
      await c.query<{ t: string; i: string }>(
        `SELECT pg_table_size(format('pgmq.%I', 'q_' || $1::text)::regclass)::text AS t,
                pg_indexes_size(format('pgmq.%I', 'q_' || $1::text)::regclass)::text AS i`,
        [logged],
      )
    ).rows[0]!;
    expect(lastLine(await t.waitFor(`› ${logged}`))).toContain('i details');
    // 3,000 sent, message 1 archived, 999 more deleted: 2,000 live, 1,000 dead in q_.
    t.keys('i');
    let screen = await t.waitFor(/tuples +2,000 live · 1,000 dead/);
    expect(screen).toContain(`${logged} · details`);
    expect(screen).toMatch(/^created at +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\(\S+ ago\)$/m);
    expect(screen).toMatch(/^unlogged +no$/m);
    expect(screen).toMatch(/^partitioned +no$/m);
    expect(screen).toMatch(/^insert notify +on, at most one per 250 ms$/m);
    expect(screen).toMatch(new RegExp(`^FIFO index +q_${logged}_fifo_idx$`, 'm'));
    expect(screen).toContain(`queue table  pgmq.q_${logged}`);
    expect(screen).toContain(`size              ${formatBytes(Number(sizes.t))} table · ${formatBytes(Number(sizes.i))} indexes`);
    expect(screen).toMatch(new RegExp(`indexes +q_${logged}_fifo_idx, q_${logged}_pkey, q_${logged}_vt_idx`));
    expect(screen).toContain(`archive table  pgmq.a_${logged}`);
    expect(screen).toMatch(/tuples +1 live · 0 dead/);
    expect(screen).toMatch(/last autovacuum +(never|\d{4}-)/);
    expect(lastLine(screen)).toBe('Enter open the queue · r refresh · Esc back · ? help · ^C quit');

    // Enter opens the queue; Esc back to the list; Down i: the unlogged queue's details (one burst).
    t.keys('Enter');
    await t.waitFor(`${logged} · oldest first`);
    t.keys('Escape', 'Down', 'i');
    screen = await t.waitFor(`${unlogged} · details`);
    expect(screen).toMatch(/^unlogged +yes \(not crash-safe, not replicated\)$/m);
    expect(screen).toMatch(/^insert notify +off$/m);
    expect(screen).toMatch(/^FIFO index +none/m);
    t.keys('Escape', '?');
    screen = await t.waitFor('Keys (queue list)');
    expect(screen).toMatch(/^i +the queue's details/m);
  });
});

describe('queue details on a SmoothMQ file (real terminal)', () => {
  test.skipIf(!tmuxAvailable())('settings and the file', async () => {
    const tmp = makeTempDir('smq-details-');
    try {
      const file = join(tmp.dir, 'smoothmq.sqlite');
      const b = await openBackend({ kind: 'sqlite', path: file }, { create: true });
      try {
        await b.createQueue('jobs', { visibilityTimeoutSec: 45, maxRetries: 4 });
      } finally {
        await b.close();
      }
      const t = startTop(['--sqlite', file, '--interval', '1'], { width: 110, height: 24 });
      await t.waitFor(/1 of 1 queue/);
      t.keys('i');
      // The title comes first, the settings after a read ("loading…" between).
      const screen = await t.waitFor(/^visibility +45s$/m);
      expect(screen).toContain('jobs · details');
      expect(screen).toMatch(/^max retries +4$/m);
      expect(screen).toMatch(/^file +\d+\.\d kB · WAL .* \(every queue of the file\)$/m);
      expect(screen).not.toContain('queue table');
    } finally {
      killTop();
      tmp.cleanup();
    }
  });
});
