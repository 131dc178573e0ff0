// smq top with a role that may only read (issue 18, privileges): top starts read-only by
// itself and says why, instead of offering actions that fail with permission denied. The
// role is the test's own: SELECT on pgmq's tables and pg_monitor, nothing else. `d` on a
// message says read-only, and the test checks in the database that nothing changed.
import { randomBytes } from 'node:crypto';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { openBackend } from '../../src/backends/index.js';
import { tmuxAvailable } from '../helpers/tmux.js';
import { makeTempDir } from '../helpers/backends.js';
import { createDatabase } from '../helpers/real-pgmq.js';
import { installSchema } from '../helpers/schema.js';
import { killTop, lastLine, requireBuild, startTop } from '../helpers/top-screen.js';

afterEach(killTop);
beforeAll(requireBuild);

const tag = () => randomBytes(3).toString('hex');
const tmuxDescribe = tmuxAvailable() ? describe : describe.skip;

tmuxDescribe('smq top with a role that may only read (real Postgres, real terminal)', () => {
  const role = `ro_${tag()}`;
  const q = `priv${tag()}`;
  let url: string;
  let roUrl: string;
  let c: pg.Client;

  beforeAll(async () => {
    url = await createDatabase(inject('pgUrl'), `toppriv_${tag()}`);
    await installSchema(url);
    c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('SELECT pgmq.create($1)', [q]);
    for (let i = 1; i <= 3; i++) await c.query('SELECT pgmq.send($1, $2::jsonb)', [q, JSON.stringify({ n: i })]);
    await c.query(`CREATE ROLE ${role} LOGIN PASSWORD 'ro-secret'`);
    await c.query(`GRANT pg_monitor TO ${role}`);
    await c.query(`GRANT USAGE ON SCHEMA pgmq TO ${role}`);
    await c.query(`GRANT SELECT ON ALL TABLES IN SCHEMA pgmq TO ${role}`);
    const u = new URL(url);
    u.username = role;
    u.password = 'ro-secret';
    roUrl = u.toString();
  });
  afterAll(async () => {
    if (!c) return;
    await c.query(`DROP OWNED BY ${role}`).catch(() => undefined);
    await c.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
    await c.end();
  });

  const ids = async () =>
    (await c.query<{ id: string }>(`SELECT msg_id::text AS id FROM pgmq.${pg.escapeIdentifier(`q_${q}`)} ORDER BY msg_id`)).rows.map(
      (r) => r.id,
    );

  test('READ-ONLY with the reason at start; d says read-only; the queue is unchanged', async () => {
    const before = await ids();
    expect(before).toHaveLength(3);
    const t = startTop(['--url', roUrl, '--interval', '1'], { width: 120, height: 24 });
    let screen = await t.waitFor(/1 of 1 queue/);
    expect(screen).toContain(`READ-ONLY: role ${role} may not delete from pgmq.q_*`);
    expect(lastLine(screen)).not.toMatch(/P purge|s send/);
    // One burst: open the queue, then delete the first message.
    t.keys('Enter', 'd');
    screen = await t.waitFor(`read-only: actions are disabled (role ${role} may not delete from pgmq.q_*)`);
    expect(screen).not.toContain('Delete message');
    expect(lastLine(screen)).not.toContain('d delete');
    // Marked rows too (the bulk path): Space marks, d refuses with the same reason.
    t.keys('Space', 'd');
    await t.waitFor(`read-only: actions are disabled (role ${role} may not delete from pgmq.q_*)`);
    t.keys('?');
    screen = await t.waitFor('Keys (queue view)');
    expect(screen).not.toMatch(/^d +delete/m);
    expect(await ids()).toEqual(before);
  });

  test('the same role with DELETE on the queue table: not read-only', async () => {
    await c.query(`GRANT DELETE, UPDATE ON pgmq.${pg.escapeIdentifier(`q_${q}`)} TO ${role}`);
    try {
      const t = startTop(['--url', roUrl, '--interval', '1'], { width: 120, height: 24 });
      const screen = await t.waitFor(/1 of 1 queue/);
      expect(screen).not.toContain('READ-ONLY');
    } finally {
      await c.query(`REVOKE DELETE, UPDATE ON pgmq.${pg.escapeIdentifier(`q_${q}`)} FROM ${role}`);
    }
  });
});

describe('a SmoothMQ file that may not be written', () => {
  test.skipIf(process.getuid?.() === 0)('cannotWrite names the file', async () => {
    const tmp = makeTempDir('smq-priv-');
    try {
      const file = join(tmp.dir, 'smoothmq.sqlite');
      const w = await openBackend({ kind: 'sqlite', path: file }, { create: true });
      expect(await w.cannotWrite?.()).toBeUndefined();
      await w.close();
      chmodSync(file, 0o444);
      const r = await openBackend({ kind: 'sqlite', path: file }, {});
      expect(await r.cannotWrite?.()).toMatch(/smoothmq\.sqlite/);
      await r.close();
    } finally {
      tmp.cleanup();
    }
  });

  test('opened with --read-only: cannotWrite says so', async () => {
    const tmp = makeTempDir('smq-priv-');
    try {
      const file = join(tmp.dir, 'smoothmq.sqlite');
      await (await openBackend({ kind: 'sqlite', path: file }, { create: true })).close();
      const r = await openBackend({ kind: 'sqlite', path: file }, { readOnly: true });
      expect(await r.cannotWrite?.()).toBe(`the file ${file} is open read-only`);
      await r.close();
    } finally {
      tmp.cleanup();
    }
  });
});
