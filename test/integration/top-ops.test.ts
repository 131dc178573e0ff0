// The operator's actions of smq top (issue 18): marks (Space, `*`, `N`), delete / archive /
// make visible on the marked set with one question stating how many, move and redrive to
// another queue, the archive view (pgmq a_<queue>, SmoothMQ's failed messages) with restore,
// NDJSON export, and --read-only refusing every change. The built `smq top` in tmux, keys in
// bursts, against the suite's PostgreSQL (compat schema) and a real SmoothMQ file; the
// database is checked after each action.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openBackend } from '../../src/backends/index.js';
import type { Backend } from '../../src/backends/types.js';
import { tmuxAvailable, type TmuxSession } from '../helpers/tmux.js';
import { makeTempDir, uniqueQueue } from '../helpers/backends.js';
import { killTop, requireBuild, startTop, topOn } from '../helpers/top-screen.js';

afterEach(killTop);
beforeAll(requireBuild);

describe.skipIf(!tmuxAvailable())('smq top: marks, bulk actions, moves, archive, export (real terminal, real Postgres)', () => {
  const url = inject('pgUrl');
  let backend: Backend;
  let client: pg.Client;
  const tmp = makeTempDir('smq-top-ops-');
  const made: string[] = [];

  beforeAll(async () => {
    backend = await openBackend({ kind: 'pgmq', url });
    client = new pg.Client({ connectionString: url });
    await client.connect();
  });
  afterAll(async () => {
    for (const q of made) await backend?.dropQueue(q).catch(() => undefined);
    await backend?.close();
    await client?.end();
    tmp.cleanup();
  });

  /** Two queues, `<prefix>_a` with n messages (body {"n":i}, header trace=t<i>) and an empty `<prefix>_b`. */
  const queues = async (prefix: string, n: number) => {
    const src = `${prefix}_a`;
    const dst = `${prefix}_b`;
    made.push(src, dst);
    await backend.createQueue(src);
    await backend.createQueue(dst);
    const ids = await backend.sendBatch(
      src,
      Array.from({ length: n }, (_, i) => ({ body: JSON.stringify({ n: i, s: 'ü "x"' }), headers: { trace: `t${i}` } })),
    );
    return { src, dst, ids };
  };
  const count = async (table: string, where = 'TRUE') =>
    (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pgmq.${table} WHERE ${where}`)).rows[0]!.n;
  const openQueue = async (prefix: string, src: string, args: string[] = []) => {
    const t = await topOn(url, prefix, { width: 120, height: 24, args, cwd: tmp.dir });
    t.keys('Enter');
    await t.waitFor(`${src} · oldest first`);
    return t;
  };

  test('Space marks rows, d deletes the marked set after one question; * marks what the filter matches, also off screen', async () => {
    const prefix = uniqueQueue('opsmark');
    const { src, ids } = await queues(prefix, 40);
    await backend.receive(src, { qty: 5, vtSec: 600 }); // ids 1-5 in flight
    const t = await openQueue(prefix, src);
    t.keys('Space', 'Down', 'Space', 'Down', 'Down', 'Space', 'd');
    let screen = await t.waitFor(`Delete 3 marked messages in ${src}? [y/N]`);
    expect(screen).toContain('3 marked');
    t.keys('y');
    await t.waitFor(`deleted 3 messages in ${src}`);
    expect(await count(`q_${src}`)).toBe(37);
    expect(await count(`q_${src}`, `msg_id IN (${ids[0]}, ${ids[1]}, ${ids[3]})`)).toBe(0);

    // f: only in flight; * marks every one of them (counted by the database), v makes them visible.
    t.keys('f', 'f');
    await t.waitFor('only in flight');
    t.keys('*');
    await t.waitFor('marked all 2 in flight messages'); // 1 and 2 of the 5 were deleted
    t.keys('v');
    await t.waitFor(`Make visible now 2 in flight messages in ${src}?`);
    t.keys('y');
    await t.waitFor(`made visible 2 messages in ${src}`);
    expect(await count(`q_${src}`, 'vt > now()')).toBe(0);

    // All 37, most of them below the screen: counted, then archived in one go.
    t.keys('f', 'f');
    await t.waitFor('all states');
    t.keys('*');
    screen = await t.waitFor('all 37 messages marked');
    expect(screen.split('\n').filter((l) => /^.\*/.test(l)).length).toBeLessThan(37);
    t.keys('a');
    await t.waitFor(`Archive 37 messages in ${src}?`);
    t.keys('n');
    await t.waitFor('cancelled');
    expect(await count(`q_${src}`)).toBe(37);
    t.keys('a', 'y');
    await t.waitFor(`archived 37 messages in ${src}`);
    expect(await count(`q_${src}`)).toBe(0);
    expect(await count(`a_${src}`)).toBe(37);
  });

  test('redrive: N marks messages read at least N times, m moves them; a queue that does not exist is refused', async () => {
    const prefix = uniqueQueue('opsmove');
    const { src, dst, ids } = await queues(prefix, 10);
    // ids 1-4 read twice, 5-10 never.
    await backend.receive(src, { qty: 4, vtSec: 0 });
    await backend.receive(src, { qty: 4, vtSec: 0 });
    const before = await client.query(`SELECT message, headers FROM pgmq.q_${src} WHERE read_ct >= 2 ORDER BY msg_id`);
    const t = await openQueue(prefix, src);
    t.keys('N');
    await t.waitFor('Mark every message read at least N times');
    t.type('2');
    t.keys('Enter');
    await t.waitFor('marked all 4 messages read ≥ 2 times');
    t.keys('m');
    await t.waitFor(`Move 4 messages read ≥ 2 times from ${src} to queue:`);
    t.type(dst);
    t.keys('Enter');
    await t.waitFor(`moved 4 messages from ${src} to ${dst}`);
    expect(await count(`q_${src}`)).toBe(6);
    const arrived = await client.query(`SELECT message, headers, read_ct FROM pgmq.q_${dst} ORDER BY msg_id`);
    expect(arrived.rows.map((r) => [r.message, r.headers])).toEqual(before.rows.map((r) => [r.message, r.headers]));
    expect(arrived.rows.every((r) => r.read_ct === 0)).toBe(true);

    // Two marked rows, a target that does not exist: refused, nothing moved; then the right one.
    t.keys('g', 'Space', 'Down', 'Space', 'm');
    await t.waitFor(`Move 2 marked messages from ${src} to queue:`);
    t.type(`${prefix}_nope`);
    t.keys('Enter');
    await t.waitFor(`queue "${prefix}_nope" does not exist`);
    expect(await count(`q_${src}`)).toBe(6);
    t.keys('m');
    await t.waitFor(`Move 2 marked messages from ${src} to queue:`);
    t.type(dst);
    t.keys('Enter');
    await t.waitFor(`moved 2 messages from ${src} to ${dst}`);
    expect(await count(`q_${src}`)).toBe(4);
    expect(await count(`q_${dst}`)).toBe(6);
    expect(await count(`q_${src}`, `msg_id IN (${ids[4]}, ${ids[5]})`)).toBe(0);
  });

  test('A opens the archive: archived rows, restore the marked ones, export one to NDJSON, refuse to overwrite', async () => {
    const prefix = uniqueQueue('opsarch');
    const { src, dst, ids } = await queues(prefix, 5);
    await backend.archive(src, ids.slice(0, 3));
    const t = await openQueue(prefix, src);
    t.keys('A');
    let screen = await t.waitFor(new RegExp(`› +${ids[0]} archived`));
    expect(screen).toContain(`${src} (archive) · oldest first · rows 1–3 of 3`);
    expect(screen).toMatch(/ARCHIVED/);
    t.keys('Space', 'Down', 'Space', 'u');
    await t.waitFor(`Restore 2 marked messages to ${src}?`);
    t.keys('y');
    await t.waitFor(`restored 2 messages to ${src}`);
    expect(await count(`a_${src}`)).toBe(1);
    expect(await count(`q_${src}`)).toBe(4);
    expect(await count(`q_${src}`, `message = '{"n": 0, "s": "ü \\"x\\""}'::jsonb AND headers = '{"trace": "t0"}'::jsonb`)).toBe(1);

    // Export the one left: the default file is in top's folder.
    screen = await t.waitFor(new RegExp(`› +${ids[2]} archived`));
    t.keys('e');
    screen = await t.waitFor(`Export message ${ids[2]} to file: ${src}-archive-`);
    t.keys('Enter');
    await t.waitFor(/exported 1 message to .*\.ndjson/);
    const file = readdirSync(tmp.dir).find((f) => f.startsWith(`${src}-archive-`))!;
    const records = readFileSync(join(tmp.dir, file), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      id: String(ids[2]),
      state: 'archived',
      body: '{"n": 2, "s": "ü \\"x\\""}',
      headers: { trace: 't2' },
    });
    expect(records[0].archivedAt).toMatch(/^\d{4}-/);

    // The same file again: asked, and n keeps it as it was.
    const path = join(tmp.dir, 'kept.ndjson');
    writeFileSync(path, 'old\n');
    t.keys('e');
    await t.waitFor('Export message');
    t.keys('C-u');
    t.type(path);
    t.keys('Enter');
    await t.waitFor(`${path} exists. Overwrite it? [y/N]`);
    t.keys('n');
    await t.waitFor('cancelled');
    expect(readFileSync(path, 'utf8')).toBe('old\n');

    // m from the archive: to another queue.
    t.keys('m');
    await t.waitFor(`Move message ${ids[2]} from ${src}'s archive to queue:`);
    t.type(dst);
    t.keys('Enter');
    await t.waitFor(`moved 1 message from ${src} to ${dst}`);
    expect(await count(`a_${src}`)).toBe(0);
    expect(await count(`q_${dst}`)).toBe(1);
  });

  test('in one FIFO group (F, Enter) * and N are refused: they would take the whole queue; Space marks act on the rows', async () => {
    const prefix = uniqueQueue('opsgrp');
    const src = `${prefix}_a`;
    made.push(src);
    await backend.createQueue(src);
    const ids = await backend.sendBatch(
      src,
      ['a', 'a', 'b', 'b'].map((g, i) => ({ body: JSON.stringify({ i }), headers: { 'x-pgmq-group': g } })),
    );
    const t = await openQueue(prefix, src);
    t.keys('F');
    await t.waitFor(`${src} · FIFO groups`);
    t.keys('Enter');
    await t.waitFor(new RegExp(`${src} · group a · oldest first[^\\n]*rows 1–2`));
    t.keys('*');
    await t.waitFor('* and N mark the whole queue, not one group');
    t.keys('c'); // "no marks" takes the notice's place
    await t.waitFor('no marks');
    t.keys('N');
    await t.waitFor('* and N mark the whole queue, not one group');
    expect(t.capture()).not.toContain('Mark every message read');
    t.keys('Space', 'Down', 'Space', 'd');
    await t.waitFor(`Delete 2 marked messages in ${src}?`);
    t.keys('y');
    await t.waitFor(`deleted 2 messages in ${src}`);
    expect(await count(`q_${src}`)).toBe(2);
    expect(await count(`q_${src}`, `msg_id IN (${ids[2]}, ${ids[3]})`)).toBe(2);
  });

  test('--read-only: marks and export work, every change is refused with one line, nothing changes', async () => {
    const prefix = uniqueQueue('opsro');
    const { src, ids } = await queues(prefix, 4);
    await backend.archive(src, [ids[3]!]);
    const t = await openQueue(prefix, src, ['--read-only']);
    const refused = 'read-only: actions are disabled';
    const expectRefused = async (...keys: string[]) => {
      t.keys(...keys);
      await t.waitFor(refused);
      await waitGone(t, refused);
    };
    t.keys('Space', 'Down', 'Space');
    await t.waitFor('2 marked');
    await expectRefused('d');
    await expectRefused('v');
    await expectRefused('a');
    await expectRefused('m');
    t.keys('A');
    await t.waitFor(`${src} (archive)`);
    await expectRefused('u');
    await expectRefused('m');
    expect(await count(`q_${src}`)).toBe(3);
    expect(await count(`a_${src}`)).toBe(1);
    // Export only reads: it works.
    t.keys('e');
    await t.waitFor(`Export message ${ids[3]} to file:`);
    t.keys('Enter');
    await t.waitFor('exported 1 message to');
  });
});

/** Waits until `text` has left the screen (notices expire), so the next refusal is a new one. */
async function waitGone(t: TmuxSession, text: string): Promise<void> {
  t.keys('c'); // says "no marks" or "marks cleared": replaces the notice
  await t.waitFor((s) => !s.includes(text));
}

describe.skipIf(!tmuxAvailable())('smq top on a SmoothMQ file: the failed messages are the archive (real file, real terminal)', () => {
  const tmp = makeTempDir('smq-top-ops-sqlite-');
  const file = join(tmp.dir, 'smoothmq.sqlite');
  let ids: bigint[] = [];
  beforeAll(async () => {
    const b = await openBackend({ kind: 'sqlite', path: file }, { create: true });
    try {
      await b.createQueue('jobs');
      await b.createQueue('retry');
      ids = await b.sendBatch('jobs', [
        { body: 'one', headers: { k: 'v1' } },
        { body: 'two', headers: { k: 'v2' } },
        { body: 'three', headers: { k: 'v3' } },
      ]);
    } finally {
      await b.close();
    }
    // Failed, set from outside: tries used up, visibility expired.
    const db = new Database(file);
    db.prepare(`UPDATE messages SET tries = 3, max_tries = 3, deliver_at = 0 WHERE id IN (${ids.slice(0, 2).join(',')})`).run();
    db.close();
  });
  afterAll(() => tmp.cleanup());

  test('A shows the failed messages; u restores them, m moves one with its attributes', async () => {
    const t = startTop(['--sqlite', file, '--interval', '0.5'], { width: 120, height: 24 });
    await t.waitFor('› jobs');
    t.keys('Enter');
    await t.waitFor('jobs · oldest first');
    t.keys('A');
    await t.waitFor('jobs (failed) · oldest first · rows 1–2 of 2');
    t.keys('Space', 'u');
    await t.waitFor('Restore 1 marked message to jobs?');
    t.keys('y');
    await t.waitFor('restored 1 message to jobs');
    const db = new Database(file, { readonly: true });
    const rows = () =>
      db
        .prepare('SELECT q.name AS q, m.tries, m.message AS body FROM messages m JOIN queues q ON q.id = m.queue_id ORDER BY m.id')
        .all() as {
        q: string;
        tries: number;
        body: string;
      }[];
    expect(rows().filter((r) => r.tries === 3)).toHaveLength(1);
    expect(rows()).toHaveLength(3);
    t.keys('m');
    await t.waitFor('Move message');
    t.type('retry');
    t.keys('Enter');
    await t.waitFor('moved 1 message from jobs to retry');
    const moved = rows().filter((r) => r.q === 'retry');
    expect(moved).toEqual([{ q: 'retry', tries: 0, body: 'two' }]);
    const kv = db.prepare("SELECT k, v FROM kvs WHERE queue_id = (SELECT id FROM queues WHERE name = 'retry') ORDER BY k").all();
    expect(kv).toEqual([
      { k: 'k', v: 'v2' },
      { k: 'k_DataType', v: 'String' },
    ]);
    expect(existsSync(file)).toBe(true);
    db.close();
  });
});
