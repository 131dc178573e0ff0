// One clock for every thread of a run. process.hrtime() reads CLOCK_MONOTONIC, which all
// worker threads of a process share, so a send time taken in a sender and a receive time
// taken in a receiver can be subtracted. (performance.now() is relative to each thread's
// own time origin and cannot.)

/** Microseconds on the process-wide monotonic clock. */
export function monoUs(): number {
  const [sec, ns] = process.hrtime();
  return sec * 1e6 + ns / 1e3;
}
