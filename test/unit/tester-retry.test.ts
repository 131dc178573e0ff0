// The tester's one backoff formula (retry.ts) and the retry loops built on it: pure, no store.
import { describe, expect, test } from 'vitest';
import { SmqError } from '../../src/errors.js';
import {
  AFTER_RUN_BACKOFF,
  backoffMs,
  CALL_BACKOFF,
  EMPTY_RECEIVE_BACKOFF,
  openRetrying,
  retryLostConnection,
} from '../../src/tester/retry.js';

const series = (b: Parameters<typeof backoffMs>[1], n: number, random?: () => number) =>
  Array.from({ length: n }, (_, k) => backoffMs(k, b, random));

describe('backoffMs', () => {
  test('doubles from the first pause up to the ceiling, and stays there', () => {
    expect(series(EMPTY_RECEIVE_BACKOFF, 8)).toEqual([1, 2, 4, 8, 16, 32, 32, 32]);
    expect(series(AFTER_RUN_BACKOFF, 6)).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(backoffMs(10_000, AFTER_RUN_BACKOFF)).toBe(1000);
  });

  test('a failed call waits 50 ms doubling to 1 s, drawn between half and all of it', () => {
    expect(series(CALL_BACKOFF, 7, () => 1)).toEqual([50, 100, 200, 400, 800, 1000, 1000]);
    expect(series(CALL_BACKOFF, 7, () => 0)).toEqual([25, 50, 100, 200, 400, 500, 500]);
    for (let k = 0; k < 200; k++) {
      const ms = backoffMs(k % 8);
      const full = Math.min(1000, 50 * 2 ** (k % 8));
      expect(ms).toBeGreaterThanOrEqual(full / 2);
      expect(ms).toBeLessThanOrEqual(full);
    }
  });
});

describe('retryLostConnection', () => {
  const lost = () => new SmqError('connection', 'ECONNREFUSED');

  test('retries a lost connection with the after-run pauses until the call answers', async () => {
    const waits: number[] = [];
    let calls = 0;
    const value = await retryLostConnection(
      Date.now() + 60_000,
      () => (++calls < 4 ? Promise.reject(lost()) : Promise.resolve('ok')),
      async (ms) => void waits.push(ms),
    );
    expect(value).toBe('ok');
    expect(waits).toEqual([100, 200, 400]);
  });

  test('any other error, or a pause that would end past the deadline, is thrown at once', async () => {
    const other = new SmqError('queue-not-found', 'no queue q');
    await expect(
      retryLostConnection(
        Date.now() + 60_000,
        () => Promise.reject(other),
        () => Promise.resolve(),
      ),
    ).rejects.toBe(other);
    // The pauses here take no time: 100 and 200 ms still end before the deadline, 400 would not.
    const waits: number[] = [];
    const e = lost();
    await expect(
      retryLostConnection(
        Date.now() + 350,
        () => Promise.reject(e),
        async (ms) => void waits.push(ms),
      ),
    ).rejects.toBe(e);
    expect(waits).toEqual([100, 200]);
  });
});

describe('openRetrying', () => {
  const stop = (stopping = false) => ({ stopping, pause: () => Promise.resolve() });

  test('a connection refused while the run starts is tried again', async () => {
    let attempts = 0;
    const opened = await openRetrying(
      () => (++attempts < 3 ? Promise.reject(new SmqError('connection', 'ECONNREFUSED')) : Promise.resolve('backend')),
      5000,
      stop(),
    );
    expect(opened).toBe('backend');
    expect(attempts).toBe(3);
  });

  test('other errors, and any error once the run stops, end it at once', async () => {
    let attempts = 0;
    const auth = new SmqError('auth', 'password authentication failed');
    await expect(openRetrying(() => (attempts++, Promise.reject(auth)), 5000, stop())).rejects.toBe(auth);
    const lost = new SmqError('connection', 'ECONNREFUSED');
    await expect(openRetrying(() => (attempts++, Promise.reject(lost)), 5000, stop(true))).rejects.toBe(lost);
    expect(attempts).toBe(2);
  });
});
