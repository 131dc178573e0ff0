// What a sender or receiver loop runs with: the run's parameters, the recorder, the clock,
// the stop signal, the watch over its calls in flight and the backlog gate. Nothing is kept
// at module level: a worker thread builds one context for its loops (worker.ts), a test
// builds its own and runs the loops in-process.
import type { Backend } from '../../backends/index.js';
import { BacklogGate } from '../backlog.js';
import { CallWatch } from '../calls.js';
import { monoUs } from '../clock.js';
import { errorKind, errorText, recordFailure, type FailureRun } from '../failures.js';
import type { WorkerSetup } from '../protocol.js';
import type { Recorder } from '../recorder.js';
import { backoffMs } from '../retry.js';
import { WriteOutageCell } from '../write-outage.js';

/**
 * better-sqlite3 answers synchronously, so a loop of awaited calls never reaches the event
 * loop: no flush timer, no STOP, no lag samples. Give the loop a turn every YIELD_US.
 */
const YIELD_US = 10_000;

/** The monotonic clock of the loops, and their turns of the event loop (shared by the loops of a thread). */
export class LoopClock {
  private lastYieldUs = 0;

  constructor(readonly nowUs: () => number = monoUs) {}

  /**
   * A turn of the event loop to wait for, when one is due; undefined otherwise. Not async:
   * a loop awaits it only when it is due, so that its other turns cost no promise.
   */
  yieldNow(): Promise<void> | undefined {
    const now = this.nowUs();
    if (now - this.lastYieldUs < YIELD_US) return undefined;
    this.lastYieldUs = now;
    return new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** The run is stopping: the loops finish their current call and end. */
export class Stop {
  stopping = false;
  private readonly wakers = new Set<() => void>();
  private resolveStopped!: () => void;
  /** Resolves on stop(): a wait that is not a pause (a LISTEN's) races it. */
  readonly stopped = new Promise<void>((resolve) => (this.resolveStopped = resolve));

  stop(): void {
    this.stopping = true;
    this.resolveStopped();
    for (const wake of this.wakers) wake();
  }

  /** Sleeps, but wakes at once on stop() (and does not sleep once stopping). */
  readonly pause = (ms: number): Promise<void> => {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      const wakers = this.wakers;
      function done() {
        clearTimeout(t);
        wakers.delete(done);
        resolve();
      }
      wakers.add(done);
    });
  };
}

export interface LoopContext {
  readonly setup: WorkerSetup;
  readonly recorder: Recorder;
  readonly clock: LoopClock;
  readonly stop: Stop;
  /** Every call to the store goes through this: one that never answers is given up on (calls.ts). */
  readonly watch: CallWatch;
  /** --max-backlog, shared with every other worker of the run. */
  readonly gate: BacklogGate | undefined;
  /** Told the thread's messages sent (senders) or received (receivers) so far: the crashWorker test hook. */
  readonly onMessages: (count: number) => void;
  /** Senders: the run's window of failed writes, shared by every sender (write-outage.ts). */
  readonly writeOutage: WriteOutageCell;
}

export function loopContext(setup: WorkerSetup, recorder: Recorder, onMessages: (count: number) => void = () => {}): LoopContext {
  const clock = new LoopClock();
  return {
    setup,
    recorder,
    clock,
    stop: new Stop(),
    watch: new CallWatch(() => clock.nowUs() / 1000),
    gate: setup.backlog && new BacklogGate(setup.backlog.cells, setup.backlog.max, setup.batch, undefined, setup.backlog.oneThread),
    onMessages,
    writeOutage: new WriteOutageCell(setup.writeOutage),
  };
}

/** One loop: its connection, and its failed calls since its last successful one. */
export interface LoopSlot extends FailureRun {
  readonly index: number;
  readonly backend: Backend;
}

/**
 * Counts a failed call and backs off before the next one; false when the loop should give
 * up. A lost connection is retried: the next call takes a new connection from the pool (the
 * pool drops a client whose connection failed), so a restarted server is picked up again.
 */
export async function failed(ctx: LoopContext, slot: FailureRun, e: unknown, callStartUs?: number): Promise<boolean> {
  const { recorder, setup, stop } = ctx;
  const totals = recorder.totals;
  const kind = errorKind(e);
  recorder.countError(kind);
  // The next call opens a new connection, perhaps on another server (a failover).
  if (kind === 'connection') slot.serverUnknown = true;
  totals.lastError = errorText(e);
  const fatal = recordFailure(slot, e, kind, {
    nowUs: ctx.clock.nowUs(),
    callStartUs,
    outageTimeoutMs: setup.outageTimeoutMs,
    stopping: stop.stopping,
    lastError: totals.lastError,
  });
  recorder.error(fatal ?? totals.lastError, fatal !== undefined, kind);
  if (fatal !== undefined) return false;
  await stop.pause(backoffMs(slot.consecutiveErrors - 1));
  return true;
}
