// The tester's stop path, apart from the engine so that it can be tested without threads or a
// database: the supervision loop that must never re-enter itself, the workers that did not
// stop in time, and a deadline for the main thread's own calls after the run.
import { SmqError } from '../errors.js';

/**
 * Runs `step` on a timer and whenever something happened (poke), until it reports the end.
 * A poke from inside a step (a worker's failure found by the step stops every worker, which
 * pokes) is not run inside it: it only asks for one more step once this one returns. So the
 * step never recurses, however the events that poke it chain.
 */
export class Supervisor {
  private running = false;
  private again = false;
  private finished = false;
  private timer: NodeJS.Timeout | undefined;
  private resolveDone: () => void = () => undefined;
  /** At most this many steps in a row for pokes made during steps; the timer does the rest. */
  private static readonly MAX_STEPS_PER_POKE = 4;

  constructor(
    /** One look at the run; true once it is over. */
    private readonly step: () => boolean,
    private readonly tickMs: number,
  ) {}

  /** Starts ticking; resolves once a step has reported the end. */
  run(): Promise<void> {
    const done = new Promise<void>((resolve) => {
      this.resolveDone = resolve;
    });
    this.timer = setInterval(() => this.poke(), this.tickMs);
    return done;
  }

  get isFinished(): boolean {
    return this.finished;
  }

  /** Something happened: take a look now (or right after the step in progress). */
  poke(): void {
    if (this.finished) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      for (let steps = 0; steps < Supervisor.MAX_STEPS_PER_POKE; steps++) {
        this.again = false;
        if (this.step()) {
          this.finish();
          return;
        }
        if (!this.again) return;
      }
    } finally {
      this.running = false;
    }
  }

  private finish(): void {
    this.finished = true;
    clearInterval(this.timer);
    this.resolveDone();
  }
}

/** What the stop path needs to know of a worker thread. */
export interface StoppingWorker {
  /** Its result arrived, or the thread is gone. */
  readonly finished: boolean;
  /** When STOP went out (ms, Date.now); undefined before. */
  readonly stopSentAtMs: number | undefined;
  /** Already being terminated: never again. */
  readonly terminating: boolean;
}

/** Workers that were told to stop timeoutMs ago or more and have not: each to be terminated, once. */
export function overdueWorkers<W extends StoppingWorker>(workers: readonly W[], nowMs: number, timeoutMs: number): W[] {
  return workers.filter((w) => !w.finished && !w.terminating && w.stopSentAtMs !== undefined && nowMs - w.stopSentAtMs >= timeoutMs);
}

/**
 * The call's answer, or after ms a lost-connection error saying that `what` got no answer
 * (a hung server never answers, and never closes the connection either). The call itself
 * goes on: its outcome, if it ever comes, is ignored.
 */
export function withDeadline<T>(call: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new SmqError('connection', `${what}: no answer from the database for ${(ms / 1000).toFixed(1)} s`)),
      ms,
    );
    call.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
