// An operator's morning in smq top, end to end and without leaving the keyboard (issue 18):
// find the poison message at the head of a FIFO group and archive it, move a dead-letter
// queue's messages back to the work queue and export them to NDJSON, then switch database
// (a second PostgreSQL database reached with a password full of @#/?: from the contexts
// file, a server that is down, a SmoothMQ file) and back. The built `smq top` in tmux, keys
// in bursts; the database is checked after each step.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { openBackend } from '../../src/backends/index.js';
import { tmuxAvailable } from '../helpers/tmux.js';
import { makeTempDir } from '../helpers/backends.js';
import { freePort } from '../helpers/pg-server.js';
import { createDatabase } from '../helpers/real-pgmq.js';
import { installSchema } from '../helpers/schema.js';
import { killTop, requireBuild, startTop } from '../helpers/top-screen.js';

afterEach(killTop);
beforeAll(requireBuild);

const tag = randomBytes(3).toString('hex');
const ROLE = `ops_${tag}`;
const PASSWORD = `p@ss#w/rd?:${tag}`;
const DLQ_BODIES = [1, 2, 3, 4].map((n) => JSON.stringify({ order: n, sku: `A-${n}` }));

describe.skipIf(!tmuxAvailable())('smq top: an operator end to end (real terminal, two databases, a SmoothMQ file)', () => {
  const tmp = makeTempDir('smq-top-operator-');
  let workUrl: string;
  let billingUrl: string;
  let work: pg.Client;
  let billing: pg.Client;
  let poisonId: string;
  const admin = () => new pg.Client({ connectionString: inject('pgUrl') });

  beforeAll(async () => {
    workUrl = await createDatabase(inject('pgUrl'), `op_work_${tag}`);
    billingUrl = await createDatabase(inject('pgUrl'), `op_billing_${tag}`);
    await installSchema(workUrl);
    await installSchema(billingUrl);
    const a = admin();
    await a.connect();
    await a.query(`CREATE ROLE ${ROLE} LOGIN SUPERUSER PASSWORD '${PASSWORD}'`);
    await a.end();
    work = new pg.Client({ connectionString: workUrl });
    await work.connect();
    billing = new pg.Client({ connectionString: billingUrl });
    await billing.connect();

    // The work queue: FIFO groups; customer-1's head was handed out 3 times and never deleted.
    await work.query(`SELECT pgmq.create('orders')`);
    const send = async (queue: string, body: string, group?: string) =>
      (
        await work.query<{ id: string }>('SELECT pgmq.send($1, $2::jsonb, $3::jsonb, 0)::text AS id', [
          queue,
          body,
          group ? JSON.stringify({ 'x-pgmq-group': group }) : null,
        ])
      ).rows[0]!.id;
    poisonId = await send('orders', '{"order": 100, "poison": true}', 'customer-1');
    await send('orders', '{"order": 101}', 'customer-1');
    await send('orders', '{"order": 200}', 'customer-2');
    for (let i = 0; i < 3; i++) await work.query(`SELECT * FROM pgmq.read_grouped('orders', 0, 1)`);
    // The dead-letter queue: four messages read three times, one never read.
    await work.query(`SELECT pgmq.create('orders_dlq')`);
    for (const body of DLQ_BODIES) await send('orders_dlq', body);
    for (let i = 0; i < 3; i++) await work.query(`SELECT * FROM pgmq.read('orders_dlq', 0, 4)`);
    await send('orders_dlq', '{"order": 5, "sku": "A-5"}');

    // The other database, reached as another role, and a SmoothMQ file.
    await billing.query(`SELECT pgmq.create('invoices')`);
    await billing.query(`SELECT pgmq.send('invoices', '{"invoice": 7}')`);
    const smooth = await openBackend({ kind: 'sqlite', path: join(tmp.dir, 'smooth.db') }, { create: true });
    await smooth.createQueue('smooth_jobs');
    await smooth.send('smooth_jobs', { body: 'job-1' });
    await smooth.close();

    const port = new URL(billingUrl).port;
    const encoded = encodeURIComponent(PASSWORD);
    mkdirSync(join(tmp.dir, 'config', 'smq'), { recursive: true });
    const file = join(tmp.dir, 'config', 'smq', 'contexts.ini');
    writeFileSync(
      file,
      [
        '# contexts of the operator test',
        '[work]',
        `url = ${workUrl}`,
        '[billing]',
        `url = postgres://${ROLE}:${encoded}@127.0.0.1:${port}/op_billing_${tag}`,
        '[down]',
        `url = postgres://nobody@127.0.0.1:${await freePort()}/nothing`,
        '[smooth]',
        'sqlite = ../../smooth.db',
        'read-only = true',
      ].join('\n'),
    );
    chmodSync(file, 0o600);
  });
  afterAll(async () => {
    await work?.end();
    await billing?.end();
    const a = admin();
    await a.connect();
    await a.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1`, [ROLE]);
    await a.query(`DROP ROLE IF EXISTS ${ROLE}`).catch(() => undefined);
    await a.end();
    tmp.cleanup();
  });

  const count = async (table: string, where = 'TRUE') =>
    (await work.query<{ n: number }>(`SELECT count(*)::int AS n FROM pgmq.${table} WHERE ${where}`)).rows[0]!.n;

  test('poison head, redrive, export, switch database: every step checked in the database', async () => {
    const t = startTop(['--context', 'work', '--interval', '1'], {
      width: 120,
      height: 30,
      cwd: tmp.dir,
      env: { XDG_CONFIG_HOME: join(tmp.dir, 'config') },
    });
    let screen = await t.waitFor(/2 of 2 queues/);
    expect(screen).toContain('smq top [work] pgmq');
    expect(screen).toContain(': context');

    // 1. The poison message: orders, its FIFO groups, the stalled one, its head archived.
    t.keys('Enter', 'F');
    screen = await t.waitFor(/orders · FIFO groups · 2 groups: 1 stalled/);
    expect(screen).toMatch(/› customer-1 +stalled/);
    t.keys('Enter');
    screen = await t.waitFor(new RegExp(`› +${poisonId} +\\S+ +3 `));
    expect(screen).toContain('"poison": true');
    t.keys('a');
    await t.waitFor(`Archive message ${poisonId} in orders? [y/N]`);
    t.keys('y');
    await t.waitFor(`archived message ${poisonId} in orders`);
    expect(await count('q_orders', `msg_id = ${poisonId}`)).toBe(0);
    expect(await count('a_orders', `msg_id = ${poisonId} AND message @> '{"poison": true}'`)).toBe(1);
    expect(await count('q_orders')).toBe(2);

    // 2. The dead-letter queue: everything read 3 times or more, back to orders.
    t.keys('Escape', 'Escape', 'Escape', 'Down', 'Enter');
    await t.waitFor('orders_dlq · oldest first');
    t.keys('N');
    await t.waitFor('Mark every message read at least N times');
    t.type('3');
    t.keys('Enter');
    await t.waitFor('marked all 4 messages read ≥ 3 times');
    t.keys('m');
    await t.waitFor('Move 4 messages read ≥ 3 times from orders_dlq to queue:');
    t.type('orders');
    t.keys('Enter');
    await t.waitFor('moved 4 messages from orders_dlq to orders');
    expect(await count('q_orders_dlq')).toBe(1);
    const moved = await work.query<{ id: string; message: unknown; read_ct: number }>(
      `SELECT msg_id::text AS id, message, read_ct FROM pgmq.q_orders WHERE message ? 'sku' ORDER BY msg_id`,
    );
    expect(moved.rows.map((r) => r.message)).toEqual(DLQ_BODIES.map((b) => JSON.parse(b) as unknown));
    expect(moved.rows.every((r) => r.read_ct === 0)).toBe(true);

    // 3. Export them: in orders, newest first, the four moved rows marked in one burst.
    t.keys('Escape', 'Up', 'Enter');
    await t.waitFor('orders · oldest first');
    t.keys('o');
    await t.waitFor('orders · newest first');
    t.keys('Space', 'Down', 'Space', 'Down', 'Space', 'Down', 'Space', 'e');
    await t.waitFor('Export 4 marked messages to file: orders-');
    t.keys('Enter');
    await t.waitFor(/exported 4 messages to .*orders-.*\.ndjson/);
    const file = readdirSync(tmp.dir).find((f) => /^orders-.*\.ndjson$/.test(f))!;
    const records = readFileSync(join(tmp.dir, file), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: unknown; body: string });
    expect(records.map((r) => r.id).sort()).toEqual(moved.rows.map((r) => r.id).sort());
    expect(records.every((r) => typeof r.id === 'string')).toBe(true);
    expect(records.map((r) => JSON.parse(r.body)).sort((a, b) => a.order - b.order)).toEqual(DLQ_BODIES.map((b) => JSON.parse(b)));
    expect(await count('q_orders')).toBe(6); // export only reads

    // 4. Switch database. A server that is down: one line, top stays on work.
    t.keys(':');
    screen = await t.waitFor('contexts · 4 stores · on work');
    expect(screen).toMatch(/› work +pgmq +read-write +postgres:\/\/\S+:\*\*\*@127\.0\.0\.1:\d+\/op_work_\w+ +current/);
    expect(screen).toMatch(/billing +pgmq +read-write +postgres:\/\/ops_\w+:\*\*\*@127\.0\.0\.1:\d+\/op_billing_\w+ +-/);
    expect(screen).toMatch(/smooth +sqlite +read-only +sqlite:\S+smooth\.db +-/);
    t.keys('3');
    screen = await t.waitFor(
      /context down: cannot connect to postgres:\/\/nobody@127\.0\.0\.1:\d+\/nothing: connection refused at 127\.0\.0\.1/,
    );
    expect(screen).toMatch(/› down +pgmq .* cannot connect/);
    expect(screen).toMatch(
      /^down: cannot connect to postgres:\/\/nobody@127\.0\.0\.1:\d+\/nothing: connection refused at 127\.0\.0\.1 port \d+/m,
    );
    expect(screen).toContain('smq top [work]');

    // The other database, as another role whose password holds @#/?: (never on screen), and
    // keys typed in the same burst reach its screen: Enter opens its queue.
    t.keys('Up', 'Enter', 'Enter');
    screen = await t.waitFor((s) => s.includes('invoices · oldest first') && s.includes('{"invoice": 7}'));
    expect(screen).toContain('smq top [billing] pgmq');
    for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), `ss#w/rd?:${tag}`]) expect(t.captureAll()).not.toContain(secret);
    const sessions = await billing.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND datname = current_database()',
      [ROLE],
    );
    expect(sessions.rows[0]!.n).toBeGreaterThan(0);

    // The SmoothMQ file, read-only from the contexts file: d is refused, the file unchanged.
    t.keys(':', '4');
    screen = await t.waitFor((s) => /smq top \[smooth\] READ-ONLY/.test(s) && s.includes('smooth_jobs'));
    t.keys('Enter', 'd');
    await t.waitFor('read-only: actions are disabled');
    const smooth = await openBackend({ kind: 'sqlite', path: join(tmp.dir, 'smooth.db') }, { readOnly: true });
    expect((await smooth.listQueues()).map((q) => [q.name, q.total])).toEqual([['smooth_jobs', 1]]);
    await smooth.close();

    // Back to work: its queues as the steps left them.
    t.keys(':', '1');
    screen = await t.waitFor((s) => s.includes('smq top [work]') && /orders_dlq +1 /.test(s));
    expect(screen).toMatch(/orders +6 /);
    t.keys('q');
    expect(await t.waitForExit()).toBe(0);
  });
});
