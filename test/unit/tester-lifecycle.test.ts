// The tester's stop path without threads or a database: the supervision loop never re-enters
// itself (a worker found stuck stops every worker, which pokes the loop: once this recursed
// until the stack overflowed), stuck workers are terminated once, and calls that never answer
// are given up on.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { CallWatch, NoAnswer } from '../../src/tester/calls.js';
import { overdueWorkers, Supervisor, withDeadline } from '../../src/tester/lifecycle.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('Supervisor', () => {
  test('a poke from inside a step runs after it, never inside it', async () => {
    let depth = 0;
    let maxDepth = 0;
    let steps = 0;
    // As the engine's step did: a stuck worker found → onFatal → poke, on every step.
    const step = () => {
      depth += 1;
      maxDepth = Math.max(maxDepth, depth);
      steps += 1;
      supervisor.poke();
      depth -= 1;
      return steps >= 50;
    };
    const supervisor: Supervisor = new Supervisor(step, 1);
    await supervisor.run();
    expect(maxDepth).toBe(1);
    expect(supervisor.isFinished).toBe(true);
  });

  test('a step that pokes every time is bounded per poke; the timer carries on', () => {
    vi.useFakeTimers();
    let steps = 0;
    const supervisor: Supervisor = new Supervisor(() => {
      steps += 1;
      supervisor.poke();
      return false;
    }, 100);
    void supervisor.run();
    supervisor.poke();
    expect(steps).toBe(4);
    vi.advanceTimersByTime(100);
    expect(steps).toBe(8);
  });

  test('after the end, pokes and ticks do nothing', async () => {
    let steps = 0;
    const supervisor = new Supervisor(() => ++steps >= 1, 5);
    const done = supervisor.run();
    supervisor.poke();
    await done;
    supervisor.poke();
    await new Promise((r) => setTimeout(r, 30));
    expect(steps).toBe(1);
  });
});

describe('overdueWorkers', () => {
  const w = (p: { finished?: boolean; stopSentAtMs?: number; terminating?: boolean }) => ({
    finished: p.finished ?? false,
    stopSentAtMs: p.stopSentAtMs,
    terminating: p.terminating ?? false,
  });
  test('only workers told to stop long enough ago, not finished, not already being terminated', () => {
    const stuck = w({ stopSentAtMs: 0 });
    const workers = [
      stuck,
      w({}),
      w({ stopSentAtMs: 0, finished: true }),
      w({ stopSentAtMs: 0, terminating: true }),
      w({ stopSentAtMs: 900 }),
    ];
    expect(overdueWorkers(workers, 1000, 1000)).toEqual([stuck]);
  });
});

describe('withDeadline', () => {
  test('a call that never answers fails as a lost connection after the deadline', async () => {
    const e = await withDeadline(new Promise(() => undefined), 20, 'reading the queue').catch((x: unknown) => x);
    expect(e).toMatchObject({ kind: 'connection', message: 'reading the queue: no answer from the database for 0.0 s' });
  });
  test('an answer in time passes through, and so does a failure', async () => {
    await expect(withDeadline(Promise.resolve(7), 1000, 'x')).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error('boom')), 1000, 'x')).rejects.toThrow('boom');
  });
});

describe('CallWatch', () => {
  test('gives up on calls that waited the limit, with when they started; younger calls go on', async () => {
    let now = 0;
    const watch = new CallWatch(() => now);
    const old = watch.track(new Promise<number>(() => undefined), 0);
    let resolveYoung!: (v: number) => void;
    now = 2000;
    const young = watch.track(new Promise<number>((r) => (resolveYoung = r)));
    now = 3000;
    expect(watch.oldestSinceMs()).toBe(0);
    expect(watch.giveUpOlderThan(3000)).toBe(1);
    const e = await old.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NoAnswer);
    expect(e).toMatchObject({ kind: 'connection', sinceMs: 0, message: 'no answer from the database for 3.0 s' });
    expect(watch.inFlight).toBe(1);
    resolveYoung(5);
    await expect(young).resolves.toBe(5);
    expect(watch.inFlight).toBe(0);
  });

  test('an answer that comes after the watch gave up is dropped, not thrown anywhere', async () => {
    let now = 0;
    const watch = new CallWatch(() => now);
    let fail!: (e: Error) => void;
    const tracked = watch.track(new Promise<number>((_, rej) => (fail = rej)));
    now = 10;
    watch.giveUpOlderThan(5);
    await expect(tracked).rejects.toBeInstanceOf(NoAnswer);
    fail(new Error('late')); // no unhandled rejection
    await new Promise((r) => setTimeout(r, 10));
  });

  test('abandonAll gives up on every call in flight and on every later one', async () => {
    const watch = new CallWatch(() => 0);
    const a = watch.track(new Promise(() => undefined));
    watch.abandonAll('stopping');
    await expect(a).rejects.toMatchObject({ message: 'stopping' });
    await expect(watch.track(new Promise(() => undefined))).rejects.toMatchObject({ message: 'stopping' });
  });
});
