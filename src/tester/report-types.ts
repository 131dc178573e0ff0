// The shape of a run's JSON report (--json); report.ts builds it.
import type { SteadyCpu } from './cpu-window.js';
import type { FanoutReport } from './fanout.js';
import type { CheckerCounts, ExampleClass, MessageRef } from './checker.js';
import type { FailoverReport } from './failover.js';
import type { LatencySummary } from './histograms.js';
import type { SecondLatency } from './intervals.js';
import type { DatabaseFigures } from './store-figures.js';
import type { SeriesPoint } from './series.js';
import type { MaxP99Outcome } from './threshold.js';
import type { Verdict } from './verdict.js';
import type { CallsReport } from './report-parts.js';

export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

/** A latency without a sample (count 0): nothing measured, so no figure (null), never 0. */
export type NoSamples = { readonly count: 0 } & { readonly [K in Exclude<keyof LatencySummary, 'count'>]: null };
export type ReportedLatency = LatencySummary | NoSamples;

export interface LatencyReport {
  /** send start -> receive (or intended send time -> receive, with --rate) */
  readonly endToEnd: ReportedLatency;
  readonly send: ReportedLatency;
  readonly receive: ReportedLatency;
  readonly ack: ReportedLatency;
  /** With --rate only: the same, measured from the actual send start (service time). */
  readonly endToEndService?: ReportedLatency;
  readonly sendService?: ReportedLatency;
  /** With --rate only: how late each send started after its due time (the tester's own lag, as pgbench's). */
  readonly scheduleLag?: ReportedLatency;
}

export interface WorkerReport {
  readonly role: 'sender' | 'receiver';
  /** The senders or receivers this thread ran. */
  readonly indices: readonly number[];
  readonly eventLoopP99Ms: number;
  readonly eventLoopMaxMs: number;
  readonly utilization: number;
  readonly errors: number;
}

export interface TesterReport {
  /**
   * failed: the run stopped early (see failure; its counts are a partial report), or nothing
   * worked (no send acknowledged, every call of a kind failed). interrupted: Ctrl-C or a
   * signal, the counts are partial. Neither is ever "clean".
   */
  readonly verdict: Verdict;
  /** Why the run failed, in one line: a worker crashed or gave up, the store became unreachable, nothing worked. */
  readonly failure: string | null;
  /** The run stopped early or was interrupted: its counts are partial. */
  readonly partial: boolean;
  readonly interrupted: boolean;
  /** The signal that interrupted the run (Ctrl-C is SIGINT). */
  readonly interruptedBy: StopSignal | null;
  readonly runId: string;
  readonly startedAt: string;
  readonly durationMs: number;
  /** foreign: distinct messages without this run's id seen (handed back, never deleted); foreignDeliveries: how often they were received. */
  /** lost and unexpected: null when not judged (see notJudged). */
  readonly counts: Omit<CheckerCounts, 'lost' | 'unexpected'> & {
    readonly lost: number | null;
    readonly unexpected: number | null;
    readonly foreign: number;
    readonly foreignDeliveries: number;
    readonly faultDeleted: number;
  };
  /**
   * Classes the run could not judge, and why: a drain of an earlier run's messages (--senders 0)
   * does not know what that run sent, so neither loss nor unexpected messages (their counts are
   * null). The verdict of such a run without violations is "incomplete", never "clean".
   */
  readonly notJudged: readonly { readonly class: 'lost' | 'unexpected'; readonly why: string }[];
  /**
   * msg/s: the messages measured after the warm-up over the window they were measured in,
   * from the first call's start to the last call's end (a --duration run's senders: to the
   * end of the duration). noRate: the roles measured in a single call, whose rate is no rate
   * (0 here: one call's latency is not a throughput).
   */
  readonly throughput: { readonly sendPerSec: number; readonly receivePerSec: number; readonly noRate: readonly ('send' | 'receive')[] };
  /** --rate with --duration: messages due before the end that were never sent (behind schedule when the time was up); else null. */
  readonly scheduledNotSent: number | null;
  /** Calls by kind; receives that returned messages apart from empty and failed ones. */
  readonly calls: CallsReport;
  /** The largest backlog (sent − received) at the end of a second. */
  readonly peakBacklog: number;
  readonly latency: LatencyReport;
  /** 'intended': --rate given, latencies count from the intended send time (coordinated-omission corrected). */
  readonly latencyFrom: 'send-start' | 'intended';
  /** Each latency's percentile distribution, [percentile, ms] up to 99.999 and the max (histograms.ts spectrum). */
  readonly spectrum: Readonly<Record<string, readonly (readonly [number, number])[]>>;
  /** Each second; a second in which a --fault fired names it (faults). */
  /** Per second: the counts, the end-to-end percentiles (ms) when messages arrived, the faults started. */
  readonly series: readonly (SeriesPoint & {
    /** ms, of each second that had any: endToEnd, send, receive, ack. */
    readonly latency?: Readonly<Record<string, SecondLatency>>;
    readonly faults?: readonly string[];
  })[];
  /** --fault: each time one fired, what it did, and how long writes were impossible after it. */
  readonly faults: FailoverReport['faults'];
  /** Windows in which no send succeeded (from the first failed send to the first successful one after it). */
  readonly writeUnavailable: FailoverReport['writeUnavailable'];
  /** Which server served each phase of the run, split brains, and what a failover lost in words. */
  readonly servers: FailoverReport['servers'];
  readonly config: Readonly<Record<string, unknown>>;
  readonly environment: Readonly<Record<string, unknown>>;
  readonly examples: Readonly<Record<ExampleClass, readonly MessageRef[]>>;
  /** settleMs: how long receivers kept watching after the drain for messages that come back (--settle). */
  readonly drain: {
    readonly skipped: boolean;
    readonly complete: boolean;
    readonly timedOut: boolean;
    readonly durationMs: number;
    readonly settleMs: number;
  };
  /** --topic: where each key went, and each bound queue's copies judged (fanout.ts). */
  readonly fanout?: FanoutReport;
  readonly queue: {
    readonly name: string;
    readonly created: boolean;
    readonly dropped: boolean;
    readonly messagesBefore: number | null;
    /** Messages left in the queue when the run ended (before any drop). */
    readonly messagesAfter: number | null;
  };
  /**
   * --listen: the notifications' throttle the run set and the fallback of a receiver's wait
   * (ms); the waits after an empty read that a notification ended, that the fallback ended;
   * the LISTEN connections made again after being lost. null: no --listen.
   */
  readonly listen: {
    readonly throttleMs: number;
    readonly fallbackMs: number;
    readonly notified: number;
    readonly fallbacks: number;
    readonly reconnects: number;
  } | null;
  /** What the run cost the database (pgmq: the queue tables' counters, WAL); null where the store has none. */
  readonly database: DatabaseFigures | null;
  readonly tester: {
    readonly warnings: readonly string[];
    readonly cpuPercentOfCores: number;
    /** The tester's CPU per message in its steady state (after --warmup, while sending); null without one. */
    readonly steadyCpu: SteadyCpu | null;
    readonly cores: number;
    readonly workers: readonly WorkerReport[];
  };
  /** Failed calls: connection (server down, restarting, connection lost) and other (database errors, injected faults). */
  readonly errors: { readonly count: number; readonly connection: number; readonly other: number; readonly last: string | null };
  /** --max-p99: the limit, the p99 judged (null: no samples, not measured), and whether the gate is missed. */
  readonly maxP99: MaxP99Outcome | null;
  readonly hdrLog: string | null;
  /**
   * --max-backlog: the bound, the share of the senders' time spent waiting for room (0..1),
   * and how often a wait gave up on a queue where nothing was received. null: no bound.
   */
  readonly backlog: { readonly max: number; readonly senderWaitShare: number; readonly stuck: number } | null;
}
