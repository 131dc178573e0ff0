// The deadline wrapper on its own, with a stand-in store (the real ones: hung-server.test.ts).
import { describe, expect, test } from 'vitest';
import { callTimeout, formatTimeout, guardBackend, isCallTimeout, withDeadline } from '../../src/backends/deadline.js';
import type { Backend } from '../../src/backends/types.js';

const never = () => new Promise<never>(() => undefined);

describe('deadlines', () => {
  test('formatTimeout names the time as messages show it', () => {
    expect(formatTimeout(10_000)).toBe('10 s');
    expect(formatTimeout(1_500)).toBe('1.5 s');
    expect(formatTimeout(250)).toBe('250 ms');
  });

  test('withDeadline settles like the call, or rejects with the timeout once it has passed', async () => {
    await expect(withDeadline(Promise.resolve(7), 50, () => callTimeout('db', 50))).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error('boom')), 50, () => callTimeout('db', 50))).rejects.toThrow('boom');
    const e = await withDeadline(never(), 30, () => callTimeout('postgres://u:***@h/db', 30)).catch((x: unknown) => x);
    expect(isCallTimeout(e)).toBe(true);
    expect((e as Error).message).toBe('no answer from postgres://u:***@h/db within 30 ms');
  });

  test('guardBackend races every async call, leaves close() and plain values alone, keeps `this`', async () => {
    let closed = false;
    const store = {
      kind: 'pgmq',
      rows: 3,
      async listQueues() {
        return never();
      },
      async queueStats(this: { rows: number }) {
        return this.rows;
      },
      extra() {
        return 'sync';
      },
      async close() {
        await new Promise((r) => setTimeout(r, 80));
        closed = true;
      },
    };
    const guarded = guardBackend(store as unknown as Backend, 40, 'db') as unknown as typeof store;
    expect(guarded.rows).toBe(3);
    expect(guarded.extra()).toBe('sync');
    await expect(guarded.queueStats()).resolves.toBe(3);
    const started = Date.now();
    await expect(guarded.listQueues()).rejects.toMatchObject({ kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1_000);
    // close() is not cut short by the deadline: it runs to its end.
    await guarded.close();
    expect(closed).toBe(true);
  });
});
