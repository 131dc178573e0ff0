// One contract, both backends: every test runs against the real Postgres (pgmq) and a real
// SmoothMQ SQLite file, each with its own queue or file.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import pg from 'pg';
import type { Backend } from '../../src/backends/types.js';
import { QueueNotEmptyError, SmqError } from '../../src/errors.js';
import { CONTRACT_FIXTURES, uniqueQueue, type BackendFixture } from '../helpers/backends.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function expectKind(p: Promise<unknown>, kind: SmqError['kind']): Promise<void> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected an SmqError of kind ${kind}`).toBeInstanceOf(SmqError);
  expect((err as SmqError).kind).toBe(kind);
}

describe.each(Object.keys(CONTRACT_FIXTURES))('Backend contract: %s', (name) => {
  const kind = name.startsWith('pgmq') ? 'pgmq' : 'sqlite';
  let fx: BackendFixture;
  let b: Backend;
  let q: string;

  beforeEach(async () => {
    fx = CONTRACT_FIXTURES[name]!();
    b = await fx.open();
    q = uniqueQueue();
    expect(await b.createQueue(q)).toBe(true);
  });
  afterEach(async () => {
    await b.dropQueue(q).catch(() => {});
    await b.close();
    fx.cleanup();
  });

  test('create is idempotent and the new queue is listed empty', async () => {
    expect(await b.createQueue(q)).toBe(false);
    const list = await b.listQueues();
    const mine = list.find((s) => s.name === q);
    expect(mine).toMatchObject({ name: q, ready: 0, inFlight: 0, delayed: 0, total: 0, oldestAgeSec: null, estimated: false });
  });

  test('send makes a ready message that peek shows without changing it', async () => {
    const id = await b.send(q, { body: '{"n": 1}' });
    expect(typeof id).toBe('bigint');
    const stats = await b.queueStats(q);
    expect(stats).toMatchObject({ ready: 1, inFlight: 0, delayed: 0, total: 1 });
    expect(stats.oldestAgeSec).not.toBeNull();

    const before = await b.peek(q, { limit: 10 });
    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({ id, state: 'ready', readCount: 0, body: '{"n": 1}' });
    // Peeking again and again changes nothing: the message can still be received.
    await b.peek(q, { limit: 10 });
    expect(await b.peek(q, { limit: 10 })).toEqual(before);
    const got = await b.receive(q, { qty: 5, vtSec: 30 });
    expect(got.map((m) => m.id)).toEqual([id]);
  });

  test('receive claims, hides for the visibility timeout, and counts reads', async () => {
    const [a, c] = await b.sendBatch(q, [{ body: '{"n": 1}' }, { body: '{"n": 2}' }]);
    const got = await b.receive(q, { qty: 1, vtSec: 60 });
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ id: a, readCount: 1, state: 'inflight', body: '{"n": 1}' });
    expect(got[0]!.visibleAt.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(await b.queueStats(q)).toMatchObject({ ready: 1, inFlight: 1, total: 2 });

    const next = await b.receive(q, { qty: 5, vtSec: 60 });
    expect(next.map((m) => m.id)).toEqual([c]);
    expect(await b.receive(q, { qty: 5, vtSec: 60 })).toEqual([]);

    const peeked = await b.peek(q, { limit: 10, state: 'inflight' });
    expect(peeked.map((m) => m.id)).toEqual([a, c]);
  });

  test('a message comes back when its visibility timeout passes', async () => {
    const id = await b.send(q, { body: '{"n": 1}' });
    expect(await b.receive(q, { qty: 1, vtSec: 1 })).toHaveLength(1);
    expect(await b.receive(q, { qty: 1, vtSec: 1 })).toHaveLength(0);
    await sleep(2100); // SmoothMQ's clock has one-second resolution
    const again = await b.receive(q, { qty: 1, vtSec: 30 });
    expect(again.map((m) => [m.id, m.readCount])).toEqual([[id, 2]]);
  });

  test('setVisibility(0) makes a claimed message visible now', async () => {
    const id = await b.send(q, { body: '{"n": 1}' });
    await b.receive(q, { qty: 1, vtSec: 300 });
    expect(await b.setVisibility(q, [id], 0)).toEqual([id]);
    expect((await b.receive(q, { qty: 1, vtSec: 300 }))[0]?.id).toBe(id);
    expect(await b.setVisibility(q, [id + 1000n], 0)).toEqual([]);
  });

  test('delayed messages are counted and peeked as delayed, then become ready', async () => {
    await b.send(q, { body: '{"n": 1}', delaySec: 300 });
    await b.send(q, { body: '{"n": 2}' });
    expect(await b.queueStats(q)).toMatchObject({ ready: 1, delayed: 1, inFlight: 0, total: 2 });
    expect((await b.peek(q, { limit: 10, state: 'delayed' })).map((m) => m.body)).toEqual(['{"n": 1}']);
    expect((await b.peek(q, { limit: 10, state: 'ready' })).map((m) => m.body)).toEqual(['{"n": 2}']);
    const got = await b.receive(q, { qty: 10, vtSec: 30 });
    expect(got.map((m) => m.body)).toEqual(['{"n": 2}']);
  });

  test('delete removes only the given ids and reports which', async () => {
    const ids = await b.sendBatch(
      q,
      [1, 2, 3].map((n) => ({ body: `{"n": ${n}}` })),
    );
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    const deleted = await b.delete(q, [ids[0]!, ids[2]!, ids[2]! + 999n]);
    expect([...deleted].sort()).toEqual([ids[0], ids[2]].sort());
    expect((await b.peek(q, { limit: 10 })).map((m) => m.id)).toEqual([ids[1]]);
  });

  test('peek pages by id in both orders, filters by state and looks up one id', async () => {
    const ids = await b.sendBatch(
      q,
      Array.from({ length: 7 }, (_, n) => ({ body: `{"n": ${n}}` })),
    );
    const page1 = await b.peek(q, { limit: 3 });
    const page2 = await b.peek(q, { limit: 3, afterId: page1.at(-1)!.id });
    const page3 = await b.peek(q, { limit: 3, afterId: page2.at(-1)!.id });
    expect([...page1, ...page2, ...page3].map((m) => m.id)).toEqual(ids);
    const newest = await b.peek(q, { limit: 2, order: 'newest' });
    expect(newest.map((m) => m.id)).toEqual([ids[6], ids[5]]);
    const older = await b.peek(q, { limit: 2, order: 'newest', afterId: ids[5]! });
    expect(older.map((m) => m.id)).toEqual([ids[4], ids[3]]);
    expect((await b.peek(q, { limit: 10, id: ids[3]! })).map((m) => m.body)).toEqual(['{"n": 3}']);
    expect(await b.peek(q, { limit: 10, id: ids[6]! + 12345n })).toEqual([]);
    expect(await b.peek(q, { limit: 10, state: 'inflight' })).toEqual([]);
  });

  test("countBefore counts the messages before an id, in either order and by state (top's row numbers)", async () => {
    const ids = await b.sendBatch(
      q,
      Array.from({ length: 6 }, (_, n) => ({ body: `{"n": ${n}}` })),
    );
    await b.receive(q, { qty: 2, vtSec: 60 }); // ids[0] and ids[1] in flight
    expect(await b.countBefore!(q, { id: ids[4]! })).toBe(4);
    expect(await b.countBefore!(q, { id: ids[4]!, order: 'newest' })).toBe(1);
    expect(await b.countBefore!(q, { id: ids[4]!, state: 'ready' })).toBe(2);
    expect(await b.countBefore!(q, { id: ids[4]!, state: 'inflight' })).toBe(2);
    // An id that is not there counts what comes before it just the same.
    expect(await b.countBefore!(q, { id: ids[5]! + 1000n })).toBe(6);
    expect(await b.countBefore!(q, { id: ids[0]!, order: 'newest' })).toBe(5);
    await expectKind(b.countBefore!(q, { id: -1n }), 'invalid-input');
  });

  test('headers (pgmq) or attributes (SmoothMQ) round-trip', async () => {
    if (!b.capabilities.headers && !b.capabilities.attributes) {
      // pgmq 1.4 has no headers column: refused on one line, never silently dropped.
      await expectKind(b.send(q, { body: '{"n": 1}', headers: { trace: 'abc' } }), 'invalid-input');
      await expectKind(b.sendBatch(q, [{ body: '{"n": 1}' }, { body: '{"n": 2}', headers: { trace: 'abc' } }]), 'invalid-input');
      expect((await b.queueStats(q)).total).toBe(0);
      return;
    }
    const id = await b.send(q, { body: '{"n": 1}', headers: { trace: 'abc', kind: 'x' } });
    const [m] = await b.peek(q, { limit: 1, id });
    expect(m?.headers).toMatchObject({ trace: 'abc', kind: 'x' });
    const [r] = await b.receive(q, { qty: 1, vtSec: 30 });
    expect(r?.headers).toMatchObject({ trace: 'abc', kind: 'x' });
  });

  test('purge removes every message and says how many', async () => {
    await b.sendBatch(
      q,
      [1, 2, 3, 4].map((n) => ({ body: `{"n": ${n}}` })),
    );
    expect(await b.purgeQueue(q)).toBe(4);
    expect(await b.queueStats(q)).toMatchObject({ total: 0 });
  });

  test('archive moves messages out of the queue where supported', async () => {
    const ids = await b.sendBatch(q, [{ body: '{"n": 1}' }, { body: '{"n": 2}' }]);
    if (!b.capabilities.archive) {
      await expectKind(b.archive(q, ids), 'invalid-input');
      return;
    }
    expect(await b.archive(q, [ids[0]!])).toEqual([ids[0]]);
    expect(await b.queueStats(q)).toMatchObject({ total: 1, archived: 1 });
  });

  test('a dropped or unknown queue is reported as not found, everywhere', async () => {
    await b.dropQueue(q);
    expect((await b.listQueues()).some((s) => s.name === q)).toBe(false);
    await expectKind(b.queueStats(q), 'queue-not-found');
    await expectKind(b.dropQueue(q), 'queue-not-found');
    await expectKind(b.purgeQueue(q), 'queue-not-found');
    await expectKind(b.send(q, { body: '{"n": 1}' }), 'queue-not-found');
    await expectKind(b.receive(q, { qty: 1, vtSec: 30 }), 'queue-not-found');
    await expectKind(b.peek(q, { limit: 1 }), 'queue-not-found');
  });

  test('dropQueue atMost drops a queue holding at most that many, and refuses one holding more, dropping nothing', async () => {
    await b.sendBatch(q, [{ body: '{"n": 1}' }, { body: '{"n": 2}' }, { body: '{"n": 3}' }]);
    const err = await b.dropQueue(q, { atMost: 2 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(QueueNotEmptyError);
    expect(err).toMatchObject({ kind: 'queue-not-empty', queue: q, messages: 3, atMost: 2 });
    expect(await b.queueStats(q)).toMatchObject({ total: 3 });
    await b.dropQueue(q, { atMost: 3 });
    expect((await b.listQueues()).some((s) => s.name === q)).toBe(false);
    await expectKind(b.dropQueue(q, { atMost: 3 }), 'queue-not-found');
  });

  test('dropQueue atMost 0 drops an empty queue, and refuses one holding a message, dropping nothing', async () => {
    await b.send(q, { body: '{"n": 1}' });
    expect(
      await b.dropQueue(q, { atMost: 0 }).then(
        () => undefined,
        (e: unknown) => e,
      ),
    ).toMatchObject({ kind: 'queue-not-empty', queue: q, messages: 1, atMost: 0 });
    expect(await b.queueStats(q)).toMatchObject({ total: 1 });
    await b.purgeQueue(q);
    await b.dropQueue(q, { atMost: 0 });
    expect((await b.listQueues()).some((s) => s.name === q)).toBe(false);
  });

  // The check and the drop are one step: a send that commits while the drop waits is seen.
  test.runIf(name === 'pgmq' || name === 'pgmq (dedicated connection)')(
    'dropQueue atMost waits for a send in progress, then refuses: the message is kept',
    async () => {
      const c = new pg.Client({ connectionString: fx.location });
      await c.connect();
      try {
        await c.query('BEGIN');
        await c.query(`SELECT pgmq.send($1, '{"late": true}'::jsonb)`, [q]);
        let settled = false;
        const drop = b.dropQueue(q, { atMost: 0 }).then(
          () => ((settled = true), undefined),
          (e: unknown) => ((settled = true), e),
        );
        await sleep(500);
        expect(settled).toBe(false); // waiting for the sender's transaction
        await c.query('COMMIT');
        expect(await drop).toMatchObject({ kind: 'queue-not-empty', messages: 1, atMost: 0 });
        expect(await b.queueStats(q)).toMatchObject({ total: 1 });
      } finally {
        await c.query('ROLLBACK').catch(() => undefined);
        await c.end();
      }
    },
  );

  // Names that pgmq refuses; SmoothMQ takes any printable name, bound as a value, never spliced.
  const invalidNames = [
    '',
    'bell\u0007',
    'esc\u001b[2J',
    ...(kind === 'pgmq' ? ['x; drop table y', "it's", 'a$b', 'a--b', 'a'.repeat(48)] : ['x'.repeat(256)]),
  ];
  test.each(invalidNames)('rejects the queue name %j without touching the store', async (name) => {
    const before = (await b.listQueues()).map((s) => s.name);
    await expectKind(b.createQueue(name), 'invalid-queue-name');
    expect((await b.listQueues()).map((s) => s.name)).toEqual(before);
  });

  test.runIf(kind === 'sqlite')('a name full of SQL is only a name on SmoothMQ', async () => {
    const evil = "x'; DROP TABLE messages; --";
    expect(await b.createQueue(evil)).toBe(true);
    const id = await b.send(evil, { body: 'payload' });
    expect((await b.receive(evil, { qty: 1, vtSec: 30 })).map((m) => m.id)).toEqual([id]);
    expect((await b.listQueues()).map((s) => s.name)).toContain(evil);
    await b.dropQueue(evil);
    expect((await b.queueStats(q)).total).toBe(0); // the messages table is still there
  });

  test('zero or negative quantities are invalid input', async () => {
    await expectKind(b.receive(q, { qty: 0, vtSec: 30 }), 'invalid-input');
    await expectKind(b.receive(q, { qty: -1, vtSec: 30 }), 'invalid-input');
  });

  // One rule for both stores (validate.ts): seconds are whole. SQLite used to round a
  // fraction up while pgmq refused it; now both refuse, in one line that says what to give.
  test('a fractional or negative visibility timeout or delay is refused on one line, and nothing changes', async () => {
    const [id] = await b.sendBatch(q, [{ body: '{"n": 1}' }]);
    const refusals = [
      b.receive(q, { qty: 1, vtSec: 1.5 }),
      b.receive(q, { qty: 1, vtSec: -1 }),
      b.receive(q, { qty: 1, vtSec: Number.NaN }),
      b.setVisibility(q, [id!], 0.5),
      b.send(q, { body: '{"n": 2}', delaySec: 0.5 }),
      b.sendBatch(q, [{ body: '{"n": 3}' }, { body: '{"n": 4}', delaySec: 2.5 }]),
    ];
    for (const p of refusals) {
      const err = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SmqError);
      const e = err as SmqError;
      expect(e.kind).toBe('invalid-input');
      expect(e.line()).toMatch(/^invalid (visibility timeout|delay) \S+: give a whole number of seconds, 0 or more$/);
    }
    const stats = await b.queueStats(q);
    expect(stats).toMatchObject({ total: 1, ready: 1, inFlight: 0 });
    const [m] = await b.peek(q, { limit: 1 });
    expect(m?.readCount).toBe(0);
  });

  // pgmq's functions take a 32-bit integer; SQLite took any number (a lease to the year 5195).
  test('seconds or quantities beyond 2147483647 are refused on both stores, in one line, and nothing changes', async () => {
    const [id] = await b.sendBatch(q, [{ body: '{"n": 1}' }]);
    const big = 2_147_483_648;
    for (const [p, what] of [
      [b.receive(q, { qty: 1, vtSec: 99_999_999_999 }), 'visibility timeout'],
      [b.setVisibility(q, [id!], big), 'visibility timeout'],
      [b.send(q, { body: '{}', delaySec: big }), 'delay'],
      [b.receive(q, { qty: big, vtSec: 30 }), 'quantity'],
      [b.peek(q, { limit: big }), 'limit'],
    ] as const) {
      const err = await (p as Promise<unknown>).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, what).toBeInstanceOf(SmqError);
      expect((err as SmqError).kind).toBe('invalid-input');
      expect((err as SmqError).line()).toMatch(new RegExp(`^invalid ${what} \\d+: .*up to 2147483647`));
    }
    const [m] = await b.peek(q, { limit: 1 });
    expect(m).toMatchObject({ state: 'ready', readCount: 0 });
    expect((await b.queueStats(q)).total).toBe(1);
  });

  test('the same arguments are refused on both stores: ids, quantities, page sizes, dequeue modes', async () => {
    await expectKind(b.delete(q, [-1n]), 'invalid-input');
    await expectKind(b.setVisibility(q, [1n << 63n], 0), 'invalid-input');
    await expectKind(b.receive(q, { qty: 1.5 }), 'invalid-input');
    await expectKind(b.receive(q, { qty: 1, dequeue: 'sloppy' as never }), 'invalid-input');
    await expectKind(b.receive(q, { qty: 1, dequeue: 'naive', naivePauseMs: -1 }), 'invalid-input');
    await expectKind(b.peek(q, { limit: 0 }), 'invalid-input');
    await expectKind(b.peek(q, { limit: 1, order: 'sideways' as never }), 'invalid-input');
    await expectKind(b.peek(q, { limit: 1, afterId: -5n }), 'invalid-input');
    expect((await b.queueStats(q)).total).toBe(0);
  });

  test('concurrent receivers on separate connections never get the same message', async () => {
    const n = 200;
    await b.sendBatch(
      q,
      Array.from({ length: n }, (_, i) => ({ body: `{"i": ${i}}` })),
    );
    const clients = await Promise.all([1, 2, 3, 4].map(() => fx.open()));
    try {
      const seen: bigint[] = [];
      await Promise.all(
        clients.map(async (c) => {
          for (;;) {
            const got = await c.receive(q, { qty: 7, vtSec: 300 });
            if (got.length === 0) return;
            seen.push(...got.map((m) => m.id));
          }
        }),
      );
      expect(seen).toHaveLength(n);
      expect(new Set(seen).size).toBe(n);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
