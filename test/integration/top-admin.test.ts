// Creating and dropping queues from smq top's list (issue 18): `n` asks for a name (checked
// as `smq create` checks it), Ctrl-D asks about the highlighted queue naming its messages,
// and wants the name typed when it has any; --read-only refuses both. The built `smq top` in
// tmux, keys in bursts, against PostgreSQL (smq's compat schema) and a SmoothMQ file, with
// the database checked after each key.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import Database from 'better-sqlite3';
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

describe.skipIf(!tmuxAvailable())('create and drop on pgmq (compat schema, real terminal)', () => {
  const p = `adm${tag()}`;
  const [full, empty] = [`${p}_a`, `${p}_b`];
  let url: string;
  let c: pg.Client;
  const queues = async () =>
    (await c.query<{ queue_name: string }>('SELECT queue_name FROM pgmq.meta WHERE queue_name LIKE $1 ORDER BY 1', [`${p}%`])).rows.map(
      (r) => r.queue_name,
    );

  beforeAll(async () => {
    url = await createDatabase(inject('pgUrl'), `topadmin_${tag()}`);
    await installSchema(url);
    c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('SELECT pgmq.create($1)', [full]);
    await c.query('SELECT pgmq.create($1)', [empty]);
    await c.query(`SELECT pgmq.send_batch($1, ARRAY['{"n":1}','{"n":2}','{"n":3}']::jsonb[])`, [full]);
    await c.query('SELECT pgmq.archive($1, 1::bigint)', [full]);
  });
  afterAll(async () => {
    await c?.end();
  });

  test('n creates (a bad name is one line), Ctrl-D drops: typed name for a queue with messages, y for an empty one', async () => {
    const t = await topOn(url, p, { width: 120, height: 30 });
    let screen = await t.waitFor(`› ${full}`);
    expect(lastLine(screen)).toContain('n new');
    // A name pgmq refuses: one line, nothing created.
    t.keys('n');
    await t.waitFor('create queue: ');
    t.type(`${p}_x;y`);
    t.keys('Enter');
    screen = await t.waitFor(`invalid queue name "${p}_x;y": it contains ";"`);
    expect(await queues()).toEqual([full, empty]);
    // A good one: created plain (not unlogged), and on the list.
    t.keys('n');
    await t.waitFor('create queue: ');
    t.type(`${p}_c`);
    t.keys('Enter');
    await t.waitFor(`created queue "${p}_c"`);
    expect(await queues()).toEqual([full, empty, `${p}_c`]);
    const meta = (await c.query<{ is_unlogged: boolean }>('SELECT is_unlogged FROM pgmq.meta WHERE queue_name = $1', [`${p}_c`])).rows[0]!;
    expect(meta.is_unlogged).toBe(false);
    await t.waitFor(new RegExp(`^  ${p}_c\\s+0\\s`, 'm'));

    // Ctrl-D on the queue with messages: its count, its archive, and its name to type.
    t.keys('g', 'C-d');
    screen = await t.waitFor(`Drop queue ${full} and its 2 messages (and 1 archived)? Type its name to confirm:`);
    t.type(`${p}_b`);
    t.keys('Enter');
    await t.waitFor('drop cancelled: the name did not match');
    expect(await queues()).toEqual([full, empty, `${p}_c`]);
    t.keys('C-d');
    await t.waitFor(`Drop queue ${full} and its 2 messages`);
    t.type(full);
    t.keys('Enter');
    await t.waitFor(`dropped queue ${full}`);
    expect(await queues()).toEqual([empty, `${p}_c`]);
    const tables = await c.query('SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename IN ($2, $3)', [
      'pgmq',
      `q_${full}`,
      `a_${full}`,
    ]);
    expect(tables.rowCount).toBe(0);
    screen = await t.waitFor((s) => !new RegExp(`^. ${full}\\s`, 'm').test(s));

    // An empty queue: y is enough; n (or Esc) keeps it. Keys in a burst.
    await t.waitFor(`› ${empty}`);
    t.keys('C-d');
    await t.waitFor(`Drop queue ${empty} (empty)? [y/N]`);
    t.keys('n');
    await t.waitFor('cancelled');
    expect(await queues()).toEqual([empty, `${p}_c`]);
    t.keys('Down', 'C-d');
    await t.waitFor(`Drop queue ${p}_c (empty)? [y/N]`);
    t.keys('y');
    await t.waitFor(`dropped queue ${p}_c`);
    expect(await queues()).toEqual([empty]);
    t.keys('?');
    screen = await t.waitFor('Keys (queue list)');
    expect(screen).toMatch(/^n +create a queue/m);
    expect(screen).toMatch(/^Ctrl-D +drop the queue \(type its name when it has messages\)/m);
    t.keys('q');
  }, 90_000);

  test('--read-only: n and Ctrl-D are refused in one line; nothing changes', async () => {
    const before = await queues();
    const t = await topOn(url, p, { width: 120, height: 30, args: ['--read-only'] });
    let screen = await t.waitFor(`› ${p}_`);
    expect(lastLine(screen)).not.toMatch(/new|drop/);
    t.keys('n');
    screen = await t.waitFor('read-only: actions are disabled (top was started with --read-only)');
    expect(screen).not.toContain('create queue:');
    t.keys('C-d');
    await t.waitFor('read-only: actions are disabled');
    t.keys('?');
    screen = await t.waitFor('Keys (queue list)');
    expect(screen).not.toMatch(/^Ctrl-D/m);
    expect(await queues()).toEqual(before);
  }, 60_000);
});

describe.skipIf(!tmuxAvailable())('create and drop on a SmoothMQ file (real terminal)', () => {
  test('n makes the queue smq create makes; Ctrl-D with the name typed drops it and its messages', async () => {
    const tmp = makeTempDir('smq-admin-');
    try {
      const file = join(tmp.dir, 'smoothmq.sqlite');
      const b = await openBackend({ kind: 'sqlite', path: file }, { create: true });
      try {
        await b.createQueue('ref'); // what `smq create ref` makes
        await b.createQueue('jobs');
        await b.sendBatch('jobs', [{ body: 'a' }, { body: 'b' }]);
      } finally {
        await b.close();
      }
      const t = startTop(['--sqlite', file, '--interval', '1'], { width: 110, height: 24 });
      await t.waitFor(/2 of 2 queues/);
      t.keys('n');
      await t.waitFor('create queue: ');
      t.type('new jobs ✓');
      t.keys('Enter');
      await t.waitFor('created queue "new jobs ✓"');
      await t.waitFor(/3 of 3 queues/);
      const db = new Database(file, { readonly: true });
      try {
        const settings = db.prepare('SELECT rate_limit, max_retries, visibility_timeout, tenant_id FROM queues WHERE name = ?');
        expect(settings.get('new jobs ✓')).toEqual(settings.get('ref'));
      } finally {
        db.close();
      }
      // The list is sorted by name: jobs, new jobs ✓, ref.
      t.keys('g', 'C-d');
      await t.waitFor('Drop queue jobs and its 2 messages? Type its name to confirm:');
      t.type('jobs');
      t.keys('Enter');
      await t.waitFor('dropped queue jobs');
      const after = new Database(file, { readonly: true });
      try {
        expect(after.prepare('SELECT name FROM queues ORDER BY name').all()).toEqual([{ name: 'new jobs ✓' }, { name: 'ref' }]);
        expect(after.prepare('SELECT count(*) AS n FROM messages').get()).toEqual({ n: 0 });
      } finally {
        after.close();
      }
      t.keys('q');
      expect(await t.waitForExit()).toBe(0);
    } finally {
      killTop();
      tmp.cleanup();
    }
  }, 60_000);
});

describe.skipIf(!tmuxAvailable())('Ctrl-D on an empty queue that gets messages before the y (real terminal)', () => {
  test('pgmq: the y drops nothing and says so in one line, the queue and its 50 messages stay; typing the name then drops it', async () => {
    const url = inject('pgUrl');
    const p = `vic${tag()}`;
    const victim = `${p}_v`;
    const b = await openBackend({ kind: 'pgmq', url });
    try {
      await b.createQueue(victim);
      const t = await topOn(url, p, { width: 120, height: 30 });
      await t.waitFor(`› ${victim}`);
      t.keys('C-d');
      await t.waitFor(`Drop queue ${victim} (empty)? [y/N]`);
      await b.sendBatch(
        victim,
        Array.from({ length: 50 }, (_, i) => ({ body: JSON.stringify({ i }) })),
      );
      t.keys('y');
      await t.waitFor(`not dropped: queue ${victim} now holds 50 messages`);
      expect((await b.queueStats(victim)).total).toBe(50);
      t.keys('C-d');
      await t.waitFor(`Drop queue ${victim} and its 50 messages? Type its name to confirm:`);
      t.type(victim);
      t.keys('Enter');
      await t.waitFor(`dropped queue ${victim}`);
      expect((await b.listQueues()).some((s) => s.name === victim)).toBe(false);
    } finally {
      await b.dropQueue(victim).catch(() => undefined);
      await b.close();
    }
  }, 60_000);

  test('SmoothMQ: the y drops nothing and says so in one line, the queue and its messages stay', async () => {
    const tmp = makeTempDir('smq-admin-victim-');
    try {
      const file = join(tmp.dir, 'smoothmq.sqlite');
      const b = await openBackend({ kind: 'sqlite', path: file }, { create: true });
      try {
        await b.createQueue('victim');
        const t = startTop(['--sqlite', file, '--interval', '1'], { width: 110, height: 24 });
        await t.waitFor('› victim');
        t.keys('C-d');
        await t.waitFor('Drop queue victim (empty)? [y/N]');
        await b.sendBatch(
          'victim',
          Array.from({ length: 50 }, (_, i) => ({ body: `m${i}` })),
        );
        t.keys('y');
        await t.waitFor('not dropped: queue victim now holds 50 messages');
        const db = new Database(file, { readonly: true });
        try {
          expect(db.prepare('SELECT name FROM queues').all()).toEqual([{ name: 'victim' }]);
          expect(db.prepare('SELECT count(*) AS n FROM messages').get()).toEqual({ n: 50 });
        } finally {
          db.close();
        }
      } finally {
        await b.close();
      }
    } finally {
      killTop();
      tmp.cleanup();
    }
  }, 60_000);

  test("pgmq: messages sent before the typed name's Enter keep the queue; one line gives both counts; Ctrl-D again drops it", async () => {
    const url = inject('pgUrl');
    const p = `grw${tag()}`;
    const victim = `${p}_v`;
    const b = await openBackend({ kind: 'pgmq', url });
    try {
      await b.createQueue(victim);
      await b.send(victim, { body: '{"first": true}' });
      const t = await topOn(url, p, { width: 140, height: 30 });
      await t.waitFor(`› ${victim}`);
      t.keys('C-d');
      await t.waitFor(`Drop queue ${victim} and its 1 message? Type its name to confirm:`);
      await b.sendBatch(
        victim,
        Array.from({ length: 100 }, (_, i) => ({ body: JSON.stringify({ i }) })),
      );
      t.type(victim);
      t.keys('Enter');
      await t.waitFor(`not dropped: queue ${victim} now holds 101 messages (the question said 1): press Ctrl-D again to drop it`);
      expect((await b.queueStats(victim)).total).toBe(101);
      t.keys('C-d');
      await t.waitFor(`Drop queue ${victim} and its 101 messages? Type its name to confirm:`);
      t.type(victim);
      t.keys('Enter');
      await t.waitFor(`dropped queue ${victim}`);
      expect((await b.listQueues()).some((s) => s.name === victim)).toBe(false);
    } finally {
      await b.dropQueue(victim).catch(() => undefined);
      await b.close();
    }
  }, 60_000);

  test("SmoothMQ: messages sent before the typed name's Enter keep the queue and its messages", async () => {
    const tmp = makeTempDir('smq-admin-grown-');
    try {
      const file = join(tmp.dir, 'smoothmq.sqlite');
      const b = await openBackend({ kind: 'sqlite', path: file }, { create: true });
      try {
        await b.createQueue('grown');
        await b.send('grown', { body: 'first' });
        const t = startTop(['--sqlite', file, '--interval', '1'], { width: 140, height: 24 });
        await t.waitFor('› grown');
        t.keys('C-d');
        await t.waitFor('Drop queue grown and its 1 message? Type its name to confirm:');
        await b.sendBatch(
          'grown',
          Array.from({ length: 100 }, (_, i) => ({ body: `m${i}` })),
        );
        t.type('grown');
        t.keys('Enter');
        await t.waitFor('not dropped: queue grown now holds 101 messages (the question said 1): press Ctrl-D again to drop it');
        const db = new Database(file, { readonly: true });
        try {
          expect(db.prepare('SELECT name FROM queues').all()).toEqual([{ name: 'grown' }]);
          expect(db.prepare('SELECT count(*) AS n FROM messages').get()).toEqual({ n: 101 });
        } finally {
          db.close();
        }
      } finally {
        await b.close();
      }
    } finally {
      killTop();
      tmp.cleanup();
    }
  }, 60_000);
});
