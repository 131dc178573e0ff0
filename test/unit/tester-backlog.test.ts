// The --max-backlog gate's logic, in one thread (the shared cells work the same within one).
// Real worker threads run it in tester-backlog.test.ts.
import { describe, expect, test } from 'vitest';
import { BacklogGate as Gate, newBacklogCells } from '../../src/tester/backlog.js';

const now = () => performance.now();
const never = () => false;

// Both ways of waiting: Atomics.waitAsync (parts on other threads) and a promise on this thread (oneThread).
describe.each([
  ['across threads', false],
  ['on one thread', true],
])('BacklogGate, waits %s', (_, oneThread) => {
  class BacklogGate extends Gate {
    constructor(shared: SharedArrayBuffer, max: number, batch: number, pollMs?: number) {
      super(shared, max, batch, pollMs, oneThread);
    }
  }

  test('reserves up to the bound, never past it', async () => {
    const gate = new BacklogGate(newBacklogCells(), 10, 3);
    for (let i = 0; i < 3; i++) expect(await gate.reserve(3, 10_000, never, now)).toBe('reserved');
    expect(gate.backlog()).toBe(9);
    expect(await gate.reserve(1, 10_000, never, now)).toBe('reserved');
    expect(gate.backlog()).toBe(10);
    let stop = false;
    const waiting = gate.reserve(1, 10_000, () => stop, now);
    await new Promise((r) => setTimeout(r, 120));
    stop = true;
    expect(await waiting).toBe('cancelled');
    expect(gate.backlog()).toBe(10); // a cancelled wait takes nothing
  });

  test('tryReserve takes room only when there is room, and never waits', () => {
    const gate = new BacklogGate(newBacklogCells(), 3, 1);
    expect(gate.tryReserve(2)).toBe(true);
    expect(gate.tryReserve(2)).toBe(false);
    expect(gate.backlog()).toBe(2);
    expect(gate.tryReserve(1)).toBe(true);
    expect(gate.tryReserve(1)).toBe(false);
    gate.release(1, true);
    expect(gate.tryReserve(1)).toBe(true);
    expect(gate.backlog()).toBe(3);
  });

  test('a waiting sender is woken when receivers bring the backlog down to half', async () => {
    const gate = new BacklogGate(newBacklogCells(), 8, 1, 5000); // polls too rarely to matter
    for (let i = 0; i < 8; i++) await gate.reserve(1, 10_000, never, now);
    let done = false;
    const waiting = gate.reserve(1, 10_000, never, now).then((r) => ((done = true), r));
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    gate.release(5, true); // 8 -> 3: below the resume mark (4)
    const t0 = now();
    expect(await waiting).toBe('reserved');
    expect(now() - t0).toBeLessThan(1000); // woken, not found by its poll
    expect(gate.backlog()).toBe(4);
  });

  test('gives up waiting when nothing is received for stuckMs, and takes the room anyway', async () => {
    const gate = new BacklogGate(newBacklogCells(), 2, 1);
    await gate.reserve(2, 10_000, never, now);
    const t0 = now();
    expect(await gate.reserve(1, 200, never, now)).toBe('stuck');
    expect(now() - t0).toBeGreaterThanOrEqual(190);
    expect(gate.backlog()).toBe(3);
  });

  test('receives that keep coming keep a sender waiting instead of giving up', async () => {
    const gate = new BacklogGate(newBacklogCells(), 4, 1);
    await gate.reserve(4, 10_000, never, now);
    // A slow trickle: one receive every 60 ms, each followed by a send that fills the room.
    const trickle = setInterval(() => {
      gate.release(1, true);
      void gate.reserve(1, 10_000, never, now);
    }, 60);
    let stop = false;
    const waiting = gate.reserve(1, 200, () => stop, now);
    await new Promise((r) => setTimeout(r, 500));
    stop = true;
    clearInterval(trickle);
    expect(await waiting).toBe('cancelled');
  });

  test('failed sends give their room back', async () => {
    const gate = new BacklogGate(newBacklogCells(), 5, 5);
    await gate.reserve(5, 10_000, never, now);
    gate.release(5, false);
    expect(gate.backlog()).toBe(0);
    expect(await gate.reserve(5, 10_000, never, now)).toBe('reserved');
  });

  test("a receiver part's gate wakes the waiting senders of the sender part's gate over the same cells", async () => {
    const cells = newBacklogCells();
    const senders = new BacklogGate(cells, 8, 1, 5000); // polls too rarely to matter
    const receivers = new BacklogGate(cells, 8, 1, 5000);
    for (let i = 0; i < 8; i++) await senders.reserve(1, 10_000, never, now);
    const woken: string[] = [];
    const waiting = [0, 1, 2].map((k) => senders.reserve(1, 10_000, never, now).then((r) => (woken.push(`${k}`), r)));
    await new Promise((r) => setTimeout(r, 20));
    expect(woken).toEqual([]);
    receivers.release(1, true); // 8 -> 7: above the resume mark, nobody is woken
    await new Promise((r) => setTimeout(r, 20));
    expect(woken).toEqual([]);
    const t0 = now();
    receivers.release(5, true); // 7 -> 2: every waiting sender is woken
    expect(await Promise.all(waiting)).toEqual(['reserved', 'reserved', 'reserved']);
    expect(now() - t0).toBeLessThan(1000);
    expect(senders.backlog()).toBe(5);
  });
});
