// What a run tells its listeners (the command, the live view): its phases, a progress
// snapshot once a second, worker errors, and the report at the end.
import type { TesterConfig } from './config.js';
import type { TesterEnvironment } from './environment.js';
import type { FaultRecord, LiveFault } from './fault-runner.js';
import type { BacklogTrend, WorkerRate } from './live-facts.js';
import type { WorkerRole } from './protocol.js';
import type { TesterReport } from './report.js';
import type { SecondCounts, SeriesPoint } from './series.js';

export type TesterPhase = 'connecting' | 'sending' | 'draining' | 'settling' | 'stopping' | 'done';

export interface ProgressSnapshot {
  readonly elapsedMs: number;
  readonly phase: TesterPhase;
  readonly interrupted: boolean;
  /** Messages the senders will send in all (--messages), else undefined. */
  readonly totalToSend: number | undefined;
  /** --duration (ms), else undefined. */
  readonly durationMs: number | undefined;
  readonly totals: SecondCounts;
  /** Last complete second. */
  readonly sendRate: number;
  readonly receiveRate: number;
  /** Complete seconds so far. */
  readonly series: readonly SeriesPoint[];
  /** Running end-to-end percentiles (ms) over complete seconds; undefined before the first. */
  readonly endToEnd: { readonly p50: number; readonly p99: number } | undefined;
  readonly drain: { readonly pending: number; readonly idleMs: number; readonly timeoutMs: number } | undefined;
  readonly violationsSoFar: number;
  /**
   * Sent and not yet received so far (complete seconds), where it went over the last seconds,
   * the --max-backlog bound and the share of the senders' time spent waiting for room under it.
   */
  readonly backlog: {
    readonly count: number;
    readonly trend: BacklogTrend;
    readonly max: number | undefined;
    readonly senderWaitShare: number | undefined;
  };
  /** Failed calls so far by kind: connection (server down, connection lost) and other. */
  readonly errorsByKind: { readonly connection: number; readonly other: number };
  /** Each running worker thread's rate, the lagging ones marked (live-facts.ts); empty outside sending and draining. */
  readonly workers: readonly WorkerRate[];
  /** No call answered for a while and every thread waits on one (a stopped server); else undefined. */
  readonly stalled: { readonly quietMs: number; readonly calls: number } | undefined;
  readonly lastError: string | undefined;
  /** Each --fault fired so far, with what came of it yet (a command may still run). */
  readonly faults: readonly LiveFault[];
}

export interface TesterEvents {
  start: [{ readonly environment: TesterEnvironment; readonly queue: string; readonly runId: string; readonly config: TesterConfig }];
  progress: [ProgressSnapshot];
  phase: [TesterPhase];
  workerError: [{ readonly role: WorkerRole; readonly indices: readonly number[]; readonly message: string }];
  /** A --fault fired (its record is completed when it is done). */
  fault: [FaultRecord];
  done: [TesterReport];
}
