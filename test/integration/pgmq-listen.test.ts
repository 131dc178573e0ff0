// Backend.listenInserts (the tester's --listen) on smq's compat schema and real pgmq 1.13.0
// (SMQ_TEST_PGMQ_DIR): a send wakes a waiter; a notification that came in before wait() is
// not lost; a connection ended by the server is made again and LISTENs again; close() ends
// the waits. A queue named with capitals: the compat schema notifies it, real 1.13.0 never
// does (capabilities.notifyCapitals says which). pgmq 1.4.4 refuses in one line.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openBackend } from '../../src/backends/index.js';
import type { Backend, InsertListener } from '../../src/backends/types.js';
import { openDb, real, stores113, type Db } from '../helpers/commands-113.js';
import { clonePgmq } from '../helpers/real-pgmq.js';

const queueName = () => `ls_${randomBytes(4).toString('hex')}`;

/** Polls `cond` every 10 ms for up to `ms`. */
async function until(cond: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.each(stores113('listen'))('listenInserts on $name', (store) => {
  let db: Db;
  let backend: Backend;
  const app = `smq_listen_${randomBytes(3).toString('hex')}`;
  const listeners: InsertListener[] = [];

  beforeAll(async () => {
    const url = await store.url();
    db = await openDb(url);
    backend = await openBackend({ kind: 'pgmq', url }, { applicationName: app });
  });
  afterAll(async () => {
    for (const l of listeners) await l.close();
    await backend?.close();
    await db?.c.end();
  });

  async function listening(queue: string, throttleMs = 0): Promise<InsertListener> {
    await backend.createQueue(queue);
    await backend.setNotifyInsert!(queue, throttleMs);
    const l = await backend.listenInserts!(queue);
    listeners.push(l);
    return l;
  }

  test('a send wakes a waiter at once; without one the wait times out', async () => {
    const q = queueName();
    const l = await listening(q);
    expect(l.channel).toBe(`pgmq.q_${q}.INSERT`);
    const idle = Date.now();
    expect(await l.wait(l.epoch, 150)).toBe('timeout');
    expect(Date.now() - idle).toBeGreaterThanOrEqual(140);

    const since = l.epoch;
    const waiting = l.wait(since, 10_000);
    const t0 = Date.now();
    await backend.send(q, { body: '{"a":1}' });
    expect(await waiting).toBe('notified');
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  test('no lost wake-up: a notification that came in before wait() makes it return at once', async () => {
    const q = queueName();
    const l = await listening(q);
    const since = l.epoch; // taken before the (empty) read
    await backend.send(q, { body: '{"a":1}' });
    await until(() => l.epoch > since);
    const t0 = Date.now();
    expect(await l.wait(since, 10_000)).toBe('notified');
    expect(Date.now() - t0).toBeLessThan(50);
  });

  test('a connection the server ends is made again and LISTENs again', async () => {
    const q = queueName();
    const l = await listening(q);
    const ended = await db.c.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND query ILIKE 'LISTEN%'`,
      [app],
    );
    expect(ended.rowCount).toBeGreaterThanOrEqual(1);
    await until(() => l.reconnects >= 1);
    // After the reconnection, a send wakes it again.
    const since = l.epoch;
    const waiting = l.wait(since, 10_000);
    await backend.send(q, { body: '{"a":2}' });
    expect(await waiting).toBe('notified');
    const listens = await db.c.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND query ILIKE 'LISTEN%'`, [app]);
    expect(listens.rowCount).toBeGreaterThanOrEqual(1);
  });

  test('close() ends a wait in progress', async () => {
    const l = await listening(queueName());
    const waiting = l.wait(l.epoch, 60_000);
    await l.close();
    expect(await waiting).toBe('closed');
    expect(await l.wait(0, 60_000)).toBe('closed');
  });

  test('a queue named with capitals: notified where capabilities.notifyCapitals says so', async () => {
    const q = `Ls_${randomBytes(4).toString('hex')}`;
    const l = await listening(q);
    expect(l.channel).toBe(`pgmq.q_${q.toLowerCase()}.INSERT`);
    const since = l.epoch;
    const waiting = l.wait(since, 1_000);
    await backend.send(q, { body: '{"a":1}' });
    expect(await waiting).toBe(backend.capabilities.notifyCapitals ? 'notified' : 'timeout');
    expect(backend.capabilities.notifyCapitals).toBe(store.name.startsWith("smq's compat"));
  });

  test('a missing queue: queue-not-found', async () => {
    await expect(backend.listenInserts!(queueName())).rejects.toMatchObject({ kind: 'queue-not-found' });
  });
});

const r144 = real('1.4.4');
describe.skipIf(!r144)('pgmq 1.4.4', () => {
  test('has no insert notifications: one line', async () => {
    const url = await clonePgmq(r144!.template, `listen_144_${randomBytes(3).toString('hex')}`);
    const b = await openBackend({ kind: 'pgmq', url });
    try {
      await b.createQueue('jobs');
      await expect(b.listenInserts!('jobs')).rejects.toThrow(/no insert notifications/);
    } finally {
      await b.close();
    }
  });
});
