// What smq top's screen says (issue 18): the footer, the words, the help, sending. The built
// `smq top` in a real terminal (tmux) against the suite's PostgreSQL and a SmoothMQ file;
// where a key acts, the database is checked afterwards. Paging and layout are in
// top-screen-paging.test.ts, colours and cues in top-screen-cues.test.ts.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { openBackend } from '../../src/backends/index.js';
import type { Backend } from '../../src/backends/types.js';
import { tmuxAvailable } from '../helpers/tmux.js';
import { makeTempDir, uniqueQueue } from '../helpers/backends.js';
import { killTop, requireBuild, lastLine, startTop, topOn } from '../helpers/top-screen.js';

afterEach(killTop);
beforeAll(requireBuild);

describe.skipIf(!tmuxAvailable())('the footer and the words of smq top (real terminal, real Postgres)', () => {
  const url = inject('pgUrl');
  const prefix = uniqueQueue('words');
  const queue = `${prefix}_a`;
  let backend: Backend;
  let client: pg.Client;

  beforeAll(async () => {
    backend = await openBackend({ kind: 'pgmq', url });
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await backend.createQueue(queue);
    await backend.send(queue, { body: '{"n":1}' });
  });
  afterAll(async () => {
    await backend?.dropQueue(queue).catch(() => undefined);
    await backend?.close();
    await client?.end();
  });

  test('80 columns: the footer drops hints by priority and keeps ? help and the way out, on every screen', async () => {
    const t = await topOn(url, prefix, { width: 80, height: 24 });
    let screen = await t.waitFor((s) => lastLine(s).includes('? help'));
    expect(lastLine(screen)).toMatch(/Enter open · .*\? help · q quit$/);
    expect(lastLine(screen)).not.toContain('…');
    t.keys('Enter');
    screen = await t.waitFor(`${queue} · oldest first`);
    expect(lastLine(screen)).toMatch(/Enter open · .*Esc back · \? help · \^C quit$/);
    expect(lastLine(screen)).not.toContain('…');
    t.keys('Enter');
    screen = await t.waitFor('body (JSON)');
    expect(lastLine(screen)).toMatch(/Esc back · \? help · \^C quit$/);
    t.keys('C-c');
    expect(await t.waitForExit()).toBe(0);
  });

  test('read-only at 80 columns: no action hints, help and quit stay', async () => {
    const t = await topOn(url, prefix, { width: 80, height: 24, args: ['--read-only'] });
    const screen = await t.waitFor((s) => lastLine(s).includes('q quit'));
    expect(lastLine(screen)).not.toMatch(/purge|send/);
    expect(lastLine(screen)).toMatch(/\? help · q quit$/);
  });

  test('help lists i, and only the sort keys of columns on screen (no F or E on pgmq)', async () => {
    const t = await topOn(url, prefix, { width: 160, height: 40 });
    t.keys('?');
    let screen = await t.waitFor('Keys (queue list)');
    expect(screen).toMatch(/^N R I D T O A +sort by name, ready, in flight, delayed, total, oldest, archived$/m);
    expect(screen).not.toMatch(/failed|tenant/);
    t.keys('Escape', 'Enter');
    await t.waitFor(`${queue} · oldest first`);
    t.keys('?');
    screen = await t.waitFor('Keys (queue view)');
    expect(screen).toMatch(/^# \/ i +jump to a message id$/m);
    t.keys('Escape', 'i');
    await t.waitFor('jump to message id:');
  });

  test('80 x 24: the help of the queue view shows every key, in two columns', async () => {
    const t = await topOn(url, prefix, { width: 80, height: 24 });
    t.keys('Enter');
    await t.waitFor(`${queue} · oldest first`);
    t.keys('?');
    const screen = await t.waitFor('Keys (queue view)');
    for (const key of ['↑/↓ j/k', 'PgUp/PgDn', 'g/G Home/End', 'Enter →', 'Esc q ←', '# / i', '+ / -', 'Ctrl-C']) {
      expect(screen).toContain(key);
    }
    // Single-letter keys: the key, two or more spaces, its explanation.
    for (const key of ['o', 'f', 'd', 'a', 'v', 'P', 's', 'r', '\\?', 'Space', '\\*', 'N', 'c', 'm', 'e', 'A']) {
      expect(screen).toMatch(new RegExp(`(^|\\s)${key} {2,}\\S`, 'm'));
    }
  });

  test('one vocabulary (in flight) and plurals: 1 queue, purged 1 message (checked in the database)', async () => {
    const t = await topOn(url, prefix, { width: 120, height: 30 });
    let screen = await t.waitFor(`1 of `);
    expect(screen).toMatch(/IN FLIGHT/);
    expect(screen).toMatch(/· in flight \S+ ·/);
    t.keys('Enter');
    await t.waitFor(`${queue} · oldest first`);
    t.keys('f', 'f');
    // The title changes at once; the page of the new filter follows when it has loaded.
    screen = await t.waitFor((s) => s.includes('only in flight') && s.includes('no in flight messages'));
    expect(screen).not.toMatch(/inflight|in-flight/i);
    t.keys('P');
    await t.waitFor('Type the queue name to confirm');
    t.type(queue);
    t.keys('Enter');
    screen = await t.waitFor(`purged 1 message from ${queue}`);
    expect(screen).not.toContain('1 messages');
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM pgmq.q_${queue}`);
    expect(rows[0].n).toBe(0);
  });
});

describe.skipIf(!tmuxAvailable())('smq top on a SmoothMQ file with no queue, then one (real file, real terminal)', () => {
  const tmp = makeTempDir('smq-top-screen-');
  const file = join(tmp.dir, 'smoothmq.sqlite');
  beforeAll(async () => {
    const b = await openBackend({ kind: 'sqlite', path: file }, { create: true });
    await b.close();
  });
  afterAll(() => tmp.cleanup());

  test('an empty store says how to create a queue; one queue is "1 queue"', async () => {
    const t = startTop(['--sqlite', file, '--interval', '0.5'], { width: 120, height: 24 });
    let screen = await t.waitFor('no queues yet');
    expect(screen).toContain('create one with: smq create <name>');
    expect(screen).toContain('0 queues');
    const b = await openBackend({ kind: 'sqlite', path: file });
    try {
      await b.createQueue('orders');
    } finally {
      await b.close();
    }
    screen = await t.waitFor(/^1 of 1 queue · 1\/1$/m);
    expect(screen).toMatch(/ · 1 queue · /);
  });
});

describe.skipIf(!tmuxAvailable())('sending from top shows the parsed body and asks first (real terminal, real Postgres)', () => {
  const url = inject('pgUrl');
  const queue = uniqueQueue('send');
  let backend: Backend;
  let client: pg.Client;

  beforeAll(async () => {
    backend = await openBackend({ kind: 'pgmq', url });
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await backend.createQueue(queue);
  });
  afterAll(async () => {
    await backend?.dropQueue(queue).catch(() => undefined);
    await backend?.close();
    await client?.end();
  });

  const bodies = async () => (await client.query(`SELECT message::text AS m FROM pgmq.q_${queue} ORDER BY msg_id`)).rows.map((r) => r.m);

  test('s: the body, what it parsed as and its size, then y sends it, n sends nothing, bad JSON is refused at once', async () => {
    const t = await topOn(url, queue, { width: 80, height: 24 });
    t.keys('s');
    await t.waitFor(`send to ${queue}:`);
    t.type('{"k": [1, 2]}');
    t.keys('Enter');
    await t.waitFor(`Send to ${queue}: {"k": [1, 2]} (JSON object, 1 key, 13 bytes)? [y/N]`);
    expect(await bodies()).toEqual([]);
    t.keys('y');
    await t.waitFor(new RegExp(`sent message \\d+ to ${queue}`));
    expect(await bodies()).toEqual(['{"k": [1, 2]}']);
    // Typed in one burst: the question, then n.
    t.keys('s');
    await t.waitFor(`send to ${queue}:`);
    t.type('[3]');
    t.keys('Enter', 'n');
    await t.waitFor('cancelled: nothing sent');
    t.keys('s');
    await t.waitFor(`send to ${queue}:`);
    t.type('{"k":');
    t.keys('Enter');
    await t.waitFor('nothing sent: the body is not valid JSON (');
    expect(await bodies()).toEqual(['{"k": [1, 2]}']);
  });
});
