// smq top's search inside a queue's messages (issue 18): `/` in the queue view, on a queue of
// 20,000 messages of the test's own making. pgmq (smq's compat schema): a JSON object matches
// by containment in the body or headers, other text by ILIKE with %, _ and \ matching
// themselves; the scan goes in steps of 5,000 rows with progress, and Esc stops it: the test
// holds a lock on the queue's table from outside so that the scan is seen under way. SmoothMQ:
// text in bodies and attributes. Keys go in bursts; the database is checked unchanged.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { openBackend } from '../../src/backends/index.js';
import { tmuxAvailable } from '../helpers/tmux.js';
import { makeTempDir } from '../helpers/backends.js';
import { createDatabase } from '../helpers/real-pgmq.js';
import { installSchema } from '../helpers/schema.js';
import { killTop, lastLine, requireBuild, startTop, topOn } from '../helpers/top-screen.js';

afterEach(killTop);
beforeAll(requireBuild);

const tag = () => randomBytes(3).toString('hex');
const tmuxDescribe = tmuxAvailable() ? describe : describe.skip;
const N = 20_000;

tmuxDescribe('search inside messages on pgmq (compat schema, real terminal)', () => {
  const q = `srch${tag()}`;
  let url: string;
  let c: pg.Client;
  const table = () => `pgmq.${pg.escapeIdentifier(`q_${q}`)}`;

  beforeAll(async () => {
    url = await createDatabase(inject('pgUrl'), `topsearch_${tag()}`);
    await installSchema(url);
    c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('SELECT pgmq.create($1)', [q]);
    // Every 5,000th message (ids 7, 5007, ...) is ACME's; id 12345 says "50%_off"; id 19000
    // has the header tenant=blue-whale; the rest are alike.
    await c.query(
      `SELECT count(*) FROM pgmq.send_batch($1,
         (SELECT array_agg(jsonb_build_object('n', i, 'customer',
            CASE WHEN i % 5000 = 7 THEN 'ACME_corp' WHEN i = 12345 THEN '50%_off' ELSE 'c' || (i % 100) END) ORDER BY i)
          FROM generate_series(1, $2::int) i))`,
      [q, N],
    );
    await c.query(`UPDATE ${table()} SET headers = '{"tenant":"blue-whale"}' WHERE msg_id = 19000`);
  });
  afterAll(async () => {
    await c?.end();
  });

  const unchanged = async () => {
    const r = await c.query<{ n: number; reads: number }>(
      `SELECT count(*)::int AS n, coalesce(sum(read_ct), 0)::int AS reads FROM ${table()}`,
    );
    expect(r.rows[0]).toEqual({ n: N, reads: 0 });
  };

  test('/ with a JSON object, with text, with % and _ and a header; Enter opens a match; Esc goes back', async () => {
    const t = await topOn(url, q, { width: 120, height: 24 });
    // One burst: open the queue, start a search, type a JSON object, run it.
    t.keys('Enter', '/');
    await t.waitFor('search: ');
    t.type('{"customer": "ACME_corp"}');
    t.keys('Enter');
    let screen = await t.waitFor(/done: 20,000 rows searched in [\d.]+s · 4 matches · 1\/4/);
    expect(screen).toContain(`${q} · search {"customer": "ACME_corp"} (JSON contains)`);
    for (const id of [7, 5007, 10007, 15007]) expect(screen).toMatch(new RegExp(`^[› ] +${id} ready `, 'm'));
    expect(lastLine(screen)).toBe('↑↓ move · Enter open · / search again · Esc stop / back · ? help · ^C quit');

    // Down Down Enter: the third match's detail; Esc back to the results, as they were.
    t.keys('Down', 'Down', 'Enter');
    screen = await t.waitFor(`${q} · message 10007`);
    t.keys('Escape');
    await t.waitFor('4 matches · 3/4');
    // Marks and actions are the queue view's: on the results they did nothing at all, silently.
    t.keys('Space', '*', 'd');
    screen = await t.waitFor('not on search results: Enter opens a match, to act on it there; Esc goes back to the queue');
    expect(screen).not.toMatch(/marked|Delete/);
    expect(screen).toContain('4 matches · 3/4');

    // Text, any case; % and _ are themselves: "%_" finds only "50%_off".
    t.keys('/', 'C-u');
    t.type('%_');
    t.keys('Enter');
    screen = await t.waitFor(/done: 20,000 rows searched in [\d.]+s · 1 match · 1\/1/);
    expect(screen).toContain('(text, any case)');
    expect(screen).toMatch(/^› 12345 ready .*50%_off/m);
    t.keys('/', 'C-u');
    t.type('acme_CORP');
    t.keys('Enter');
    await t.waitFor(/· 4 matches · 1\/4/);
    // A header's value, as text and as a JSON object.
    t.keys('/', 'C-u');
    t.type('BLUE-whale');
    t.keys('Enter');
    screen = await t.waitFor(/· 1 match · 1\/1/);
    expect(screen).toMatch(/^› 19000 ready .*tenant=blue-whale/m);
    t.keys('/', 'C-u');
    t.type('{"tenant": "blue-whale"}');
    t.keys('Enter');
    await t.waitFor(/\(JSON contains\)[\s\S]*· 1 match · 1\/1/);
    t.keys('/', 'C-u');
    t.type('no such text');
    t.keys('Enter');
    await t.waitFor('no message matches');

    // Esc leaves the search: the queue's own messages again; ? lists / in the queue view.
    t.keys('Escape');
    screen = await t.waitFor(`${q} · oldest first`);
    expect(lastLine(screen)).toContain('/ search');
    t.keys('?');
    screen = await t.waitFor('Keys (queue view)');
    expect(screen).toMatch(/^\/ +search bodies and headers/m);
    await unchanged();
  });

  test('a match deleted from its detail leaves the results (they listed it as ready, and Enter said it was gone)', async () => {
    const q2 = `srchdel${tag()}`;
    await c.query('SELECT pgmq.create($1)', [q2]);
    await c.query(
      `SELECT pgmq.send_batch($1, (SELECT array_agg(jsonb_build_object('n', i, 'who', CASE WHEN i % 3 = 0 THEN 'zed' ELSE 'amy' END)) FROM generate_series(1, 9) i))`,
      [q2],
    );
    const t = await topOn(url, q2, { width: 120, height: 24 });
    t.keys('Enter', '/');
    await t.waitFor('search: ');
    t.type('zed');
    t.keys('Enter');
    await t.waitFor(/· 3 matches · 1\/3/);
    t.keys('Down', 'Enter');
    await t.waitFor(`${q2} · message 6`);
    t.keys('d', 'y');
    await t.waitFor(`deleted message 6 in ${q2}`);
    t.keys('Escape');
    const screen = await t.waitFor(/· 2 matches · \d\/2/);
    expect(screen).not.toMatch(/^[› ] +6 /m);
    expect(screen).toMatch(/^[› ] +3 /m);
    expect(screen).toMatch(/^[› ] +9 /m);
  });

  test('the scan goes in steps with progress; Esc stops it after the step under way', async () => {
    const t = await topOn(url, q, { width: 120, height: 24 });
    t.keys('Enter');
    await t.waitFor(`${q} · oldest first`);
    // The test's own lock: the first step waits for it, so the scan is seen under way.
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${table()} IN ACCESS EXCLUSIVE MODE`);
      t.keys('/', 'C-u');
      t.type('c1');
      t.keys('Enter');
      await t.waitFor(/searching… 0 of ~?20\.0k rows read \(\d+s\) · 0 matches · Esc stops/);
      t.keys('Escape');
      await t.waitFor('stopping after this step… 0 of');
      await locker.query('COMMIT');
    } finally {
      await locker.end();
    }
    // One step of 5,000 rows, then it stops: 11, 21..91, 100..199 -> 1 + 9 + ... matches of "c1".
    const screen = await t.waitFor(/stopped after 5,000 rows \(ids up to 5000\) · \d+ matches/);
    expect(screen).not.toContain('done:');
    await unchanged();
  });
});

describe('search inside messages on a SmoothMQ file (real terminal)', () => {
  test.skipIf(!tmuxAvailable())('text in bodies and attributes, 20,000 messages', async () => {
    const tmp = makeTempDir('smq-search-');
    try {
      const file = join(tmp.dir, 'smoothmq.sqlite');
      const b = await openBackend({ kind: 'sqlite', path: file }, { create: true });
      let ids: bigint[] = [];
      try {
        await b.createQueue('jobs');
        const batch = Array.from({ length: N }, (_, i) => ({
          body: i === 4321 ? 'invoice for ACME_corp' : i === 17000 ? 'plain' : `job ${i % 100}`,
          ...(i === 17000 ? { headers: { region: 'Blue-Whale' } } : {}),
        }));
        ids = await b.sendBatch('jobs', batch);
      } finally {
        await b.close();
      }
      const t = startTop(['--sqlite', file, '--interval', '1'], { width: 140, height: 24 });
      await t.waitFor(/1 of 1 queue/);
      t.keys('Enter', '/');
      let screen = await t.waitFor('search: ');
      expect(screen).toContain('text in bodies and attributes');
      t.type('acme_');
      t.keys('Enter');
      screen = await t.waitFor(/done: 20,000 rows searched in [\d.]+s · 1 match · 1\/1/);
      expect(screen).toMatch(new RegExp(`^› ${ids[4321]} ready .*invoice for ACME_corp`, 'm'));
      t.keys('/', 'C-u');
      t.type('blue-whale');
      t.keys('Enter', 'Enter');
      screen = await t.waitFor(`jobs · message ${ids[17000]}`);
      expect(screen).toContain('Blue-Whale');
      const after = await openBackend({ kind: 'sqlite', path: file }, { readOnly: true });
      try {
        const s = await after.queueStats('jobs');
        expect([s.total, s.ready, s.inFlight]).toEqual([N, N, 0]);
      } finally {
        await after.close();
      }
    } finally {
      killTop();
      tmp.cleanup();
    }
  });
});
