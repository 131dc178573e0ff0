// Marks hold what the operator marked, not what arrives later: `*` in top's queue view marks
// the messages there at that moment; messages sent before `d` / `a` / `m` and before the `y`
// are neither counted in the question nor deleted, archived or moved. A marked message gone
// meanwhile is said to be gone. The built `smq top` in tmux against the suite's PostgreSQL
// (compat schema) and a real SmoothMQ file; messages are sent from outside between the keys.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openBackend } from '../../src/backends/index.js';
import type { Backend } from '../../src/backends/types.js';
import { tmuxAvailable } from '../helpers/tmux.js';
import { makeTempDir, uniqueQueue } from '../helpers/backends.js';
import { killTop, requireBuild, startTop, topOn } from '../helpers/top-screen.js';

afterEach(killTop);
beforeAll(requireBuild);

const bodies = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ body: JSON.stringify({ tag, i }) }));

describe.skipIf(!tmuxAvailable())('smq top: * marks what is there, not what arrives before the action (real Postgres)', () => {
  const url = inject('pgUrl');
  let backend: Backend;
  let client: pg.Client;
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
  });

  const tags = async (table: string) =>
    (await client.query<{ tag: string }>(`SELECT message->>'tag' AS tag FROM pgmq.${table} ORDER BY msg_id`)).rows.map((r) => r.tag);

  const setup = async (prefix: string, marked: number) => {
    const src = `${prefix}_a`;
    const dst = `${prefix}_b`;
    made.push(src, dst);
    await backend.createQueue(src);
    await backend.createQueue(dst);
    const ids = marked > 0 ? await backend.sendBatch(src, bodies(marked, 'marked')) : [];
    const t = await topOn(url, prefix, { width: 120, height: 24 });
    t.keys('Enter');
    await t.waitFor(`${src} · oldest first`);
    if (marked === 0) return { t, src, dst, ids };
    t.keys('*');
    await t.waitFor(`marked all ${marked} messages`);
    return { t, src, dst, ids };
  };

  test('d: the question and the delete take the 3 marked, not the 3 sent after *', async () => {
    const { t, src } = await setup(uniqueQueue('arrdel'), 3);
    await backend.sendBatch(src, bodies(2, 'late'));
    t.keys('d');
    await t.waitFor(`Delete 3 messages in ${src}? [y/N]`);
    await backend.send(src, { body: JSON.stringify({ tag: 'later' }) });
    t.keys('y');
    await t.waitFor(`deleted 3 messages in ${src}`);
    expect(await tags(`q_${src}`)).toEqual(['late', 'late', 'later']);
  });

  test('a: archives the 2 marked, not the 2 sent after *', async () => {
    const { t, src } = await setup(uniqueQueue('arrarc'), 2);
    await backend.send(src, { body: JSON.stringify({ tag: 'late' }) });
    t.keys('a');
    await t.waitFor(`Archive 2 messages in ${src}? [y/N]`);
    await backend.send(src, { body: JSON.stringify({ tag: 'later' }) });
    t.keys('y');
    await t.waitFor(`archived 2 messages in ${src}`);
    expect(await tags(`a_${src}`)).toEqual(['marked', 'marked']);
    expect(await tags(`q_${src}`)).toEqual(['late', 'later']);
  });

  test('m: moves the 3 marked; one deleted meanwhile is said to be gone', async () => {
    const { t, src, dst, ids } = await setup(uniqueQueue('arrmov'), 3);
    await backend.sendBatch(src, bodies(1, 'late'));
    t.keys('m');
    await t.waitFor(`Move 3 messages from ${src} to queue:`);
    await backend.send(src, { body: JSON.stringify({ tag: 'later' }) });
    await backend.delete(src, [ids[1]!]);
    t.type(dst);
    t.keys('Enter');
    await t.waitFor(`moved 2 messages from ${src} to ${dst} (1 of 3 marked were not there any more)`);
    expect(await tags(`q_${dst}`)).toEqual(['marked', 'marked']);
    expect(await tags(`q_${src}`)).toEqual(['late', 'later']);
  });

  test('a marked message gone before d is said to be gone in the question', async () => {
    const { t, src, ids } = await setup(uniqueQueue('arrgone'), 3);
    await backend.delete(src, [ids[0]!]);
    await backend.send(src, { body: JSON.stringify({ tag: 'late' }) });
    t.keys('d');
    await t.waitFor(`Delete 2 messages in ${src} (1 of 3 marked not there any more)? [y/N]`);
    t.keys('y');
    await t.waitFor(`deleted 2 messages in ${src}`);
    expect(await tags(`q_${src}`)).toEqual(['late']);
  });

  test('* under the ready filter, then a consumer takes some: a archives only those still ready, and says so', async () => {
    // Before, the question counted and the action archived all 6, the 3 a consumer held too.
    const { t, src } = await setup(uniqueQueue('arrready'), 0);
    await backend.sendBatch(src, bodies(6, 'marked'));
    t.keys('f');
    await t.waitFor(`${src} · oldest first · only ready`);
    t.keys('*');
    await t.waitFor('marked all 6 ready messages');
    await backend.receive(src, { qty: 2, vtSec: 300 });
    t.keys('a');
    await t.waitFor(`Archive 4 ready messages in ${src} (2 of 6 marked no longer ready or gone)? [y/N]`);
    await backend.receive(src, { qty: 1, vtSec: 300 });
    t.keys('y');
    await t.waitFor(`archived 3 messages in ${src} (3 of 6 marked were no longer ready or gone)`);
    const left = await client.query<{ n: string }>(`SELECT count(*) AS n FROM pgmq.q_${src} WHERE vt > now() AND read_ct = 1`);
    expect(left.rows[0]!.n).toBe('3');
    expect(await tags(`a_${src}`)).toEqual(['marked', 'marked', 'marked']);
  });

  test('gone before d and gone before y: the result counts both against the marks', async () => {
    const { t, src, ids } = await setup(uniqueQueue('arrtwice'), 5);
    await backend.delete(src, [ids[0]!]);
    t.keys('d');
    await t.waitFor(`Delete 4 messages in ${src} (1 of 5 marked not there any more)? [y/N]`);
    await backend.delete(src, [ids[1]!]);
    t.keys('y');
    await t.waitFor(`deleted 3 messages in ${src} (2 of 5 marked were not there any more)`);
    expect(await tags(`q_${src}`)).toEqual([]);
  });
});

describe.skipIf(!tmuxAvailable())('smq top on a SmoothMQ file: * marks what is there (real file)', () => {
  const tmp = makeTempDir('smq-top-arrivals-');
  const file = join(tmp.dir, 'smoothmq.sqlite');
  let backend: Backend;
  beforeAll(async () => {
    backend = await openBackend({ kind: 'sqlite', path: file }, { create: true });
    await backend.createQueue('dlq');
    await backend.createQueue('jobs');
  });
  afterAll(async () => {
    await backend?.close();
    tmp.cleanup();
  });

  const tags = (queue: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return (
        db
          .prepare(`SELECT m.message AS body FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.name = ? ORDER BY m.id`)
          .all(queue) as { body: string | Buffer }[]
      ).map((r) => (JSON.parse(String(r.body)) as { tag: string }).tag);
    } finally {
      db.close();
    }
  };

  test('d deletes and m moves the marked messages only, while others keep arriving', async () => {
    await backend.sendBatch('dlq', bodies(3, 'marked'));
    const t = startTop(['--sqlite', file, '--interval', '0.5'], { width: 120, height: 24 });
    await t.waitFor('› dlq');
    t.keys('Enter');
    await t.waitFor('dlq · oldest first');
    t.keys('*');
    await t.waitFor('marked all 3 messages');
    await backend.sendBatch('dlq', bodies(2, 'late'));
    t.keys('d');
    await t.waitFor('Delete 3 messages in dlq? [y/N]');
    await backend.send('dlq', { body: JSON.stringify({ tag: 'later' }) });
    t.keys('y');
    await t.waitFor('deleted 3 messages in dlq');
    expect(tags('dlq')).toEqual(['late', 'late', 'later']);

    t.keys('*');
    await t.waitFor('marked all 3 messages');
    await backend.send('dlq', { body: JSON.stringify({ tag: 'last' }) });
    t.keys('m');
    await t.waitFor('Move 3 messages from dlq to queue:');
    await backend.send('dlq', { body: JSON.stringify({ tag: 'final' }) });
    t.type('jobs');
    t.keys('Enter');
    await t.waitFor('moved 3 messages from dlq to jobs');
    expect(tags('jobs')).toEqual(['late', 'late', 'later']);
    expect(tags('dlq')).toEqual(['last', 'final']);
  });
});
