// --max-backlog: a closed loop between senders and receivers. All worker threads share two
// Int32 cells: the messages sent and not yet received (the backlog this run put in the queue),
// and a count of receive calls that took messages (to tell a slow queue from a stuck one).
// A sender reserves room for a call before it sends and waits while there is none; receivers
// give the room back. With a bound, the senders run at the pace the receivers keep up with,
// as pgbench's send → read → delete loop does, instead of piling up a queue that only grows.

/** Atomics.waitAsync is in Node 20 (V8), but not in TypeScript's ES2023 lib. */
type WaitAsync = (
  cells: Int32Array,
  index: number,
  value: number,
  timeoutMs: number,
) => { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

const BACKLOG = 0;
const RECEIVES = 1;
const POLL_MS = 50;

export function newBacklogCells(): SharedArrayBuffer {
  return new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
}

export type Reserve = 'reserved' | 'stuck' | 'cancelled';

/**
 * The senders waiting on this thread, by the run's cells: the gates of a thread's sender part
 * and receiver part are two objects over one SharedArrayBuffer (one structured clone gives the
 * thread one object), and a receiver's release wakes the senders of its own thread directly.
 */
const waitingHere = new WeakMap<SharedArrayBuffer, Set<() => void>>();

export class BacklogGate {
  private readonly cells: Int32Array;
  /**
   * Waiting senders are woken when the backlog falls to this (half the bound, and room for a
   * whole batch): not on every message received, so that a full queue does not cost a
   * thread wake-up per message.
   */
  private readonly resumeAt: number;

  /** Senders of this thread waiting for room (woken by release on this thread). */
  private readonly waiting: Set<() => void>;

  constructor(
    shared: SharedArrayBuffer,
    readonly max: number,
    batch: number,
    /** A waiting sender looks again at least this often (STOP, its deadline, a stuck queue). */
    private readonly pollMs = POLL_MS,
    /**
     * Every sender and receiver of the run is on this thread (the default layout on a small
     * machine): waits and wake-ups stay on the thread, a promise each. Atomics.waitAsync wakes a
     * waiter through a task posted to the thread's loop: about 6 to 8 µs of CPU more per wait
     * (2026-12-07, this 2-core host; a same-thread ping-pong of each, 3 rounds of 20,000).
     */
    private readonly oneThread = false,
  ) {
    this.cells = new Int32Array(shared);
    this.resumeAt = Math.max(0, Math.min(Math.floor(max / 2), max - batch));
    let waiting = waitingHere.get(shared);
    if (!waiting) waitingHere.set(shared, (waiting = new Set()));
    this.waiting = waiting;
  }

  /** Messages sent (or being sent) and not yet received, as the workers counted them. */
  backlog(): number {
    return Atomics.load(this.cells, BACKLOG);
  }

  /**
   * Takes room for n messages, waiting while the backlog would pass the bound. 'stuck': no
   * receive took anything for stuckMs while this sender waited (messages lost, or receivers
   * that cannot receive); the room is taken anyway, so that a run never hangs on its own
   * bound. 'cancelled': shouldStop() became true while waiting; nothing was taken.
   */
  async reserve(n: number, stuckMs: number, shouldStop: () => boolean, nowMs: () => number): Promise<Reserve> {
    const cells = this.cells;
    let receives = Atomics.load(cells, RECEIVES);
    let progressAt = nowMs();
    for (;;) {
      const v = this.take(n);
      if (v < 0) return 'reserved';
      if (shouldStop()) return 'cancelled';
      const r = Atomics.load(cells, RECEIVES);
      if (r !== receives) {
        receives = r;
        progressAt = nowMs();
      } else if (nowMs() - progressAt >= stuckMs) {
        Atomics.add(cells, BACKLOG, n);
        return 'stuck';
      }
      if (this.oneThread) {
        await this.waitHere();
        continue;
      }
      const w = waitAsync(cells, BACKLOG, v, this.pollMs);
      if (w.async) await w.value;
    }
  }

  /** Until a release on this thread brings the backlog down to resumeAt, or pollMs. */
  private waitHere(): Promise<void> {
    return new Promise<void>((resolve) => {
      const waiting = this.waiting;
      const wake = () => {
        clearTimeout(timer);
        waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, this.pollMs);
      waiting.add(wake);
    });
  }

  /** Takes room for n messages if there is room now, without waiting (reserve's first step). */
  tryReserve(n: number): boolean {
    return this.take(n) < 0;
  }

  /** Takes room for n messages: -1 when taken, else the backlog that left no room (to wait on). */
  private take(n: number): number {
    const cells = this.cells;
    for (;;) {
      const v = Atomics.load(cells, BACKLOG);
      if (v + n > this.max) return v;
      if (Atomics.compareExchange(cells, BACKLOG, v, v + n) === v) return -1;
    }
  }

  /** n messages left the backlog: received, or never sent (a failed or undone send). */
  release(n: number, received: boolean): void {
    if (n <= 0) return;
    const cells = this.cells;
    if (received) Atomics.add(cells, RECEIVES, 1);
    const before = Atomics.sub(cells, BACKLOG, n);
    if (before > this.resumeAt && before - n <= this.resumeAt) {
      if (this.waiting.size > 0) for (const wake of [...this.waiting]) wake();
      if (!this.oneThread) Atomics.notify(cells, BACKLOG);
    }
  }
}
