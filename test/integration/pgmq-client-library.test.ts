// A pgmq client library (pgmq-js from npm), unchanged, against smq's compat schema (or the
// pgmq that SMQ_TEST_PG_URL points at: both must behave the same).
import { Pgmq } from 'pgmq-js';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { uniqueQueue } from '../helpers/backends.js';

let pgmq: Pgmq;

beforeAll(async () => {
  const u = new URL(inject('pgUrl'));
  pgmq = await Pgmq.new(
    {
      host: u.hostname,
      port: Number(u.port),
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
      database: u.pathname.slice(1),
      ssl: false,
    },
    { skipExtensionCreation: true },
  );
});
afterAll(async () => {
  await pgmq.close();
});

test('pgmq-js drives a queue through its whole life', async () => {
  const q = uniqueQueue('lib');
  await pgmq.queue.create(q);
  expect((await pgmq.queue.list()).map((x) => x.name)).toContain(q);

  const id = await pgmq.msg.send(q, { hello: 'world' });
  const ids = await pgmq.msg.sendBatch(q, [{ n: 1 }, { n: 2 }, { n: 3 }]);
  expect(ids).toHaveLength(3);

  const m = await pgmq.msg.read<{ hello: string }>(q, 30);
  expect(m.msgId).toBe(id);
  expect(m.message).toEqual({ hello: 'world' });
  expect(m.readCount).toBe(1);

  const batch = await pgmq.msg.readBatch<{ n: number }>(q, 30, 2);
  expect(batch.map((x) => x.message.n)).toEqual([1, 2]);
  expect(await pgmq.msg.delete(q, id)).toBe(true);
  expect(await pgmq.msg.archive(q, batch[0]!.msgId)).toBe(true);
  expect(await pgmq.msg.deleteBatch(q, [batch[1]!.msgId])).toEqual([batch[1]!.msgId]);

  const metrics = await pgmq.queue.getMetrics(q);
  expect(metrics.queueName).toBe(q);
  expect(Number(metrics.queueLength)).toBe(1);
  expect(Number(metrics.totalMessages)).toBe(4);

  const popped = await pgmq.msg.pop<{ n: number }>(q);
  expect(popped?.message).toEqual({ n: 3 });
  expect((await pgmq.queue.getAllMetrics()).some((x) => x.queueName === q)).toBe(true);
  await pgmq.queue.purge(q);
  await pgmq.queue.drop(q);
  expect((await pgmq.queue.list()).map((x) => x.name)).not.toContain(q);
});

// pgmq-js 1.3.1 calls `set_vt($1, $2, $3)` with untyped parameters. pgmq (1.10 and later) has
// set_vt for one id and for an array of ids, so PostgreSQL cannot pick one: setVt fails on
// the pgmq extension, and the compat schema, which has the same functions, fails alike.
test("pgmq-js's setVt is ambiguous against pgmq's set_vt overloads, as on the extension", async () => {
  const q = uniqueQueue('lib');
  await pgmq.queue.create(q);
  try {
    const id = await pgmq.msg.send(q, { n: 1 });
    await expect(pgmq.msg.setVt(q, id, 60)).rejects.toMatchObject({ code: '42725' });
  } finally {
    await pgmq.queue.drop(q);
  }
});
