// What a worker thread's loops record, and the messages that report it to the engine
// (protocol.ts): latency histograms, per-second counts, totals, each sender's calls and each
// receiver's events. One per thread (or per in-process test); the loops record into it, the
// thread decides when to report (PROGRESS every so often, RESULT at the end).
import { monoUs } from './clock.js';
import { CallSeconds } from './call-seconds.js';
import type { CallsWaiting } from './calls.js';
import { EventBuffer } from './events.js';
import { ForeignMessages } from './foreign.js';
import { encodeHistogram, HISTOGRAM_NAMES, newWorkerHistogram, type Histogram, type HistogramName } from './histograms.js';
import type { ServerIdentity } from '../backends/types.js';
import type { ErrorKind, EventLoopStats, FromWorker, ReceiverReport, WorkerRole } from './protocol.js';
import { SecondCounter } from './series.js';

/** Where the recorder's messages go: the thread's port, or a test's list. */
export type Post = (message: FromWorker, transfer?: ArrayBuffer[]) => void;

const zeroTotals = () => ({
  sent: 0,
  sendFailed: 0,
  received: 0,
  acknowledged: 0,
  ackFailed: 0,
  ackNotFound: 0,
  emptyReceives: 0,
  errors: 0,
  connectionErrors: 0,
  otherErrors: 0,
  calls: { send: 0, sendFailed: 0, receive: 0, receiveFailed: 0, ack: 0, ackFailed: 0 },
  faultDeleted: 0,
  backlogWaitMs: 0,
  backlogStuck: 0,
  scheduledNotSent: 0,
  listenNotified: 0,
  listenFallbacks: 0,
  listenReconnects: 0,
  measuredCount: 0,
  measuredCalls: 0,
  measuredFirstUs: Infinity,
  measuredLastUs: -Infinity,
  lastError: undefined as string | undefined,
  lastAckError: undefined as string | undefined,
});

/** One sender's calls since the last report, as run-length ranges (protocol.ts SendRanges). */
export class SenderRecord {
  ranges: number[] = [];
  /** Messages sent since the last report (the live view's per-sender rate). */
  moved = 0;

  constructor(readonly index: number) {}

  range(firstSeq: number, count: number, outcome: number): void {
    const r = this.ranges;
    const n = r.length;
    // Run-length: consecutive sequence numbers with the same outcome become one range.
    if (n >= 3 && r[n - 1] === outcome && r[n - 3]! + r[n - 2]! === firstSeq) {
      r[n - 2]! += count;
    } else {
      r.push(firstSeq, count, outcome);
    }
  }
}

/** One receiver's events: its own stream, so that its events stay in its time order. */
export class ReceiverRecord {
  readonly events = new EventBuffer();
  malformed: string[] = [];
  /** Start of its receive call in progress: the watermark (no later event can be keyed earlier). */
  receiveSince: number | undefined = undefined;
  /** This run's messages received since the last report (the live view's per-receiver rate). */
  moved = 0;

  constructor(readonly index: number) {}
}

export class Recorder {
  readonly histograms = Object.fromEntries(HISTOGRAM_NAMES.map((n) => [n, newWorkerHistogram()])) as Record<HistogramName, Histogram>;
  readonly counter = new SecondCounter();
  readonly endToEndBySecond = new Map<number, Histogram>();
  /** Each call's latency by second (call-seconds.ts), warm-up included, like endToEndBySecond. */
  readonly callSeconds = new CallSeconds();
  readonly totals = zeroTotals();
  /** Messages without this run's id: handed back, never deleted (foreign.ts). */
  readonly foreign = new ForeignMessages();
  readonly senders: SenderRecord[] = [];
  readonly receivers: ReceiverRecord[] = [];
  runStartUs = 0;
  warmupEndUs = 0;

  constructor(
    private readonly post: Post,
    private readonly nowUs: () => number = monoUs,
  ) {}

  /** START: runStartUs is second 0 of the series; nothing before the warm-up's end is measured. */
  start(runStartUs: number, warmupMs: number): void {
    this.runStartUs = runStartUs;
    this.warmupEndUs = runStartUs + warmupMs * 1000;
  }

  secondOf(us: number): number {
    return Math.max(0, Math.floor((us - this.runStartUs) / 1e6));
  }

  addSender(index: number): SenderRecord {
    const r = new SenderRecord(index);
    this.senders.push(r);
    return r;
  }

  addReceiver(index: number): ReceiverRecord {
    const r = new ReceiverRecord(index);
    this.receivers.push(r);
    return r;
  }

  countError(kind: ErrorKind): void {
    const totals = this.totals;
    totals.errors += 1;
    if (kind === 'connection') totals.connectionErrors += 1;
    else totals.otherErrors += 1;
    this.counter.at(this.secondOf(this.nowUs())).errors += 1;
  }

  /** count messages sent (delivered) after the warm-up, by calls between firstUs and lastUs. */
  measured(count: number, firstUs: number, lastUs: number): void {
    const totals = this.totals;
    totals.measuredCount += count;
    totals.measuredCalls += 1;
    if (firstUs < totals.measuredFirstUs) totals.measuredFirstUs = firstUs;
    if (lastUs > totals.measuredLastUs) totals.measuredLastUs = lastUs;
  }

  error(message: string, fatal: boolean, kind: ErrorKind): void {
    this.post({ type: 'ERROR', message, fatal, kind });
  }

  /** A loop found which server its connection is on (a sender: from its sequence number seq on). */
  server(role: WorkerRole, index: number, seq: number, identity: ServerIdentity): void {
    this.post({ type: 'SERVER', role, index, seq, atUs: this.nowUs(), identity });
  }

  /** A send closed a window in which no send of the run succeeded. */
  writeOutage(fromUs: number, toUs: number): void {
    this.post({ type: 'WRITE_OUTAGE', fromUs, toUs });
  }

  /** PROGRESS: every second over (all of them when final), and what the loops recorded since the last one. */
  progress(final: boolean, lagP99Ms: number, waiting: CallsWaiting = { calls: 0, quietMs: 0 }): void {
    const now = this.nowUs();
    const current = this.secondOf(now);
    const seconds = final ? this.counter.takeBefore() : this.counter.takeBefore(current);
    const endToEnd: { second: number; histogram: string }[] = [];
    for (const [second, h] of this.endToEndBySecond) {
      if (final || second < current) {
        endToEnd.push({ second, histogram: encodeHistogram(h) });
        this.endToEndBySecond.delete(second);
      }
    }
    const calls = this.callSeconds.take(final ? undefined : current, encodeHistogram);
    const moved = [...this.senders, ...this.receivers].map((r) => {
      const count = r.moved;
      r.moved = 0;
      return { index: r.index, count };
    });
    const transfer: ArrayBuffer[] = [];
    const sends = this.senders
      .filter((s) => s.ranges.length > 0)
      .map((s) => {
        const ranges = Float64Array.from(s.ranges);
        s.ranges = [];
        transfer.push(ranges.buffer as ArrayBuffer);
        return { sender: s.index, ranges };
      });
    const receivers: ReceiverReport[] = this.receivers.map((r) => {
      const { events, ids } = r.events.take();
      transfer.push(events.buffer as ArrayBuffer, ids.buffer as ArrayBuffer);
      const malformed = r.malformed;
      r.malformed = [];
      return { receiver: r.index, events, ids, watermarkUs: final ? Number.MAX_SAFE_INTEGER : (r.receiveSince ?? now), malformed };
    });
    this.post(
      {
        type: 'PROGRESS',
        seconds,
        upToSecond: final ? Number.MAX_SAFE_INTEGER : current,
        endToEnd,
        calls,
        sends,
        receivers,
        foreignIds: this.foreign.takeNewIds(),
        lagP99Ms,
        moved,
        running: {
          connectionErrors: this.totals.connectionErrors,
          otherErrors: this.totals.otherErrors,
          backlogWaitMs: this.totals.backlogWaitMs,
        },
        waiting,
      },
      transfer,
    );
  }

  /** RESULT: the whole run's histograms and totals. */
  result(eventLoop: EventLoopStats): void {
    const foreign = this.foreign;
    this.post({
      type: 'RESULT',
      histograms: Object.fromEntries(HISTOGRAM_NAMES.map((n) => [n, encodeHistogram(this.histograms[n])])) as Record<HistogramName, string>,
      totals: {
        ...this.totals,
        foreignDeliveries: foreign.deliveries,
        foreignReturned: foreign.returned,
        foreignNotReturned: foreign.notReturned,
      },
      eventLoop,
    });
  }
}
