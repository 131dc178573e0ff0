// What smq top reads of pgmq 1.7–1.13's features, through the Backend: each queue's FIFO
// groups and insert notifications in listQueues (exact and estimated counts), peek and
// countBefore of one group, the head facts of groups(), testRouting. On smq's compat schema
// and real pgmq 1.13.0 (SMQ_TEST_PGMQ_DIR); real 1.4.4 and SmoothMQ have none of them.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { openBackend } from '../../src/backends/index.js';
import type { Backend } from '../../src/backends/types.js';
import { makeTempDir } from '../helpers/backends.js';
import { clonePgmq, createDatabase, NO_RELEASES } from '../helpers/real-pgmq.js';
import { installSchema } from '../helpers/schema.js';

const installs = inject('pgmqInstalls');
const real = (release: string) => installs.find((i) => i.release === release && (i.form === 'sql' || release === '1.4.4'));
const tag = () => randomBytes(3).toString('hex');

const stores: { name: string; url: () => Promise<string> }[] = [
  {
    name: "smq's compat schema",
    url: async () => {
      const url = await createDatabase(inject('pgUrl'), `topfeat_${tag()}`);
      await installSchema(url);
      return url;
    },
  },
];
const r113 = real('1.13.0');
if (r113) stores.push({ name: r113.label, url: () => clonePgmq(r113.template, `topfeat_113_${tag()}`) });

describe.each(stores)('on $name', (store) => {
  const q = `tf${tag()}`;
  const plain = `${q}_plain`;
  let b: Backend;
  let c: pg.Client;
  const ids: bigint[] = [];

  beforeAll(async () => {
    const url = await store.url();
    c = new pg.Client({ connectionString: url });
    await c.connect();
    b = await openBackend({ kind: 'pgmq', url });
    await b.createQueue(q);
    await b.createQueue(plain);
    // Groups x, y, x, (none), y, x.
    for (const g of ['x', 'y', 'x', null, 'y', 'x']) {
      ids.push(await b.send(q, { body: '{}', ...(g === null ? {} : { headers: { 'x-pgmq-group': g } }) }));
    }
    await b.send(plain, { body: '{}' });
    await c.query('SELECT pgmq.enable_notify_insert($1, 100)', [q]);
    await c.query('SELECT * FROM pgmq.read_grouped($1, 600, 1)', [q]); // x's head, held
    for (const row of [q, plain]) await c.query(`ANALYZE pgmq.${pg.escapeIdentifier(`q_${row}`)}`);
  });
  afterAll(async () => {
    await b?.close();
    await c?.end();
  });

  test('listQueues: groups (counted exactly, and among the oldest messages when estimated) and the notify throttle', async () => {
    const exact = new Map((await b.listQueues()).map((s) => [s.name, s]));
    expect(exact.get(q)).toMatchObject({ groups: 2, notifyThrottleMs: 100, estimated: false });
    expect(exact.get(plain)).toMatchObject({ groups: 0, notifyThrottleMs: null });
    const estimated = new Map((await b.listQueues({ exactThreshold: 1 })).map((s) => [s.name, s]));
    expect(estimated.get(q)).toMatchObject({ groups: 2, notifyThrottleMs: 100, estimated: true });
    expect(await b.queueStats(q)).toMatchObject({ groups: 2, notifyThrottleMs: 100 });
    await c.query('SELECT pgmq.disable_notify_insert($1)', [q]);
    expect((await b.queueStats(q)).notifyThrottleMs).toBeNull();
    await c.query('SELECT pgmq.enable_notify_insert($1, 100)', [q]);
  });

  test('peek and countBefore of one group, the group-less lane as null; groups() with the head facts', async () => {
    const peekIds = async (group: string | null, order: 'oldest' | 'newest' = 'oldest') =>
      (await b.peek(q, { limit: 10, group, order })).map((m) => m.id);
    expect(await peekIds('x')).toEqual([ids[0], ids[2], ids[5]]);
    expect(await peekIds('y', 'newest')).toEqual([ids[4], ids[1]]);
    expect(await peekIds(null)).toEqual([ids[3]]);
    expect(await peekIds('none-such')).toEqual([]);
    expect((await b.peek(q, { limit: 10, group: 'x', state: 'inflight' })).map((m) => m.id)).toEqual([ids[0]]);
    expect(await b.countBefore!(q, { id: ids[5]!, group: 'x' })).toBe(2);
    expect(await b.countBefore!(q, { id: ids[5]!, group: 'x', state: 'ready' })).toBe(1);
    expect(await b.countBefore!(q, { id: ids[5]! })).toBe(5);
    const groups = await b.groups!(q);
    const x = groups.find((g) => g.group === 'x')!;
    expect(x).toMatchObject({ headId: ids[0], headState: 'inflight', headReadCount: 1, inFlight: 1, ready: 2 });
    expect(x.headEnqueuedAt).toBeInstanceOf(Date);
    expect(x.headVisibleAt!.getTime()).toBeGreaterThan(Date.now() + 500_000);
    expect(x.headLastReadAt).toBeInstanceOf(Date);
    expect(groups.find((g) => g.group === null)).toMatchObject({ headId: ids[3], headLastReadAt: null });
  });

  test('testRouting: the bindings a key matches, with when they were bound; nothing sent; a refused key throws', async () => {
    const [eu, all] = [`${q}_eu`, `${q}_all`];
    await b.createQueue(eu);
    await b.createQueue(all);
    await b.bindTopic!(`${q}.*.created`, eu);
    await b.bindTopic!(`${q}.#`, all);
    const hits = await b.testRouting!(`${q}.eu.created`);
    expect(hits.map((h) => [h.pattern, h.queue])).toEqual([
      [`${q}.#`, all],
      [`${q}.*.created`, eu],
    ]);
    expect(hits.every((h) => h.boundAt instanceof Date)).toBe(true);
    expect(await b.testRouting!('nobody.listens')).toEqual([]);
    expect((await b.queueStats(eu)).total + (await b.queueStats(all)).total).toBe(0);
    await expect(b.testRouting!(`${q}.*`)).rejects.toThrow(/routing.?key/);
  });
});

describe('stores without these features', () => {
  const r144 = real('1.4.4');
  test.skipIf(!r144)(
    `real pgmq 1.4.4: no groups or notify in listQueues; peek by group refused${r144 ? '' : ` (${NO_RELEASES})`}`,
    async () => {
      const b = await openBackend({ kind: 'pgmq', url: await clonePgmq(r144!.template, `topfeat_144_${tag()}`) });
      try {
        await b.createQueue('jobs');
        await b.send('jobs', { body: '{}' });
        const [s] = await b.listQueues();
        expect(s).not.toHaveProperty('groups');
        expect(s).not.toHaveProperty('notifyThrottleMs');
        await expect(b.peek('jobs', { limit: 1, group: 'x' })).rejects.toThrow(/no FIFO groups/);
        await expect(b.testRouting!('a.b')).rejects.toThrow(/no topic routing/);
      } finally {
        await b.close();
      }
    },
  );

  test('SmoothMQ: peek and countBefore by group refused; no testRouting', async () => {
    const tmp = makeTempDir('smq-topfeat-');
    const b = await openBackend({ kind: 'sqlite', path: join(tmp.dir, 's.db') }, { create: true });
    try {
      await b.createQueue('jobs');
      const id = await b.send('jobs', { body: 'x' });
      await expect(b.peek('jobs', { limit: 1, group: null })).rejects.toThrow(/no FIFO groups/);
      await expect(b.countBefore!('jobs', { id, group: 'x' })).rejects.toThrow(/no FIFO groups/);
      expect(b.testRouting).toBeUndefined();
      expect((await b.listQueues())[0]).not.toHaveProperty('groups');
    } finally {
      await b.close();
      tmp.cleanup();
    }
  });
});
