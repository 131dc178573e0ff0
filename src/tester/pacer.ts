// Open-loop pacing (--rate): each send is due at a time computed ahead (start + k × interval)
// and must start then, not later: lateness here is the tester's own, and would otherwise be
// reported as queue latency (latencies count from the due time). Node's timers are too coarse
// for that: setTimeout works in whole milliseconds of a loop time cached per turn, and wakes
// 0.7 ms late at the median (2 ms at p99) with no database at all. So a timer only brings the
// sender close (or does nothing, for short waits of a sender alone on its thread); the last
// stretch is a timed wait on an atomic (a futex: tens of microseconds of slack) and a spin of
// a few microseconds. The remaining lateness is measured and reported
// apart as the schedule lag, as pgbench does.

/**
 * A timer brings the sender this close to the due time (µs); the rest is waited precisely.
 * A sender alone on its thread waits precisely for anything up to EXCLUSIVE_MARGIN_US (its
 * thread has nothing else to do; STOP is seen at most that late); one that shares its thread
 * only for the last SHARED_MARGIN_US.
 */
const EXCLUSIVE_MARGIN_US = 20_000;
const SHARED_MARGIN_US = 2000;
/** The very end is spun, not waited: a futex wakes this late or so. */
const SPIN_US = 60;
/** A thread shared with other senders blocks at most this long at a time. */
const SHARED_SLICE_US = 200;

const cell = new Int32Array(new SharedArrayBuffer(4));

export interface PaceClock {
  /** Monotonic time in µs. */
  nowUs(): number;
  /** A timer sleep that ends early when the run stops. */
  sleepMs(ms: number): Promise<void>;
  stopped(): boolean;
}

/**
 * Waits until dueUs; false if the run stopped meanwhile. exclusive: nothing else runs on this
 * thread (one sender alone), so the last stretch may block it; otherwise the other senders'
 * answers must not wait behind it for long, and the last stretch blocks in short slices.
 */
export async function waitUntil(dueUs: number, clock: PaceClock, exclusive: boolean): Promise<boolean> {
  const marginUs = exclusive ? EXCLUSIVE_MARGIN_US : SHARED_MARGIN_US;
  for (;;) {
    if (clock.stopped()) return false;
    const leftUs = dueUs - clock.nowUs();
    if (leftUs <= marginUs) break;
    await clock.sleepMs(Math.max(1, Math.floor((leftUs - marginUs) / 1000)));
  }
  for (;;) {
    const restUs = dueUs - clock.nowUs() - SPIN_US;
    if (restUs <= 0) break;
    // Blocks the thread: all of the rest when nothing else runs on it, else in short slices
    // with a turn of the event loop between them for the other senders' answers.
    Atomics.wait(cell, 0, 0, (exclusive ? restUs : Math.min(restUs, SHARED_SLICE_US)) / 1000);
    if (!exclusive) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (clock.stopped()) return false;
    }
  }
  while (clock.nowUs() < dueUs) {
    // the last few microseconds
  }
  return !clock.stopped();
}
