// The Backend side of top's operator actions (issue 18): marks counted by query, bulk delete /
// archive / make visible, moves between queues and from the archive, on real PostgreSQL
// (compat schema) and a real SmoothMQ file. A move that fails half-way (a trigger of the
// test's own raises inside the target) leaves every message where it was.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Backend } from '../../src/backends/types.js';
import { fixtures, uniqueQueue, type BackendFixture } from '../helpers/backends.js';

describe.each(['pgmq', 'sqlite'] as const)('top operator actions on %s', (kind) => {
  let fx: BackendFixture;
  let b: Backend;
  beforeAll(async () => {
    fx = fixtures[kind]();
    b = await fx.open();
  });
  afterAll(async () => {
    await b?.close();
    fx?.cleanup();
  });

  const fresh = async (n: number) => {
    const src = uniqueQueue('ops');
    const dst = uniqueQueue('opsdst');
    await b.createQueue(src);
    await b.createQueue(dst);
    const ids = await b.sendBatch(
      src,
      Array.from({ length: n }, (_, i) => ({ body: JSON.stringify({ n: i, text: 'é\u00e9 "q"' }), headers: { trace: `t${i}` } })),
    );
    return { src, dst, ids };
  };

  test('count and act on marked ids and on a filter (read count ≥ N), with what changed', async () => {
    const { src, ids } = await fresh(10);
    await b.receive(src, { qty: 4, vtSec: 300 }); // the first 4: in flight, read once
    expect(await b.countSelected!(src, { kind: 'ids', ids: [ids[0]!, ids[1]!, 999_999n] })).toBe(2);
    expect(await b.countSelected!(src, { kind: 'filter', state: 'inflight' })).toBe(4);
    expect(await b.countSelected!(src, { kind: 'filter', state: 'all', minReadCount: 1 })).toBe(4);
    expect(await b.countSelected!(src, { kind: 'filter', state: 'ready' })).toBe(6);
    expect(await b.actOn!(src, 'makeVisible', { kind: 'filter', state: 'inflight' })).toBe(4);
    expect(await b.countSelected!(src, { kind: 'filter', state: 'ready' })).toBe(10);
    expect(await b.actOn!(src, 'delete', { kind: 'ids', ids: [ids[5]!, ids[6]!] })).toBe(2);
    expect(await b.actOn!(src, 'delete', { kind: 'filter', state: 'all', minReadCount: 1 })).toBe(4);
    expect((await b.queueStats(src)).total).toBe(4);
    if (kind === 'pgmq') {
      expect(await b.actOn!(src, 'archive', { kind: 'filter', state: 'all' })).toBe(4);
      expect(await b.countSelected!(src, { kind: 'filter', state: 'all' }, 'archive')).toBe(4);
    } else {
      await expect(b.actOn!(src, 'archive', { kind: 'filter', state: 'all' })).rejects.toThrow(/not supported/);
    }
  });

  test('marks caught under a state filter: count, act and move take only those still in it (a consumer took the others since)', async () => {
    const { src, dst, ids } = await fresh(6);
    // `*` under "ready" caught all 6; then a consumer took the first 2 (in flight now).
    const caught = { kind: 'ids', ids, state: 'ready' } as const;
    await b.receive(src, { qty: 2, vtSec: 300 });
    expect(await b.countSelected!(src, caught)).toBe(4);
    expect(await b.selectedIds!(src, caught, 'queue', 100)).toEqual(ids.slice(2));
    expect(await b.actOn!(src, 'delete', { ...caught, ids: ids.slice(0, 3) })).toBe(1);
    expect(await b.moveMessages!(src, dst, { ...caught, ids: [ids[1]!, ids[3]!] })).toBe(1);
    // The consumer's two are where it left them: in flight, read once.
    const left = await b.peek(src, { limit: 10, state: 'all' });
    expect(left.map((m) => [m.id, m.state])).toEqual([
      [ids[0], 'inflight'],
      [ids[1], 'inflight'],
      [ids[4], 'ready'],
      [ids[5], 'ready'],
    ]);
    // Marks caught under "in flight" make visible only those still held.
    expect(await b.actOn!(src, 'makeVisible', { kind: 'ids', ids: [ids[0]!, ids[4]!], state: 'inflight' })).toBe(1);
    if (kind === 'pgmq') expect(await b.actOn!(src, 'archive', { kind: 'ids', ids, state: 'inflight' })).toBe(1);
  });

  test('selectedIds: the ids a filter (or ids) selection takes now, oldest first, at most limit', async () => {
    const { src, ids } = await fresh(6);
    await b.receive(src, { qty: 2, vtSec: 300 }); // the first 2: in flight, read once
    expect(await b.selectedIds!(src, { kind: 'filter', state: 'all' }, 'queue', 100)).toEqual(ids);
    expect(await b.selectedIds!(src, { kind: 'filter', state: 'all' }, 'queue', 4)).toEqual(ids.slice(0, 4));
    expect(await b.selectedIds!(src, { kind: 'filter', state: 'inflight' }, 'queue', 100)).toEqual(ids.slice(0, 2));
    expect(await b.selectedIds!(src, { kind: 'filter', state: 'ready', minReadCount: 1 }, 'queue', 100)).toEqual([]);
    expect(await b.selectedIds!(src, { kind: 'ids', ids: [ids[3]!, 999_999n, ids[1]!] }, 'queue', 100)).toEqual([ids[1], ids[3]]);
    await expect(b.selectedIds!(src, { kind: 'filter', state: 'all' }, 'queue', 0)).rejects.toThrow(/invalid limit/);
  });

  test('move: bodies and attributes arrive intact, the source loses them, a filter moves what matched', async () => {
    const { src, dst, ids } = await fresh(1200);
    const before = await b.peek(src, { limit: 3, state: 'all' });
    expect(await b.moveMessages!(src, dst, { kind: 'ids', ids: ids.slice(0, 3) })).toBe(3);
    const arrived = await b.peek(dst, { limit: 10, state: 'all' });
    expect(arrived.map((m) => m.body)).toEqual(before.map((m) => m.body));
    expect(arrived.map((m) => m.headers)).toEqual(before.map((m) => m.headers));
    expect(arrived.every((m) => m.readCount === 0 && m.state === 'ready')).toBe(true);
    // More than one chunk (500) by filter.
    expect(await b.moveMessages!(src, dst, { kind: 'filter', state: 'all' })).toBe(1197);
    expect((await b.queueStats(src)).total).toBe(0);
    expect((await b.queueStats(dst)).total).toBe(1200);
    await expect(b.moveMessages!(dst, 'no_such_queue_ops', { kind: 'filter', state: 'all' })).rejects.toThrow(/does not exist/);
    await expect(b.moveMessages!(dst, dst, { kind: 'filter', state: 'all' })).rejects.toThrow(/queue itself/);
    expect((await b.queueStats(dst)).total).toBe(1200);
  });

  test('the archive (pgmq a_<queue>, SmoothMQ failed messages): browse, restore, move on', async () => {
    const { src, dst, ids } = await fresh(5);
    if (kind === 'pgmq') {
      await b.archive(src, ids.slice(0, 3));
    } else {
      // Failed: tries used up (max_tries 1) and visibility expired, set from outside.
      const db = new Database(fx.location);
      db.prepare(`UPDATE messages SET tries = 1, max_tries = 1, deliver_at = 0 WHERE id IN (${ids.slice(0, 3).join(',')})`).run();
      db.close();
    }
    const archived = await b.peekArchive!(src, { limit: 10 });
    expect(archived.map((m) => m.id)).toEqual(ids.slice(0, 3));
    if (kind === 'pgmq') expect(archived[0]!.archivedAt).toBeInstanceOf(Date);
    expect(archived[0]!.headers).toEqual({ trace: 't0' });
    expect(await b.moveMessages!(src, src, { kind: 'ids', ids: [ids[0]!] }, 'archive')).toBe(1);
    expect(await b.moveMessages!(src, dst, { kind: 'filter', state: 'all' }, 'archive')).toBe(2);
    expect(await b.countSelected!(src, { kind: 'filter', state: 'all' }, 'archive')).toBe(0);
    expect((await b.queueStats(src)).total).toBe(3);
    expect((await b.queueStats(dst)).total).toBe(2);
    const restored = await b.peek(src, { limit: 10, state: 'all', order: 'newest' });
    expect(restored[0]!.body).toBe(archived[0]!.body);
    expect(restored[0]!.readCount).toBe(0);
  });

  test('a move that fails inside the target (a trigger raises) leaves every message in the source', async () => {
    const { src, dst } = await fresh(20);
    if (kind === 'pgmq') {
      const c = new pg.Client({ connectionString: fx.location });
      await c.connect();
      await c.query(`CREATE OR REPLACE FUNCTION pgmq.smq_test_boom() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF (SELECT count(*) FROM pgmq.q_${dst}) >= 5 THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$`);
      await c.query(`CREATE TRIGGER boom BEFORE INSERT ON pgmq.q_${dst} FOR EACH ROW EXECUTE FUNCTION pgmq.smq_test_boom()`);
      await c.end();
    } else {
      const db = new Database(fx.location);
      const qid = db.prepare('SELECT id FROM queues WHERE name = ?').safeIntegers().pluck().get(dst) as bigint;
      db.exec(`CREATE TRIGGER boom BEFORE INSERT ON messages WHEN NEW.queue_id = ${qid}
        AND (SELECT count(*) FROM messages WHERE queue_id = ${qid}) >= 5 BEGIN SELECT RAISE(ABORT, 'boom'); END`);
      db.close();
    }
    await expect(b.moveMessages!(src, dst, { kind: 'filter', state: 'all' })).rejects.toThrow(/boom/);
    expect((await b.queueStats(src)).total).toBe(20);
    expect((await b.queueStats(dst)).total).toBe(0);
    if (kind === 'sqlite') {
      const db = new Database(fx.location);
      db.exec('DROP TRIGGER boom');
      db.close();
    }
  });
});
