// pgmq queue names as pgmq itself treats them: a queue's tables are named by the
// lower-cased name, so every case variant of a name is that queue, for every command; and
// every name pgmq accepts (any script, combining marks, spaces, punctuation other than
// $ ; -- ') is one smq can create and use, within PostgreSQL's identifier room (47 bytes).
// Run against smq's compat schema on the suite's server and, when SMQ_TEST_PGMQ_DIR is
// set, against clones of the real pgmq releases.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { openBackend } from '../../src/backends/index.js';
import type { Backend } from '../../src/backends/types.js';
import { clonePgmq } from '../helpers/real-pgmq.js';
import { ensureBuilt, ndjson, runCli } from '../helpers/run-cli.js';

const releases = inject('pgmqReleases');
const targets: [string, () => Promise<string>][] = [
  ['compat schema', async () => inject('pgUrl')],
  // 1.4.4 is the extension (its tables belong to it); 1.5.1 and 1.13.0 are plain SQL installs.
  ...Object.entries(releases).map(([release, template]): [string, () => Promise<string>] => [
    `pgmq ${release}`,
    () => clonePgmq(template, `names_${release.replaceAll('.', '_')}_${randomBytes(3).toString('hex')}`),
  ]),
];

const suffix = () => randomBytes(3).toString('hex');

async function sql<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

describe.each(targets)('%s', (_label, makeUrl) => {
  let url: string;
  let backend: Backend;
  beforeAll(async () => {
    url = await makeUrl();
    backend = await openBackend({ kind: 'pgmq', url });
  });
  afterAll(async () => {
    await backend?.close();
  });

  test('every case variant of a name is the same queue, for every call', async () => {
    const name = `orders_${suffix()}`;
    const upper = name.toUpperCase();
    const mixed = `Orders_${name.slice('orders_'.length)}`;
    expect(await backend.createQueue(name)).toBe(true);
    expect(await backend.createQueue(name)).toBe(false);
    const id = await backend.send(upper, { body: '{"n":1}' });
    expect((await backend.queueStats(mixed)).name).toBe(name);
    expect((await backend.peek(upper, { limit: 10 })).map((m) => m.id)).toEqual([id]);
    expect((await backend.receive(mixed, { qty: 1, vtSec: 0 })).map((m) => m.id)).toEqual([id]);
    expect(await backend.setVisibility(upper, [id], 0)).toEqual([id]);
    expect(await backend.delete(mixed, [id])).toEqual([id]);
    await backend.send(name, { body: '{"n":2}' });
    expect(await backend.purgeQueue(upper)).toBe(1);
    await backend.dropQueue(mixed);
    // Gone for good: no table and no pgmq.meta row is left behind under either spelling.
    expect((await backend.listQueues()).map((q) => q.name)).not.toContain(name);
    expect(await sql(url, 'SELECT queue_name FROM pgmq.meta WHERE lower(queue_name) = lower($1)', [name])).toEqual([]);
    await expect(backend.queueStats(name)).rejects.toMatchObject({ kind: 'queue-not-found' });
  });

  test('names pgmq accepts: other scripts with combining marks, spaces, punctuation', async () => {
    const s = suffix();
    const names = [`नमस्ते_${s}`, `คิว_${s}`, `e\u0301_${s}`, `a b.c-${s}`, `box_📦_${s}`, `q"x_${s}`];
    for (const name of names) {
      // Made by pgmq itself (another client), then used and dropped through smq.
      await sql(url, 'SELECT pgmq.create($1)', [name]);
      await backend.send(name, { body: '{"n":1}' });
      expect((await backend.peek(name, { limit: 5 })).length, name).toBe(1);
      expect(
        (await backend.listQueues()).find((q) => q.name === name),
        name,
      ).toMatchObject({ total: 1 });
      await backend.dropQueue(name);
      // And made by smq.
      expect(await backend.createQueue(name), name).toBe(true);
      await backend.dropQueue(name);
    }
    expect(await sql(url, "SELECT queue_name FROM pgmq.meta WHERE queue_name LIKE '%' || $1", [s])).toEqual([]);
  });

  test('what pgmq refuses is refused before any SQL, and the 47-byte limit is exact', async () => {
    const name47 = `${'é'.repeat(20)}_${suffix()}`; // 40 + 1 + 6 = 47 bytes
    expect(Buffer.byteLength(name47)).toBe(47);
    expect(await backend.createQueue(name47)).toBe(true);
    await backend.dropQueue(name47);
    const name48 = `${'é'.repeat(20)}__${suffix()}`; // 48 bytes
    expect(Buffer.byteLength(name48)).toBe(48);
    await expect(backend.createQueue(name48)).rejects.toMatchObject({ kind: 'invalid-queue-name' });
    for (const bad of ['a$b', 'a;b', 'a--b', "it's", '']) {
      await expect(backend.createQueue(bad), bad).rejects.toMatchObject({ kind: 'invalid-queue-name' });
      await expect(backend.peek(bad, { limit: 1 }), bad).rejects.toMatchObject({ kind: 'invalid-queue-name' });
    }
  });
});

describe('the command line, one rule for every command (compat schema)', () => {
  const url = inject('pgUrl');
  beforeAll(() => ensureBuilt());

  test('send, receive, delete, peek, purge and drop of Orders act on orders', async () => {
    const name = `orders_${suffix()}`;
    const variant = name.replace('orders', 'Orders');
    const run = async (...args: string[]) => {
      const r = await runCli([...args, '--url', url]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r.stdout;
    };
    await run('create', name);
    const [sent] = ndjson(await run('send', variant, '{"n":1}'));
    expect(ndjson(await run('peek', variant)).map((m) => m['id'])).toEqual([sent!['id']]);
    const [got] = ndjson(await run('receive', variant, '--vt', '0'));
    await run('delete', variant, String(got!['id']), '--yes');
    await run('send', name, '{"n":2}');
    expect(JSON.parse(await run('purge', variant, '--yes', '--json'))).toMatchObject({ purged: 1 });
    await run('drop', variant, '--yes');
    const r = await runCli(['peek', name, '--url', url]);
    expect(r.code).toBe(3);
  }, 60_000);

  test('नमस्ते and คิว: create, send, peek, drop', async () => {
    for (const name of [`नमस्ते_${suffix()}`, `คิว_${suffix()}`]) {
      for (const args of [
        ['create', name],
        ['send', name, '{}'],
        ['peek', name],
        ['drop', name, '--yes'],
      ]) {
        const r = await runCli([...args, '--url', url]);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      }
    }
  }, 60_000);
});
