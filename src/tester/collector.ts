// What the workers report, put together on the main thread: send outcomes and deliveries into
// the checker (deliveries and acknowledgements in time order across receivers, through the
// merger), per-second counts into the series, end-to-end histograms into the intervals (and
// the --hdr-log), and when this run's messages were last seen moving (the drain's clock).
import { DeliveryChecker } from './checker.js';
import { FifoChecker } from './checker-fifo.js';
import { CallSecondsMerger, type CallKind } from './call-seconds.js';
import type { CallsWaiting } from './calls.js';
import { monoUs } from './clock.js';
import { MAX_WORKERS_PER_ROLE, type TesterConfig } from './config.js';
import { drainIdleMs } from './drain.js';
import { laneOf, recordFanoutSend, type FanoutPlan } from './fanout.js';
import { EVENT_STRIDE, EventKind, OrderedEventMerger, type EventBatch, type EventKind as Kind } from './events.js';
import type { HdrLog } from './hdr-log.js';
import { EndToEndIntervals } from './intervals.js';
import { backlogTrend, RATE_SECONDS, SILENT_SERIES_MS, storeStalled, workerRates, type WorkerRate } from './live-facts.js';
import type { ProgressSnapshot } from './progress.js';
import { SEND_ACKED, type FromWorker, type RunningTotals, type WorkerRole } from './protocol.js';
import { addCounts, SeriesAggregator, zeroCounts } from './series.js';

/** A worker thread as the collector knows it. */
export interface CollectedWorker {
  readonly role: WorkerRole;
  readonly indices: readonly number[];
  /** Position among all threads (series). */
  readonly slot: number;
  /** Position among the threads of its role. */
  readonly roleSlot: number;
}

/** A worker thread as the live view follows it: its last report, its running totals. */
interface ThreadActivity {
  /** µs, monotonic: its last report. */
  lastUs: number;
  done: boolean;
  running: RunningTotals;
  waiting: CallsWaiting;
}

/** A sender's (receiver's) messages by wall-clock second (monotonic), the last few. */
interface IndexActivity {
  readonly role: WorkerRole;
  readonly index: number;
  readonly slot: number;
  readonly firstSecond: number;
  readonly bySecond: Map<number, number>;
}

/** Foreign ids kept at most (bounded like the workers' sets). */
const FOREIGN_IDS_KEPT = 100_000;

export class RunCollector {
  readonly checker: DeliveryChecker;
  private readonly fifo: FifoChecker | undefined;
  readonly merger: OrderedEventMerger;
  readonly series: SeriesAggregator;
  readonly intervals: EndToEndIntervals;
  /** Each call kind's per-second percentiles (call-seconds.ts). */
  readonly callSeconds: Record<CallKind, CallSecondsMerger>;
  /** Every second's counts summed as they come (the live view). */
  readonly liveTotals = zeroCounts();
  /** Queue ids of foreign messages seen. */
  readonly foreignIds = new Set<string>();
  /**
   * µs, monotonic: the last progress of the drain (the drain sets it at its start too): a
   * message of this run delivered for the first time, or an acknowledged send found delivered.
   * A redelivery of a message already seen is not progress (drain.ts).
   */
  lastProgressUs = 0;
  /** µs, monotonic: the last successful acknowledgement (0: none); see settle.ts. */
  lastAckUs = 0;
  private readonly threads = new Map<number, ThreadActivity>();
  private readonly indices = new Map<string, IndexActivity>();

  /** threadCount: all worker threads, receiverThreads: those of receivers. */
  constructor(
    private readonly c: TesterConfig,
    private readonly threadCount: number,
    receiverThreads: number,
    hdrLog: HdrLog | undefined,
    /** --topic: each bound queue's copies are lanes of their own in the checker (fanout.ts). */
    private readonly fanout?: FanoutPlan,
  ) {
    // A drain (--senders 0) judges an earlier run's messages: any of its senders, sends unseen.
    // --groups: the FIFO checker judges the same events (checker-fifo.ts).
    this.fifo = (c.groups ?? 0) > 0 ? new FifoChecker(c.groups!) : undefined;
    const fifo = this.fifo;
    this.checker =
      c.senders === 0
        ? new DeliveryChecker({ senders: MAX_WORKERS_PER_ROLE, sendsUnknown: true, fifo })
        : new DeliveryChecker({
            senders: fanout ? laneOf(fanout, fanout.queues.length, 0) : c.senders,
            capacityPerSender: c.messagesPerSender,
            fifo,
          });
    this.merger = new OrderedEventMerger(c.receivers, (kind, sender, seq, a, b, id, end, key, source) => {
      this.apply(kind, sender, seq, a, b, id);
      if (fifo && sender < this.checker.senders) this.applyFifo(fifo, kind, { sender, seq, a, b, id, end, key, source });
    });
    this.series = new SeriesAggregator(threadCount);
    this.intervals = new EndToEndIntervals(c.warmupMs, hdrLog);
    this.intervals.receiverThreads(receiverThreads);
    this.callSeconds = {
      send: new CallSecondsMerger(threadCount - receiverThreads),
      receive: new CallSecondsMerger(receiverThreads),
      ack: new CallSecondsMerger(receiverThreads),
    };
  }

  progress(w: CollectedWorker, m: Extract<FromWorker, { type: 'PROGRESS' }>): void {
    // Progress: a message met for the first time (not a redelivery of one seen already, nor a
    // foreign one: both come again and again), or a send report that completes a delivered one.
    const mark = this.checker.progressMark;
    let progressed = false;
    for (const id of m.foreignIds) if (this.foreignIds.size < FOREIGN_IDS_KEPT) this.foreignIds.add(id);
    for (const p of m.seconds) addCounts(this.liveTotals, p);
    this.series.add(w.slot, m.seconds, m.upToSecond);
    this.noteActivity(w, m);
    for (const e of m.calls) this.callSeconds[e.kind].add(e.second, e.histogram);
    for (const kind of this.kindsOf(w)) this.callSeconds[kind].reported(w.roleSlot, m.upToSecond);
    for (const { sender, ranges: s } of m.sends) {
      for (let i = 0; i + 2 < s.length; i += 3) {
        const outcome = s[i + 2] === SEND_ACKED ? 'acked' : 'uncertain';
        if (this.fanout) recordFanoutSend(this.checker, this.fanout, sender, s[i]!, s[i + 1]!, outcome);
        else this.checker.recordSend(sender, s[i]!, s[i + 1]!, outcome);
        // A failed send's messages may never come: no later message of their group waits for them.
        if (this.fifo && s[i + 2] !== SEND_ACKED) for (let q = s[i]!; q < s[i]! + s[i + 1]!; q++) this.fifo.absent(sender, q);
      }
    }
    if (w.role === 'receiver') {
      for (const r of m.receivers) {
        for (const id of r.malformed) this.checker.recordMalformed(id);
        // Counted as it comes, not when the merger releases it: a receiver that is slow to
        // report must not hold back the others' progress.
        if (!progressed) progressed = this.firstDeliveryIn(r);
        this.merger.push(r.receiver, r);
      }
      this.merger.release();
      for (const e of m.endToEnd) this.intervals.add(e.second, e.histogram);
      this.intervals.reported(w.roleSlot, m.upToSecond);
    }
    if (progressed || this.checker.progressMark !== mark) this.lastProgressUs = monoUs();
  }

  /** Whether a batch holds the delivery of a message of this run that no delivery applied so far has shown. */
  private firstDeliveryIn(batch: EventBatch): boolean {
    const e = batch.events;
    for (let o = 0; o < e.length; o += EVENT_STRIDE) {
      const kind = e[o];
      if ((kind === EventKind.delivery || kind === EventKind.redelivery) && this.checker.awaitsFirstDelivery(e[o + 1]!, e[o + 2]!))
        return true;
    }
    return false;
  }

  private noteActivity(w: CollectedWorker, m: Extract<FromWorker, { type: 'PROGRESS' }>): void {
    const now = monoUs();
    const second = Math.floor(now / 1e6);
    const t = this.threads.get(w.slot);
    if (t) {
      t.lastUs = now;
      t.running = m.running;
      t.waiting = m.waiting;
    } else {
      this.threads.set(w.slot, { lastUs: now, done: false, running: m.running, waiting: m.waiting });
    }
    for (const { index, count } of m.moved) {
      const key = `${w.role}:${index}`;
      let a = this.indices.get(key);
      if (!a) {
        a = { role: w.role, index, slot: w.slot, firstSecond: second, bySecond: new Map() };
        this.indices.set(key, a);
      }
      a.bySecond.set(second, (a.bySecond.get(second) ?? 0) + count);
      for (const s of a.bySecond.keys()) if (s < second - RATE_SECONDS - 1) a.bySecond.delete(s);
    }
  }

  private kindsOf(w: CollectedWorker): readonly CallKind[] {
    return w.role === 'sender' ? ['send'] : ['receive', 'ack'];
  }

  /** Its result came: it holds nothing back any more. */
  finished(w: CollectedWorker): void {
    this.series.finish(w.slot);
    this.markDone(w);
    for (const kind of this.kindsOf(w)) this.callSeconds[kind].finished(w.roleSlot);
    if (w.role === 'receiver') {
      for (const i of w.indices) this.merger.finish(i);
      this.intervals.finished(w.roleSlot);
    }
  }

  /** A worker died without its result: what it had not reported yet is unknown. */
  lost(w: CollectedWorker): void {
    this.series.finish(w.slot);
    this.markDone(w);
    for (const kind of this.kindsOf(w)) this.callSeconds[kind].finished(w.roleSlot);
    if (w.role === 'receiver') {
      // Its events so far are in; nothing more will come, so the others' are not held back.
      for (const i of w.indices) this.merger.finish(i);
      this.intervals.finished(w.roleSlot);
    } else {
      for (const i of w.indices) {
        if (!this.fanout) this.checker.recordSenderLost(i);
        else for (let j = 0; j < this.fanout.queues.length; j++) this.checker.recordSenderLost(laneOf(this.fanout, j, i));
      }
    }
  }

  private markDone(w: CollectedWorker): void {
    const t = this.threads.get(w.slot);
    if (t) t.done = true;
  }

  /** Each running sender's and receiver's rate over the last complete seconds (live-facts.ts). */
  private rates(nowUs: number): WorkerRate[] {
    const current = Math.floor(nowUs / 1e6);
    const out = [];
    for (const a of this.indices.values()) {
      const t = this.threads.get(a.slot);
      if (!t || t.done) continue;
      const recent: number[] = [];
      for (let s = Math.max(a.firstSecond + 1, current - RATE_SECONDS); s < current; s++) recent.push(a.bySecond.get(s) ?? 0);
      out.push({ role: a.role, indices: [a.index], recent, silentMs: (nowUs - t.lastUs) / 1000 });
    }
    return workerRates(out);
  }

  /**
   * Running threads that have not reported for SILENT_SERIES_MS (never, since the start: a
   * thread blocked at once), taken as having reported every second before the current one.
   */
  private silentThreads(nowUs: number, elapsedMs: number): { workers: Set<number>; through: number } {
    const workers = new Set<number>();
    const startUs = nowUs - elapsedMs * 1000;
    for (let slot = 0; slot < this.threadCount; slot++) {
      const t = this.threads.get(slot);
      if (t?.done) continue;
      if (nowUs - (t?.lastUs ?? startUs) >= SILENT_SERIES_MS * 1000) workers.add(slot);
    }
    return { workers, through: Math.max(0, Math.floor(elapsedMs / 1000)) };
  }

  /** Every running thread waits on calls the store does not answer (live-facts.ts storeStalled). */
  private stalled(nowUs: number): ProgressSnapshot['stalled'] {
    const threads = [];
    for (const t of this.threads.values()) {
      if (!t.done) threads.push({ silentMs: (nowUs - t.lastUs) / 1000, calls: t.waiting.calls, quietMs: t.waiting.quietMs });
    }
    return storeStalled(threads, (this.c.pollSec ?? 0) * 1000);
  }

  /** Every worker is done: whatever is held back goes in. */
  releaseAll(): void {
    this.merger.release();
    this.intervals.release(true);
    for (const m of Object.values(this.callSeconds)) m.release(true);
  }

  /** The live view's frame: what the engine knows (phase, clock, drain) with what has come in. */
  snapshot(
    x: Pick<ProgressSnapshot, 'elapsedMs' | 'phase' | 'interrupted' | 'totalToSend' | 'lastError' | 'faults'> & {
      readonly drain: { readonly startUs: number; readonly timeoutMs: number } | undefined;
    },
  ): ProgressSnapshot {
    const now = monoUs();
    const series = this.series.points(this.silentThreads(now, x.elapsedMs));
    const last = series[series.length - 1];
    const c = this.c;
    let connection = 0;
    let other = 0;
    let waitMs = 0;
    for (const a of this.threads.values()) {
      connection += a.running.connectionErrors;
      other += a.running.otherErrors;
      waitMs += a.running.backlogWaitMs;
    }
    return {
      elapsedMs: x.elapsedMs,
      phase: x.phase,
      interrupted: x.interrupted,
      totalToSend: x.totalToSend,
      durationMs: c.durationMs,
      // Errors from the threads' running totals, as their kinds are: the seconds' counts have
      // only seconds that are over, and the total must not lag its own kinds.
      totals: { ...this.liveTotals, errors: connection + other },
      sendRate: last?.sent ?? 0,
      receiveRate: last?.received ?? 0,
      series,
      endToEnd: this.intervals.percentiles(),
      drain: x.drain && {
        pending: Math.max(0, this.checker.ackedSends - this.checker.ackedDelivered),
        idleMs: drainIdleMs({ drainStartUs: x.drain.startUs, lastProgressUs: this.lastProgressUs }, now),
        timeoutMs: x.drain.timeoutMs,
      },
      violationsSoFar: this.checker.violationsSoFar,
      lastError: x.lastError,
      backlog: {
        // Over complete seconds (every worker reported them): a sender's late report is no dip.
        count: Math.max(
          0,
          series.reduce((a, p) => a + p.sent - p.received, 0),
        ),
        trend: backlogTrend(series),
        max: c.maxBacklog,
        senderWaitShare:
          c.maxBacklog === undefined || c.senders === 0 || x.elapsedMs <= 0 ? undefined : Math.min(1, waitMs / c.senders / x.elapsedMs),
      },
      errorsByKind: { connection, other },
      faults: x.faults,
      workers: x.phase === 'sending' || x.phase === 'draining' ? this.rates(now) : [],
      stalled: x.phase === 'sending' || x.phase === 'draining' ? this.stalled(now) : undefined,
    };
  }

  /** A delivery (end: its receive call's end) or an acknowledgement (end: its delete call's start), all µs. */
  private applyFifo(
    fifo: FifoChecker,
    kind: Kind,
    e: { sender: number; seq: number; a: number; b: number; id: bigint; end: number; key: number; source: number },
  ): void {
    if (kind === EventKind.delivery || kind === EventKind.redelivery) {
      fifo.delivery({
        sender: e.sender,
        seq: e.seq,
        startMs: e.a,
        leaseMs: e.b,
        receiver: e.source,
        callKeyUs: e.key,
        callEndUs: e.end,
        id: String(e.id),
      });
    } else {
      fifo.ack(e.sender, e.seq, e.end, kind === EventKind.ackOk);
    }
  }

  private apply(kind: Kind, sender: number, seq: number, a: number, b: number, id: bigint): void {
    if (kind === EventKind.delivery || kind === EventKind.redelivery) {
      this.checker.recordDelivery(sender, seq, a, b, String(id), kind === EventKind.redelivery);
    } else {
      if (kind === EventKind.ackOk) this.lastAckUs = monoUs();
      this.checker.recordAck(sender, seq, kind === EventKind.ackOk, String(id), kind === EventKind.ackNotFound);
    }
  }
}
