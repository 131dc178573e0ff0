// What a tester run is asked to do, checked before anything connects.
import type { Target } from '../backends/target.js';
import { MAX_WHOLE } from '../backends/index.js';
import { usageError } from '../errors.js';
import type { FaultSpec } from './fault-spec.js';
import { READ_MODES, type Faults, type ReadMode } from './protocol.js';

export { READ_MODES, type ReadMode };

export type Isolation = 'read-committed' | 'repeatable-read' | 'serializable';
export const ISOLATIONS = ['read-committed', 'repeatable-read', 'serializable'] as const;
export const DEQUEUE_STRATEGIES = ['safe', 'naive'] as const;
export const ACK_MODES = ['delete', 'archive'] as const;
/** --rate is at most this: far beyond any store, and a schedule a report can still count. */
const MAX_RATE = 10_000_000;
/** --groups is at most this (the header's values g0 … g<N-1>). */
export const MAX_GROUPS = 1_000_000;

export interface TesterConfig {
  readonly target: Target;
  /** SQLite: create the file (the embedded default). */
  readonly createSqlite?: boolean;
  /** SmoothMQ tenant. */
  readonly tenant?: number | undefined;
  readonly connectTimeoutMs?: number;
  /**
   * --timeout: each call of a sender or receiver that gets no answer within this fails (a
   * connection error: the connection is cut and the next call opens another). Default: none
   * of its own, the outage timeout bounds the wait.
   */
  readonly callTimeoutMs?: number | undefined;
  readonly senders: number;
  readonly receivers: number;
  /**
   * Worker threads per role. Default: on Postgres half the cores (at least one), on SQLite
   * one per sender and one per receiver (see Engine.threadsPerRole). Fewer threads than
   * senders run several senders per thread, each with its own connection.
   */
  readonly threads?: number | undefined;
  /** Messages per sender; exactly one of messagesPerSender and durationMs. */
  readonly messagesPerSender?: number | undefined;
  readonly durationMs?: number | undefined;
  readonly sizeBytes: number;
  readonly batch: number;
  readonly vtSec: number;
  /** Total offered load across senders (messages/s); 0 = as fast as possible. */
  readonly ratePerSec: number;
  /**
   * Closed loop: senders wait while this many of the run's messages are in the queue, sent
   * and not yet received (see backlog.ts). undefined: no bound.
   */
  readonly maxBacklog?: number | undefined;
  readonly warmupMs: number;
  /** undefined: a fresh queue, dropped after the run unless keep. */
  readonly queue?: string | undefined;
  readonly keep: boolean;
  readonly ack: 'delete' | 'archive';
  readonly drainTimeoutMs: number;
  /**
   * After the drain, receivers keep watching this long for messages that come back (late
   * resurrections). undefined: one --vt after the last acknowledgement when --vt <= 10 s,
   * otherwise 0 (the report then says late resurrections are not judged). See settle.ts.
   */
  readonly settleMs?: number | undefined;
  /**
   * The queue may hold messages that are not this run's: they are received, handed back at
   * once (visible again) and counted, never deleted. Without it a non-empty queue is refused.
   */
  readonly allowForeign?: boolean | undefined;
  /**
   * A worker whose calls have all failed for this long (the store unreachable, or refusing
   * every call) gives up, and the run ends with a partial report. Default 30 s: a restart
   * or a short network cut is ridden out.
   */
  readonly outageTimeoutMs?: number | undefined;
  readonly isolation?: Isolation | undefined;
  readonly dequeue: 'safe' | 'naive';
  /** naive only: pause between select and update, widening the race window. */
  readonly naivePauseMs?: number;
  /**
   * --groups N: senders put each message in one of N FIFO groups (the `x-pgmq-group` header;
   * group = seq mod N, see body.ts), and the checker judges the order within each group
   * (checker-fifo.ts). undefined or 0: no groups.
   */
  readonly groups?: number | undefined;
  /** --read: how receivers read (default plain). */
  readonly read?: ReadMode | undefined;
  /** --poll: the _with_poll reads wait up to this many seconds (--read poll: 1 s unless given). */
  readonly pollSec?: number | undefined;
  /**
   * --listen: receivers wait for the queue's insert notifications (pgmq 1.7+) after an empty
   * read, up to the fallback (--poll, else 250 ms), instead of polling (listen.ts).
   */
  readonly listen?: boolean | undefined;
  /** --listen-throttle: the notifications' throttle the run sets (ms; default 0, one per inserting statement). */
  readonly listenThrottleMs?: number | undefined;
  /** --ack-delay: receivers hold each batch this long before acknowledging it (a consumer's work). */
  readonly ackDelayMs?: number | undefined;
  /**
   * --topic KEY --bind PATTERN=QUEUE (fanout.ts): senders send with send_topic, each message
   * under one of the keys (batch by batch in turn), to fresh queues bound to the patterns.
   */
  readonly fanout?: FanoutConfig | undefined;
  readonly hdrLogPath?: string | undefined;
  readonly maxP99Ms?: number | undefined;
  /** The run id (--run-id: a drain names the earlier run's); default random. */
  readonly runId?: string | undefined;
  readonly faults?: Faults;
  /** --fault: what to do to the store during the run, and when (fault-spec.ts). */
  readonly faultSpecs?: readonly FaultSpec[] | undefined;
  /** The connection's secrets (every form of its password), kept out of a --fault command's text and output. */
  readonly secrets?: readonly string[] | undefined;
}

export interface FanoutConfig {
  readonly keys: readonly string[];
  readonly binds: readonly { readonly pattern: string; readonly queue: string }[];
}

export const DEFAULT_OUTAGE_TIMEOUT_MS = 30_000;
/** At most this many senders and receivers each (threads with a connection of their own). */
export const MAX_WORKERS_PER_ROLE = 256;

const wholeAtLeast = (name: string, v: number, min: number) => {
  if (!Number.isSafeInteger(v) || v < min) {
    throw usageError(`--${name} must be a whole number of ${min} or more, not ${String(v)}`);
  }
};

/** Checks the combination of settings; throws a usage error (exit 2) naming the flag. */
export function validateConfig(c: TesterConfig): void {
  wholeAtLeast('senders', c.senders, 0);
  wholeAtLeast('receivers', c.receivers, 0);
  if (c.senders === 0 && c.receivers === 0) throw usageError('--senders and --receivers are both 0', 'give at least one of them');
  if (c.senders > MAX_WORKERS_PER_ROLE || c.receivers > MAX_WORKERS_PER_ROLE)
    throw usageError('at most 256 senders and 256 receivers', 'each is a thread with its own connection');
  if (c.threads !== undefined) wholeAtLeast('threads', c.threads, 1);
  if (c.senders > 0) {
    if ((c.messagesPerSender === undefined) === (c.durationMs === undefined)) {
      throw usageError('give either --messages or --duration', 'for example --messages 10000 or --duration 30s');
    }
    if (c.messagesPerSender !== undefined) {
      wholeAtLeast('messages', c.messagesPerSender, 1);
      if (c.messagesPerSender > 2 ** 31 - 1) throw usageError('--messages is at most 2147483647 per sender');
    }
    if (c.durationMs !== undefined && c.durationMs <= 0) throw usageError('--duration must be more than 0');
  } else if (c.queue === undefined) {
    throw usageError('--senders 0 drains an existing queue', 'name it with --queue');
  } else if (c.runId === undefined) {
    // Only messages carrying the run id are ever deleted: a drain needs the earlier run's.
    throw usageError('--senders 0 drains the messages of an earlier run', 'name it with --run-id (its report shows the run id)');
  }
  wholeAtLeast('size', c.sizeBytes, 1);
  if (c.sizeBytes > 64 * 1024 * 1024) throw usageError('--size is at most 64 MiB');
  wholeAtLeast('batch', c.batch, 1);
  if (c.batch > 10_000) throw usageError('--batch is at most 10000');
  if (!Number.isSafeInteger(c.vtSec) || c.vtSec < 1) {
    throw usageError(
      `--vt must be whole seconds, 1s or more, not ${String(c.vtSec)}s`,
      'both stores keep the visibility timeout in whole seconds',
    );
  }
  // What PostgreSQL's integer (and so pgmq's vt) holds: refused here on both stores, not by every receive.
  if (c.vtSec > MAX_WHOLE) throw usageError(`--vt is at most ${MAX_WHOLE} s`, 'give a shorter visibility timeout');
  if (!(c.ratePerSec >= 0) || !Number.isFinite(c.ratePerSec)) throw usageError('--rate must be 0 or more messages per second');
  if (c.ratePerSec > MAX_RATE) throw usageError(`--rate is at most ${MAX_RATE.toLocaleString('en-US')} messages per second`);
  if (c.maxBacklog !== undefined) {
    wholeAtLeast('max-backlog', c.maxBacklog, 1);
    if (c.maxBacklog > 2 ** 30) throw usageError('--max-backlog is at most 1073741824');
    if (c.senders === 0 || c.receivers === 0) {
      throw usageError(
        '--max-backlog needs senders and receivers',
        'it makes senders wait for receivers; drop it for a send-only or drain-only run',
      );
    }
    if (c.maxBacklog < c.batch)
      throw usageError(`--max-backlog ${c.maxBacklog} is less than --batch ${c.batch}`, 'the bound must hold at least one batch');
  }
  if (c.warmupMs < 0) throw usageError('--warmup must be 0 or more');
  // The warm-up is left out of the statistics: one as long as the run leaves nothing to measure.
  if (c.durationMs !== undefined && c.warmupMs > 0 && c.warmupMs >= c.durationMs) {
    const s = (ms: number) => `${ms / 1000} s`;
    throw usageError(
      `--warmup (${s(c.warmupMs)}) is not shorter than --duration (${s(c.durationMs)}), so the run would measure nothing`,
      'give a --warmup shorter than --duration, e.g. a tenth of it',
    );
  }
  // 0 would end the drain at once and judge a run whose messages were never checked.
  if (!(c.drainTimeoutMs > 0)) {
    throw usageError(
      '--drain-timeout must be more than 0',
      'it is how long the drain waits without a new message, e.g. --drain-timeout 10s',
    );
  }
  if (c.settleMs !== undefined && !(c.settleMs >= 0 && c.settleMs <= 3_600_000)) throw usageError('--settle must be between 0s and 1h');
  if (c.outageTimeoutMs !== undefined && !(c.outageTimeoutMs > 0)) throw usageError('--outage-timeout must be more than 0');
  if (c.maxP99Ms !== undefined && !(c.maxP99Ms > 0)) throw usageError('--max-p99 must be more than 0 ms');
  if (c.isolation !== undefined && c.target.kind !== 'pgmq') {
    throw usageError('--isolation is for PostgreSQL', 'SQLite transactions are always serializable');
  }
  if (c.ack === 'archive' && c.target.kind !== 'pgmq')
    throw usageError('--ack archive needs pgmq', 'SmoothMQ has no archive: use --ack delete');
  if (c.naivePauseMs !== undefined && (!(c.naivePauseMs >= 0) || c.dequeue !== 'naive')) {
    throw usageError('--naive-pause-ms is for --dequeue naive, and 0 or more');
  }
  validateFifo(c);
  if (c.fanout !== undefined) validateFanout(c, c.fanout);
  if (c.faultSpecs !== undefined && c.faultSpecs.length > 0) {
    if (c.senders === 0) throw usageError('--fault needs senders', 'faults fire while the senders send');
    if (c.target.kind !== 'pgmq' && c.faultSpecs.some((f) => f.kind === 'terminate')) {
      throw usageError(
        '--fault terminate needs PostgreSQL: a SQLite file has no server connections to end',
        'use --fault exec:COMMAND@TIME to run a command of your own',
      );
    }
  }
  if (c.runId !== undefined && !/^[A-Za-z0-9_-]{4,64}$/.test(c.runId)) throw usageError('--run-id must be 4 to 64 letters, digits, - or _');
}

/** --groups, --read, --poll and --ack-delay (the store's own support is checked in run-queue.ts). */
function validateFifo(c: TesterConfig): void {
  const read = c.read ?? 'plain';
  if (!(READ_MODES as readonly string[]).includes(read)) throw usageError(`--read must be one of ${READ_MODES.join(', ')}`);
  if (c.groups !== undefined) {
    wholeAtLeast('groups', c.groups, 0);
    if (c.groups > MAX_GROUPS) throw usageError(`--groups is at most ${MAX_GROUPS}`);
  }
  if (c.pollSec !== undefined && (!Number.isSafeInteger(c.pollSec) || c.pollSec < 1 || c.pollSec > 10)) {
    throw usageError('--poll must be whole seconds from 1s to 10s', 'pgmq polls in whole seconds; a receiver answers STOP after its poll');
  }
  if (c.ackDelayMs !== undefined && !(c.ackDelayMs >= 0 && c.ackDelayMs <= 600_000))
    throw usageError('--ack-delay must be between 0s and 10m');
  if (c.target.kind !== 'pgmq' && ((c.groups ?? 0) > 0 || read !== 'plain' || c.pollSec !== undefined)) {
    const flag = (c.groups ?? 0) > 0 ? '--groups' : c.pollSec !== undefined ? '--poll' : `--read ${read}`;
    throw usageError(`${flag} needs pgmq: SmoothMQ has no FIFO groups and no read with poll`, 'run it against PostgreSQL with --url');
  }
  if (read !== 'plain' && c.dequeue === 'naive')
    throw usageError(`--read ${read} is not a --dequeue naive read`, 'use --read plain with --dequeue naive');
  if (c.pollSec !== undefined && read === 'plain' && !c.listen)
    throw usageError('--poll is for --read poll, the grouped reads and --listen', 'add --read poll');
  validateListen(c, read);
}

/** --listen and --listen-throttle (the store's support: listen.ts). */
function validateListen(c: TesterConfig, read: ReadMode): void {
  if (c.listenThrottleMs !== undefined) {
    if (!c.listen) throw usageError('--listen-throttle goes with --listen', 'add --listen');
    if (!Number.isSafeInteger(c.listenThrottleMs) || c.listenThrottleMs < 0 || c.listenThrottleMs > 2_147_483_647)
      throw usageError('--listen-throttle must be whole milliseconds, 0 or more', 'for example 0, 100ms or 1s');
  }
  if (!c.listen) return;
  if (read !== 'plain')
    throw usageError(
      `--listen waits between plain reads, not with --read ${read}`,
      'drop --read (or --listen: --read poll waits in the store)',
    );
  if (c.receivers === 0) throw usageError('--listen is for receivers', 'give --receivers, or drop --listen');
}

/** --topic and --bind: given together, on pgmq, in a run of their own queues (the store's support: fanout.ts). */
function validateFanout(c: TesterConfig, f: FanoutConfig): void {
  if (f.keys.length === 0) throw usageError('--bind needs --topic KEY', 'for example --topic orders.eu --bind orders.*=q1');
  if (f.binds.length === 0) throw usageError('--topic needs --bind PATTERN=QUEUE', 'for example --topic orders.eu --bind orders.*=q1');
  if (c.target.kind !== 'pgmq')
    throw usageError('--topic needs pgmq: SmoothMQ has no topics', 'run it against PostgreSQL (pgmq 1.11+) with --url');
  if (c.queue !== undefined) throw usageError('--topic sends to the --bind queues, not to --queue', 'drop --queue');
  if (c.senders === 0) throw usageError('--topic needs senders', 'a fan-out run sends its own messages');
  if ((c.groups ?? 0) > 0 || (c.read ?? 'plain').startsWith('grouped'))
    throw usageError('--topic is not combined with --groups or the grouped reads yet', 'run them separately');
  if (c.receivers > 0 && c.receivers < new Set(f.binds.map((b) => b.queue)).size)
    throw usageError('--topic needs a receiver for each bound queue', 'give --receivers at least the number of --bind queues');
}
