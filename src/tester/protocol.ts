// The messages the main thread and the worker threads exchange. Small, tagged, and plain
// data (structured clone); typed arrays travel as transferables.
import type { OpenOptions } from '../backends/index.js';
import type { CallKind } from './call-seconds.js';
import type { CallsWaiting } from './calls.js';
import type { ServerIdentity, ServerInfo } from '../backends/types.js';
import type { Target } from '../backends/target.js';
import type { HistogramName } from './histograms.js';
import type { SeriesPoint } from './series.js';

export type WorkerRole = 'sender' | 'receiver';

/** How receivers read (--read): pgmq's read, read_with_poll, or one of its grouped reads (FIFO groups). */
export const READ_MODES = ['plain', 'poll', 'grouped', 'grouped-rr', 'grouped-head'] as const;
export type ReadMode = (typeof READ_MODES)[number];

/** Test hooks that make a run go wrong on purpose (SMQ_TESTER_FAULTS); never set by normal use. */
export interface Faults {
  /** Every Nth send call fails before it reaches the queue: its messages never arrive. */
  readonly failSendBeforeEvery?: number;
  /** Every Nth send call succeeds and is then reported failed (a timeout after commit). */
  readonly failSendAfterEvery?: number;
  /** After every Nth send call, the sender deletes the first message it just sent, behind the receivers' backs. */
  readonly deleteAfterSendEvery?: number;
  /**
   * Every Nth receive call that returns messages throws their answer away and reports a lost
   * connection instead: the messages stay claimed in the queue, unseen by the tester, as when
   * the connection dies between the database's commit and the answer.
   */
  readonly loseReceiveAnswerEvery?: number;
  /** One worker thread throws an uncaught error once its senders sent (receivers received) this many messages. */
  readonly crashWorker?: { readonly role: WorkerRole; readonly index: number; readonly afterMessages: number };
}

/**
 * workerData of a worker thread: the parts it runs, one per planned thread (pool.ts). A
 * thread runs one part, or (Postgres, by default) a sender part and a receiver part whose
 * loops then share its event loop.
 */
export interface HostData {
  readonly parts: readonly WorkerSetup[];
}

/** What goes between the main thread and a worker thread: one part's message, tagged with the part. */
export interface ToHost {
  readonly part: number;
  readonly message: ToWorker;
}
export interface FromHost {
  readonly part: number;
  readonly message: FromWorker;
}

/** One part of a worker thread: its senders or receivers. */
export interface WorkerSetup {
  readonly role: WorkerRole;
  /**
   * The senders (or receivers) this part runs, by index within the role. One by default;
   * several with --threads, each with its own connection and its own sequential loop.
   */
  readonly indices: readonly number[];
  /** Another part's loops run on the same thread (a sender may then never block it: pacer.ts). */
  readonly sharesThread: boolean;
  readonly target: Target;
  readonly open: Pick<
    OpenOptions,
    'tenant' | 'isolation' | 'connectTimeoutMs' | 'poolSize' | 'dedicated' | 'applicationName' | 'callTimeoutMs'
  >;
  readonly queue: string;
  readonly runId: string;
  readonly sizeBytes: number;
  readonly batch: number;
  readonly vtSec: number;
  readonly ack: 'delete' | 'archive';
  readonly dequeue: 'safe' | 'naive';
  readonly naivePauseMs: number;
  /** Senders: FIFO groups to spread messages over (0: none; body.ts groupOf). */
  readonly groups: number;
  /** Receivers: how they read (config.ts READ_MODES), the poll time of the _with_poll reads, and how long they hold a batch. */
  readonly read: ReadMode;
  readonly pollSec: number | undefined;
  /** --listen: after an empty read a receiver waits for an insert notification, at most fallbackMs (listen.ts). */
  readonly listen: { readonly fallbackMs: number } | undefined;
  readonly ackDelayMs: number;
  /**
   * Receivers ask the store for this run's messages only (ReceiveOptions.runId): the queue held
   * others' messages at the start and the store can filter. Otherwise the plain receive.
   */
  readonly receiveByRunId: boolean;
  /**
   * --topic: senders send with send_topic under the keys in turn; receiver i reads queue
   * queues[i mod n] and reports sender s's copy as lane (i mod n) * senders + s (fanout.ts).
   */
  readonly fanout?: { readonly keys: readonly string[]; readonly queues: readonly string[]; readonly senders: number } | undefined;
  /** Sender: messages to send; undefined with --duration. */
  readonly messages: number | undefined;
  /** Sender: stop sending this long after the start; undefined with --messages. */
  readonly durationMs: number | undefined;
  /** Sender: offered load of this sender (messages/s); 0 = as fast as possible. */
  readonly ratePerSec: number;
  /** --max-backlog: the cells all workers share (backlog.ts), and the bound; undefined: none. */
  readonly backlog:
    | {
        readonly cells: SharedArrayBuffer;
        readonly max: number;
        readonly stuckMs: number;
        /** Every sender and receiver of the run is on one thread: waits stay on it (backlog.ts). */
        readonly oneThread?: boolean;
      }
    | undefined;
  readonly warmupMs: number;
  /** A loop whose calls have failed without a break for this long gives up (the store is gone). */
  readonly outageTimeoutMs: number;
  readonly faults: Faults;
  /** Senders: the cell every sender shares, where a window of failed writes is open (write-outage.ts). */
  readonly writeOutage: SharedArrayBuffer;
}

// main -> worker
export type ToWorker =
  /** Begin; runStartUs on the shared monotonic clock is second 0 of the series. */
  | { readonly type: 'START'; readonly runStartUs: number }
  /**
   * Finish the current call, report, and exit. With abandonAfterMs (Ctrl-C, a failed run):
   * calls still waiting that long after are given up on (a hung server never answers), so
   * the worker reports anyway. May come again, to add abandonAfterMs.
   */
  | { readonly type: 'STOP'; readonly abandonAfterMs?: number };

export interface EventLoopStats {
  readonly meanMs: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** performance.eventLoopUtilization() of the worker thread, 0..1. */
  readonly utilization: number;
}

export interface ReceiverReport {
  readonly receiver: number;
  readonly events: Float64Array;
  readonly ids: BigInt64Array;
  /** No later event of this receiver has an earlier key (µs). */
  readonly watermarkUs: number;
  /** Queue ids of deliveries carrying the run id whose sender/seq cannot be read. */
  readonly malformed: readonly string[];
}

/** Sends as run-length ranges: firstSeq, count, outcome (1 acked, 2 uncertain), repeated. */
export type SendRanges = Float64Array;

export interface WorkerTotals {
  readonly sent: number;
  readonly sendFailed: number;
  readonly received: number;
  readonly acknowledged: number;
  /** Messages whose delete (or archive) call failed with an error. */
  readonly ackFailed: number;
  /** Messages whose delete call answered without removing their row (already gone). */
  readonly ackNotFound: number;
  readonly emptyReceives: number;
  readonly errors: number;
  /** Of errors: the connection failed or was lost (server down, restarting, network). */
  readonly connectionErrors: number;
  /** Of errors: everything else (database errors, injected faults). */
  readonly otherErrors: number;
  /** Deliveries of messages without this run's id (never deleted: handed back). */
  readonly foreignDeliveries: number;
  /** Of them: handed back (visible again at once), and those whose hand-back failed (visible when their lease ends). */
  readonly foreignReturned: number;
  readonly foreignNotReturned: number;
  /** Calls by kind, and of them the ones that failed (a failed run: every call of a kind failed). */
  readonly calls: CallCounts;
  /** Sender: time spent waiting for room under --max-backlog (ms), and waits given up on a stuck queue. */
  readonly backlogWaitMs: number;
  readonly backlogStuck: number;
  /** With --rate and --duration: messages due before the end that were never sent (behind schedule when the time was up). */
  readonly scheduledNotSent: number;
  /** --listen: waits after an empty read ended by a notification, by the fallback; the LISTEN connections made again. */
  readonly listenNotified: number;
  readonly listenFallbacks: number;
  readonly listenReconnects: number;
  /** Messages deleted by the deleteAfterSendEvery fault. */
  readonly faultDeleted: number;
  /** After the warm-up: messages sent / delivered, and the first and last such moment (µs). */
  readonly measuredCount: number;
  /**
   * The calls measured (a sender's end of --duration counts as one: it ends the window). A
   * rate needs two: one call's own time is not a throughput.
   */
  readonly measuredCalls: number;
  readonly measuredFirstUs: number;
  readonly measuredLastUs: number;
  readonly lastError: string | undefined;
  /** The last error of a delete (or archive) call. */
  readonly lastAckError: string | undefined;
}

/** What PROGRESS carries of a thread's totals so far. */
export interface RunningTotals {
  readonly connectionErrors: number;
  readonly otherErrors: number;
  /** Senders: ms spent waiting for room under --max-backlog. */
  readonly backlogWaitMs: number;
}

export interface CallCounts {
  readonly send: number;
  readonly sendFailed: number;
  readonly receive: number;
  readonly receiveFailed: number;
  /** Delete (or archive) calls, and those that failed with an error (a call that removed fewer rows than asked did not fail). */
  readonly ack: number;
  readonly ackFailed: number;
}

// worker -> main
export type FromWorker =
  | { readonly type: 'READY'; readonly info: ServerInfo; readonly isolation: string | null }
  | {
      readonly type: 'PROGRESS';
      /** Finished seconds, and: every second before upToSecond is reported. */
      readonly seconds: readonly SeriesPoint[];
      readonly upToSecond: number;
      /** Interval end-to-end histograms (receivers), by second, compressed base64. */
      readonly endToEnd: readonly { readonly second: number; readonly histogram: string }[];
      /** Interval histograms of each call kind, by second, compressed base64 (call-seconds.ts). */
      readonly calls: readonly { readonly kind: CallKind; readonly second: number; readonly histogram: string }[];
      /** Senders: what each sender's calls did since the last report. */
      readonly sends: readonly { readonly sender: number; readonly ranges: SendRanges }[];
      /** Receivers: each receiver's events, in its own time order, with its watermark. */
      readonly receivers: readonly ReceiverReport[];
      /** Receivers: queue ids of messages without this run's id, first seen since the last report. */
      readonly foreignIds: readonly string[];
      readonly lagP99Ms: number;
      /** Each sender (receiver) of the thread: messages sent (received) since the last report. */
      readonly moved: readonly { readonly index: number; readonly count: number }[];
      /** This thread's running totals so far (the live view's errors by kind and backlog waits). */
      readonly running: RunningTotals;
      /** This thread's calls in flight, and how long none has answered (the live view's stalled store). */
      readonly waiting: CallsWaiting;
    }
  | {
      readonly type: 'RESULT';
      readonly histograms: Readonly<Record<HistogramName, string>>;
      readonly totals: WorkerTotals;
      readonly eventLoop: EventLoopStats;
    }
  | { readonly type: 'ERROR'; readonly message: string; readonly fatal: boolean; readonly kind: ErrorKind }
  /**
   * A sender or receiver found which server its connection is on: when it connected, and after
   * each lost connection. seq: a sender's next sequence number (its sends from there on went there).
   */
  | {
      readonly type: 'SERVER';
      readonly role: WorkerRole;
      readonly index: number;
      readonly seq: number;
      readonly atUs: number;
      readonly identity: ServerIdentity;
    }
  /** A sender's successful send closed a window in which no send of the run succeeded (µs, monotonic). */
  | { readonly type: 'WRITE_OUTAGE'; readonly fromUs: number; readonly toUs: number };

/** How the tester counts a failed call. */
export type ErrorKind = 'connection' | 'other';

export const SEND_ACKED = 1;
export const SEND_UNCERTAIN = 2;
