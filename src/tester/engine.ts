// The tester's main thread: creates the queue, spawns one worker thread per sender and per
// receiver, replays what they report into the checker, decides when the drain is over, and
// builds the report. It only coordinates: no message is sent or received here. The live view
// and the command listen to its events (it has no ink/react import).
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { openBackend, type Backend, type ServerInfo } from '../backends/index.js';
import { validateQueueName } from '../backends/names.js';
import { SmqError } from '../errors.js';
import { DeliveryChecker, hasViolations } from './checker.js';
import { monoUs } from './clock.js';
import { validateConfig, type TesterConfig } from './config.js';
import { EventKind, OrderedEventMerger, type EventKind as Kind } from './events.js';
import {
  addEncoded,
  HISTOGRAM_NAMES,
  HistogramLogWriter,
  newMergedHistogram,
  summarize,
  type Histogram,
  type HistogramName,
  type LatencySummary,
} from './histograms.js';
import { SEND_ACKED, type FromWorker, type ToWorker, type WorkerRole, type WorkerSetup, type WorkerTotals, type EventLoopStats } from './protocol.js';
import type { TesterReport, WorkerReport } from './report.js';
import { addCounts, SeriesAggregator, zeroCounts, type SecondCounts, type SeriesPoint } from './series.js';

/** How often the main thread checks the drain and releases ordered events. */
const TICK_MS = 100;
/** Ctrl-C: the drain that follows is at most this long. */
const INTERRUPT_DRAIN_MS = 2000;
/** With uncertain sends, once every acknowledged send is in, wait this long for stragglers. */
const UNCERTAIN_GRACE_MS = 1000;
/** A worker that does not answer STOP within this is terminated. */
const STOP_TIMEOUT_MS = 15_000;
/** A worker's event loop delayed this much (p99) means the tester, not the queue, set the pace. */
const LAG_WARN_MS = 50;
/** Share of all cores the tester process may use before it is probably the bottleneck. */
const CPU_WARN_SHARE = 0.9;

export type TesterPhase = 'connecting' | 'sending' | 'draining' | 'stopping' | 'done';

export interface TesterEnvironment {
  readonly backend: string;
  readonly serverVersion: string;
  readonly schema: string;
  readonly location: string;
  readonly embedded: boolean;
  readonly isolation: string | null;
  readonly dequeue: string;
  readonly node: string;
  readonly platform: string;
  readonly cores: number;
  readonly cpuModel: string;
}

export interface ProgressSnapshot {
  readonly elapsedMs: number;
  readonly phase: TesterPhase;
  readonly interrupted: boolean;
  /** Messages the senders will send in all (--messages), else undefined. */
  readonly totalToSend: number | undefined;
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
  readonly lastError: string | undefined;
}

export interface TesterEvents {
  start: [{ readonly environment: TesterEnvironment; readonly queue: string; readonly runId: string; readonly config: TesterConfig }];
  progress: [ProgressSnapshot];
  phase: [TesterPhase];
  workerError: [{ readonly role: WorkerRole; readonly indices: readonly number[]; readonly message: string }];
  done: [TesterReport];
}

interface WorkerSlot {
  readonly role: WorkerRole;
  /** The senders or receivers this thread runs. */
  readonly indices: readonly number[];
  /** Position among all threads (series). */
  readonly slot: number;
  /** Position among the threads of its role. */
  readonly roleSlot: number;
  readonly worker: Worker;
  ready: boolean;
  result: Extract<FromWorker, { type: 'RESULT' }> | undefined;
  exited: boolean;
  stopSent: boolean;
  /** When STOP went out (ms, Date.now), to end a worker whose call never returns. */
  stopSentAt: number;
  upToSecond: number;
}

export class TesterRun extends EventEmitter<TesterEvents> {
  readonly config: TesterConfig;
  readonly runId: string;
  private phase: TesterPhase = 'connecting';
  private interrupted = false;
  private interruptedAtUs = 0;
  private workers: WorkerSlot[] = [];
  private checker!: DeliveryChecker;
  private merger!: OrderedEventMerger;
  private series!: SeriesAggregator;
  private readonly liveTotals = zeroCounts();
  private runStartUs = 0;
  private runStartEpochMs = 0;
  private drainStartUs = 0;
  private lastDeliveryUs = 0;
  private drainOutcome: 'complete' | 'timedOut' | 'stopped' | 'skipped' = 'skipped';
  private fatal: string | undefined;
  private lastError: string | undefined;
  private errorCount = 0;
  private foreign = 0;
  private receiverThreads = 0;
  private finishing: (() => void) | undefined;
  private readonly intervals = new Map<number, Histogram>();
  private receiverUpTo: number[] = [];
  private nextIntervalSecond = 0;
  private running: Histogram = newMergedHistogram();
  private hdrLog: { fd: number; writer: HistogramLogWriter } | undefined;

  constructor(config: TesterConfig) {
    super();
    validateConfig(config);
    this.config = config;
    this.runId = config.runId ?? randomBytes(6).toString('hex');
  }

  /** Ctrl-C: stop the senders, drain briefly, and report what there is (marked interrupted). */
  interrupt(): void {
    if (this.interrupted) return;
    this.interrupted = true;
    this.interruptedAtUs = monoUs();
    for (const w of this.workers) if (w.role === 'sender') this.stopWorker(w);
  }

  private setPhase(p: TesterPhase): void {
    if (this.phase === p) return;
    this.phase = p;
    this.emit('phase', p);
  }

  private post(w: WorkerSlot, m: ToWorker): void {
    if (!w.exited) w.worker.postMessage(m);
  }

  private stopWorker(w: WorkerSlot): void {
    if (w.stopSent) return;
    w.stopSent = true;
    w.stopSentAt = Date.now();
    this.post(w, { type: 'STOP' });
  }

  async run(): Promise<TesterReport> {
    const c = this.config;
    const startedAt = new Date();
    const backend = await openBackend(c.target, {
      create: c.createSqlite ?? false,
      ...(c.tenant !== undefined ? { tenant: c.tenant } : {}),
      ...(c.isolation !== undefined ? { isolation: c.isolation } : {}),
      connectTimeoutMs: c.connectTimeoutMs ?? 5000,
      poolSize: 1,
    });
    let queue = c.queue ?? `smq_tester_${this.runId.replace(/-/g, '_')}`.toLowerCase();
    let created = false;
    let dropped = false;
    let messagesBefore: number | null = null;
    let messagesAfter: number | null = null;
    let cpuStart = process.cpuUsage();
    try {
      validateQueueName(backend.kind, queue);
      if (c.ack === 'archive' && !backend.capabilities.archive) {
        throw new SmqError('usage', '--ack archive needs a store with an archive', { hint: 'use --ack delete' });
      }
      const info = await backend.info();
      if (c.senders === 0) {
        messagesBefore = (await backend.queueStats(queue)).total; // throws queue-not-found
      } else {
        created = await backend.createQueue(queue, { visibilityTimeoutSec: c.vtSec, maxRetries: -1 });
        messagesBefore = (await backend.queueStats(queue)).total;
      }
      if (c.hdrLogPath) this.openHdrLog(c.hdrLogPath);

      const { isolation } = await this.spawn(queue);
      const environment = this.environment(info, isolation);
      this.checker = new DeliveryChecker({ senders: c.senders, capacityPerSender: c.messagesPerSender });
      this.merger = new OrderedEventMerger(c.receivers, (kind, sender, seq, a, b, id) => this.apply(kind, sender, seq, a, b, id));
      this.series = new SeriesAggregator(this.workers.length);
      this.receiverUpTo = new Array<number>(this.receiverThreads).fill(0);
      this.emit('start', { environment, queue, runId: this.runId, config: c });

      cpuStart = process.cpuUsage();
      this.runStartUs = monoUs();
      this.runStartEpochMs = Date.now();
      if (this.hdrLog) {
        this.hdrLog.writer.outputStartTime(this.runStartEpochMs);
        this.hdrLog.writer.outputLegend();
      }
      for (const w of this.workers) this.post(w, { type: 'START', runStartUs: this.runStartUs });
      // Ctrl-C while connecting: the senders stop as soon as they start.
      if (this.interrupted) for (const w of this.workers) if (w.role === 'sender') this.stopWorker(w);
      this.setPhase(c.senders > 0 ? 'sending' : 'draining');
      if (c.senders === 0) this.beginDrain();
      await this.supervise();
      if (this.fatal !== undefined) throw new SmqError('database', `tester stopped: ${this.fatal}`);

      const durationMs = (monoUs() - this.runStartUs) / 1000;
      const cpu = process.cpuUsage(cpuStart);
      try {
        messagesAfter = (await backend.queueStats(queue)).total;
      } catch {
        messagesAfter = null;
      }
      // Only the fresh queue of the run is dropped; a queue named with --queue is the user's.
      if (created && c.queue === undefined && !c.keep) {
        await backend.dropQueue(queue);
        dropped = true;
      }
      const report = this.buildReport({ startedAt, durationMs, queue, created, dropped, messagesBefore, messagesAfter, environment, cpu });
      this.setPhase('done');
      this.emit('done', report);
      return report;
    } catch (e) {
      await this.terminateAll();
      if (created && c.queue === undefined && !c.keep && !dropped) await backend.dropQueue(queue).catch(() => undefined);
      throw e;
    } finally {
      this.closeHdrLog();
      await backend.close().catch(() => undefined);
    }
  }

  // ---- workers ------------------------------------------------------------------------

  private setupFor(role: WorkerRole, indices: readonly number[], queue: string): WorkerSetup {
    const c = this.config;
    return {
      role,
      indices,
      target: c.target,
      open: {
        ...(c.tenant !== undefined ? { tenant: c.tenant } : {}),
        ...(c.isolation !== undefined ? { isolation: c.isolation } : {}),
        connectTimeoutMs: c.connectTimeoutMs ?? 5000,
        // One call at a time per worker: one connection is its own connection.
        poolSize: 1,
      },
      queue,
      runId: this.runId,
      sizeBytes: c.sizeBytes,
      batch: c.batch,
      vtSec: c.vtSec,
      ack: c.ack,
      dequeue: c.dequeue,
      naivePauseMs: c.naivePauseMs ?? 0,
      messages: c.messagesPerSender,
      durationMs: c.durationMs,
      ratePerSec: c.ratePerSec > 0 && c.senders > 0 ? c.ratePerSec / c.senders : 0,
      warmupMs: c.warmupMs,
      faults: c.faults ?? {},
    };
  }

  /** Starts every worker and waits until each has connected. */
  private spawn(queue: string): Promise<{ isolation: string | null }> {
    const c = this.config;
    // One thread per sender and per receiver; with --threads, that many per role, the
    // senders (receivers) dealt out round-robin, each still with its own connection.
    const deal = (role: WorkerRole, n: number): [WorkerRole, number[], number][] => {
      const threads = Math.min(n, c.threads ?? n);
      const groups = Array.from({ length: threads }, () => [] as number[]);
      for (let i = 0; i < n; i++) groups[i % threads]!.push(i);
      return groups.map((g, roleSlot) => [role, g, roleSlot]);
    };
    const roles = [...deal('sender', c.senders), ...deal('receiver', c.receivers)];
    this.receiverThreads = roles.filter(([role]) => role === 'receiver').length;
    let isolation: string | null = null;
    return new Promise((resolve, reject) => {
      let ready = 0;
      let failed = false;
      const fail = (message: string) => {
        if (failed) return;
        failed = true;
        reject(new SmqError('connection', message));
      };
      roles.forEach(([role, indices, roleSlot], slot) => {
        const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: this.setupFor(role, indices, queue) });
        const name = `${role} ${indices.join(',')}`;
        const w: WorkerSlot = {
          role,
          indices,
          slot,
          roleSlot,
          worker,
          ready: false,
          result: undefined,
          exited: false,
          stopSent: false,
          stopSentAt: 0,
          upToSecond: 0,
        };
        this.workers.push(w);
        worker.on('message', (m: FromWorker) => {
          if (m.type === 'READY' && !w.ready) {
            w.ready = true;
            if (isolation === null) isolation = m.isolation;
            ready += 1;
            if (ready === roles.length && !failed) resolve({ isolation });
          } else if (!w.ready && m.type === 'ERROR') {
            fail(m.message);
          } else {
            this.onMessage(w, m);
          }
        });
        worker.on('error', (e) => {
          if (!w.ready) fail(`${name}: ${e.message}`);
          else this.onFatal(`${name} crashed: ${e.message}`);
        });
        worker.on('exit', () => {
          w.exited = true;
          if (!w.ready) fail(`${name} exited before connecting`);
          else if (!w.result) this.onFatal(`${name} exited without a result`);
          this.finishing?.();
        });
      });
    });
  }

  private onFatal(message: string): void {
    if (this.fatal === undefined) this.fatal = message;
    for (const w of this.workers) this.stopWorker(w);
    this.finishing?.();
  }

  private onMessage(w: WorkerSlot, m: FromWorker): void {
    switch (m.type) {
      case 'PROGRESS':
        this.onProgress(w, m);
        break;
      case 'RESULT':
        w.result = m;
        this.series.finish(w.slot);
        if (w.role === 'receiver') {
          for (const i of w.indices) this.merger.finish(i);
          this.receiverUpTo[w.roleSlot] = Infinity;
        }
        this.foreign += m.totals.foreign;
        this.finishing?.();
        break;
      case 'ERROR':
        this.errorCount += 1;
        this.lastError = m.message;
        this.emit('workerError', { role: w.role, indices: w.indices, message: m.message });
        if (m.fatal) this.onFatal(`${w.role} ${w.indices.join(',')}: ${m.message}`);
        break;
      case 'READY':
        break;
    }
  }

  private onProgress(w: WorkerSlot, m: Extract<FromWorker, { type: 'PROGRESS' }>): void {
    for (const p of m.seconds) addCounts(this.liveTotals, p);
    this.series.add(w.slot, m.seconds, m.upToSecond);
    for (const { sender, ranges: s } of m.sends) {
      for (let i = 0; i + 2 < s.length; i += 3) {
        this.checker.recordSend(sender, s[i]!, s[i + 1]!, s[i + 2] === SEND_ACKED ? 'acked' : 'uncertain');
      }
    }
    if (w.role === 'receiver') {
      for (const r of m.receivers) {
        for (const id of r.malformed) this.checker.recordMalformed(id);
        this.merger.push(r.receiver, r);
      }
      this.merger.release();
      for (const e of m.endToEnd) {
        let h = this.intervals.get(e.second);
        if (!h) {
          h = newMergedHistogram();
          this.intervals.set(e.second, h);
        }
        addEncoded(h, e.histogram);
      }
      // A worker's last report promises every second: that is "finished", not a second number.
      const upTo = m.upToSecond >= Number.MAX_SAFE_INTEGER ? Infinity : m.upToSecond;
      this.receiverUpTo[w.roleSlot] = Math.max(this.receiverUpTo[w.roleSlot] ?? 0, upTo);
      this.releaseIntervals(false);
    }
  }

  private apply(kind: Kind, sender: number, seq: number, a: number, b: number, id: bigint): void {
    if (kind === EventKind.delivery) {
      this.checker.recordDelivery(sender, seq, a, b, String(id));
      this.lastDeliveryUs = monoUs();
    } else {
      this.checker.recordAck(sender, seq, kind === EventKind.ackOk);
    }
  }

  // ---- interval histograms: live percentiles and the HdrHistogram log -------------------

  private openHdrLog(path: string): void {
    let fd: number;
    try {
      fd = openSync(path, 'w');
    } catch (e) {
      throw new SmqError('invalid-input', `cannot write --hdr-log ${JSON.stringify(path)}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, {
        hint: 'give a file in a folder you can write to',
      });
    }
    const writer = new HistogramLogWriter((text) => void writeSync(fd, text));
    writer.outputLogFormatVersion();
    writer.outputComment(`smq tester end-to-end latency in microseconds (max column in ms), one interval per second after the warm-up`);
    this.hdrLog = { fd, writer };
  }

  private closeHdrLog(): void {
    if (this.hdrLog) closeSync(this.hdrLog.fd);
    this.hdrLog = undefined;
  }

  /** Seconds every receiver has reported go into the running histogram and the log. */
  private releaseIntervals(all: boolean): void {
    let complete = Infinity;
    for (const u of this.receiverUpTo) if (u < complete) complete = u;
    if (all || complete === Infinity) {
      complete = this.nextIntervalSecond;
      for (const s of this.intervals.keys()) if (s + 1 > complete) complete = s + 1;
    }
    const warmupSeconds = Math.ceil(this.config.warmupMs / 1000);
    for (; this.nextIntervalSecond < complete; this.nextIntervalSecond++) {
      const s = this.nextIntervalSecond;
      const h = this.intervals.get(s);
      this.intervals.delete(s);
      if (s < warmupSeconds) continue;
      if (h) this.running.add(h);
      if (this.hdrLog) {
        const logged = h ?? newMergedHistogram();
        this.hdrLog.writer.outputIntervalHistogram(logged, s, s + 1, 1000);
      }
    }
  }

  // ---- supervision: sending, draining, stopping -----------------------------------------

  private beginDrain(): void {
    this.drainStartUs = monoUs();
    this.lastDeliveryUs = this.drainStartUs;
    this.setPhase('draining');
    if (this.config.receivers === 0) {
      this.drainOutcome = 'skipped';
      this.stopReceivers();
    }
  }

  private stopReceivers(): void {
    this.setPhase('stopping');
    for (const w of this.workers) if (w.role === 'receiver') this.stopWorker(w);
  }

  private drainTimeoutMs(): number {
    return this.interrupted ? Math.min(this.config.drainTimeoutMs, INTERRUPT_DRAIN_MS) : this.config.drainTimeoutMs;
  }

  /** Runs until every worker has reported its result (or the run failed). */
  private supervise(): Promise<void> {
    return new Promise((resolve) => {
      let lastProgress = 0;
      const check = () => {
        if (this.workers.every((w) => w.result || w.exited)) {
          clearInterval(timer);
          this.finishing = undefined;
          this.merger.release();
          this.releaseIntervals(true);
          this.emitProgress();
          resolve();
          return;
        }
        // A worker stuck in a call that never returns (a hung connection) is ended.
        for (const w of this.workers) {
          if (w.stopSent && !w.result && !w.exited && Date.now() - w.stopSentAt > STOP_TIMEOUT_MS) {
            this.onFatal(`${w.role} ${w.indices.join(',')} did not stop within ${STOP_TIMEOUT_MS / 1000} s`);
            void w.worker.terminate();
          }
        }
        if (this.fatal !== undefined) return;
        const sendersDone = this.workers.every((w) => w.role !== 'sender' || w.result !== undefined);
        if (this.phase === 'sending' && sendersDone) this.beginDrain();
        if (this.phase === 'draining') this.checkDrain();
        const now = Date.now();
        if (now - lastProgress >= 1000) {
          lastProgress = now;
          this.emitProgress();
        }
      };
      const timer = setInterval(check, TICK_MS);
      this.finishing = check;
    });
  }

  private checkDrain(): void {
    const now = monoUs();
    const idleMs = (now - Math.max(this.lastDeliveryUs, this.drainStartUs)) / 1000;
    const allIn = this.checker.ackedDelivered >= this.checker.ackedSends;
    const timeout = this.drainTimeoutMs();
    if (allIn && (this.checker.uncertainSends === 0 || idleMs >= Math.min(UNCERTAIN_GRACE_MS, timeout)) && !this.interrupted) {
      this.drainOutcome = 'complete';
      this.stopReceivers();
    } else if (allIn && this.interrupted) {
      this.drainOutcome = 'complete';
      this.stopReceivers();
    } else if (this.interrupted && (now - this.interruptedAtUs) / 1000 >= timeout) {
      // Ctrl-C: a brief drain, however busy the queue still is.
      this.drainOutcome = 'stopped';
      this.stopReceivers();
    } else if (idleMs >= timeout) {
      this.drainOutcome = this.interrupted ? 'stopped' : 'timedOut';
      this.stopReceivers();
    }
  }

  private async terminateAll(): Promise<void> {
    await Promise.all(this.workers.filter((w) => !w.exited).map((w) => w.worker.terminate().catch(() => 0)));
  }

  private emitProgress(): void {
    if (!this.series) return;
    const series = this.series.points();
    const last = series[series.length - 1];
    const c = this.config;
    this.emit('progress', {
      elapsedMs: (monoUs() - this.runStartUs) / 1000,
      phase: this.phase,
      interrupted: this.interrupted,
      totalToSend: c.messagesPerSender === undefined ? undefined : c.messagesPerSender * c.senders,
      totals: { ...this.liveTotals },
      sendRate: last?.sent ?? 0,
      receiveRate: last?.received ?? 0,
      series,
      endToEnd:
        this.running.totalCount > 0
          ? { p50: this.running.getValueAtPercentile(50) / 1000, p99: this.running.getValueAtPercentile(99) / 1000 }
          : undefined,
      drain:
        this.phase === 'draining'
          ? {
              pending: Math.max(0, this.checker.ackedSends - this.checker.ackedDelivered),
              idleMs: (monoUs() - Math.max(this.lastDeliveryUs, this.drainStartUs)) / 1000,
              timeoutMs: this.drainTimeoutMs(),
            }
          : undefined,
      violationsSoFar: this.checker.violationsSoFar,
      lastError: this.lastError,
    });
  }

  // ---- the report ---------------------------------------------------------------------

  private environment(info: ServerInfo, isolation: string | null): TesterEnvironment {
    const cpus = os.cpus();
    return {
      backend: info.backend,
      serverVersion: info.serverVersion,
      schema: info.schema,
      location: info.location,
      embedded: this.config.createSqlite === true,
      isolation,
      dequeue: this.config.dequeue,
      node: process.version,
      platform: `${process.platform} ${os.release()} ${process.arch}`,
      cores: os.availableParallelism(),
      cpuModel: cpus[0]?.model ?? 'unknown',
    };
  }

  private buildReport(x: {
    startedAt: Date;
    durationMs: number;
    queue: string;
    created: boolean;
    dropped: boolean;
    messagesBefore: number | null;
    messagesAfter: number | null;
    environment: TesterEnvironment;
    cpu: NodeJS.CpuUsage;
  }): TesterReport {
    const c = this.config;
    const results = this.workers.map((w) => ({ w, r: w.result! })).filter((x) => x.r !== undefined);
    const merged = Object.fromEntries(HISTOGRAM_NAMES.map((n) => [n, newMergedHistogram()])) as Record<HistogramName, Histogram>;
    for (const { r } of results) for (const n of HISTOGRAM_NAMES) addEncoded(merged[n], r.histograms[n]);
    const lat = Object.fromEntries(HISTOGRAM_NAMES.map((n) => [n, summarize(merged[n])])) as Record<HistogramName, LatencySummary>;
    const rated = c.ratePerSec > 0;

    const judgeLoss = !this.interrupted && c.receivers > 0;
    const summary = this.checker.summarize({ judgeLoss });
    const sum = (role: WorkerRole, f: (t: WorkerTotals) => number) =>
      results.filter(({ w }) => w.role === role).reduce((a, { r }) => a + f(r.totals), 0);
    const rate = (role: WorkerRole) => {
      const rs = results.filter(({ w }) => w.role === role).map(({ r }) => r.totals);
      const n = rs.reduce((a, t) => a + t.measuredCount, 0);
      const first = Math.min(...rs.map((t) => t.measuredFirstUs));
      const last = Math.max(...rs.map((t) => t.measuredLastUs));
      const sec = (last - first) / 1e6;
      return n > 0 && sec > 0 ? n / sec : 0;
    };

    const warnings: string[] = [];
    const workers: WorkerReport[] = results.map(({ w, r }) => ({
      role: w.role,
      indices: w.indices,
      eventLoopP99Ms: round2(r.eventLoop.p99Ms),
      eventLoopMaxMs: round2(r.eventLoop.maxMs),
      utilization: round2(r.eventLoop.utilization),
      errors: r.totals.errors,
    }));
    // On SQLite every call (lock waits included) runs synchronously on the worker's own
    // thread, so its event-loop delay measures SQLite, not the tester: only CPU counts there.
    const lagging = c.target.kind === 'sqlite' ? [] : results.filter(({ r }) => r.eventLoop.p99Ms > LAG_WARN_MS);
    if (lagging.length > 0) {
      const worst = lagging.reduce((a, b) => (b.r.eventLoop.p99Ms > a.r.eventLoop.p99Ms ? b : a));
      warnings.push(
        `the tester may be the bottleneck: ${lagging.length} worker(s) had event-loop delays over ${LAG_WARN_MS} ms at p99 ` +
          `(worst: ${worst.w.role} ${worst.w.indices.join(',')}, ${round2(worst.r.eventLoop.p99Ms)} ms)`,
      );
    }
    const cores = os.availableParallelism();
    const cpuShare = (x.cpu.user + x.cpu.system) / 1000 / Math.max(1, x.durationMs) / cores;
    if (cpuShare >= CPU_WARN_SHARE) {
      warnings.push(
        `the tester may be the bottleneck: it used ${Math.round(cpuShare * 100)}% of ${cores} cores` +
          (c.target.kind === 'sqlite' ? ' (including SQLite, which runs in-process)' : ''),
      );
    }
    if (this.foreign > 0) warnings.push(`${this.foreign} message(s) without this run's id were consumed from the queue`);
    if (summary.counts.notDrained > 0 && c.receivers > 0) {
      warnings.push(`${summary.counts.notDrained} acknowledged send(s) were not received before the run ended (not judged as lost)`);
    }

    const judged = lat.endToEnd.count > 0 ? lat.endToEnd : lat.send;
    const maxP99 = c.maxP99Ms === undefined ? null : { limitMs: c.maxP99Ms, valueMs: judged.p99, exceeded: judged.p99 > c.maxP99Ms };
    const drainMs = this.drainStartUs > 0 ? (monoUs() - this.drainStartUs) / 1000 : 0;
    const counts = { ...summary.counts, foreign: this.foreign, faultDeleted: sum('sender', (t) => t.faultDeleted) };
    const lastError = [...results].reverse().find(({ r }) => r.totals.lastError !== undefined)?.r.totals.lastError ?? this.lastError;

    return {
      verdict: hasViolations(counts) ? 'violations' : 'clean',
      interrupted: this.interrupted,
      runId: this.runId,
      startedAt: x.startedAt.toISOString(),
      durationMs: Math.round(x.durationMs),
      counts,
      throughput: { sendPerSec: round2(rate('sender')), receivePerSec: round2(rate('receiver')) },
      latency: {
        endToEnd: lat.endToEnd,
        send: lat.send,
        receive: lat.receive,
        ack: lat.ack,
        ...(rated ? { endToEndService: lat.endToEndService, sendService: lat.sendService } : {}),
      },
      latencyFrom: rated ? 'intended' : 'send-start',
      series: this.series.points(),
      config: {
        senders: c.senders,
        receivers: c.receivers,
        threadsPerRole: c.threads ?? null,
        messagesPerSender: c.messagesPerSender ?? null,
        durationMs: c.durationMs ?? null,
        sizeBytes: c.sizeBytes,
        batch: c.batch,
        vtSec: c.vtSec,
        ratePerSec: c.ratePerSec,
        warmupMs: c.warmupMs,
        queue: x.queue,
        keep: c.keep,
        ack: c.ack,
        drainTimeoutMs: c.drainTimeoutMs,
        isolation: c.isolation ?? null,
        dequeue: c.dequeue,
        naivePauseMs: c.naivePauseMs ?? 0,
        maxP99Ms: c.maxP99Ms ?? null,
      },
      environment: { ...x.environment },
      examples: summary.examples,
      drain: {
        skipped: this.drainOutcome === 'skipped',
        complete: this.drainOutcome === 'complete',
        timedOut: this.drainOutcome === 'timedOut',
        durationMs: Math.round(drainMs),
      },
      queue: {
        name: x.queue,
        created: x.created,
        dropped: x.dropped,
        messagesBefore: x.messagesBefore,
        messagesAfter: x.messagesAfter,
      },
      tester: { warnings, cpuPercentOfCores: Math.round(cpuShare * 1000) / 10, cores, workers },
      errors: { count: sum('sender', (t) => t.errors) + sum('receiver', (t) => t.errors), last: lastError ?? null },
      maxP99,
      hdrLog: c.hdrLogPath ?? null,
    };
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export type { EventLoopStats };
