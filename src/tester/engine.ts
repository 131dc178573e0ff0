// The tester's main thread: creates the queue, spawns one worker thread per sender and per
// receiver, replays what they report into the checker, decides when the drain is over, and
// builds the report. It only coordinates: no message is sent or received here. The live view
// and the command listen to its events (it has no ink/react import).
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { openBackend, type Message, type QueueStats } from '../backends/index.js';
import { validateQueueName } from '../backends/names.js';
import { isSmqError, SmqError } from '../errors.js';
import { DeliveryChecker } from './checker.js';
import { newBacklogCells } from './backlog.js';
import { monoUs } from './clock.js';
import { DEFAULT_OUTAGE_TIMEOUT_MS, MAX_WORKERS_PER_ROLE, validateConfig, type TesterConfig } from './config.js';
import { EventKind, OrderedEventMerger, type EventKind as Kind } from './events.js';
import { checkConnections } from './connections.js';
import { overdueWorkers, Supervisor, withDeadline } from './lifecycle.js';
import {
  SEND_ACKED,
  type ErrorKind,
  type EventLoopStats,
  type FromWorker,
  type ToWorker,
  type WorkerRole,
  type WorkerSetup,
} from './protocol.js';
import { buildReport, type StopSignal, type TesterReport } from './report.js';
import { decideDrain, drainIdleMs, drainTimeoutMs, type DrainOutcome } from './drain.js';
import { detectEnvironment, type TesterEnvironment } from './environment.js';
import { HdrLog } from './hdr-log.js';
import { EndToEndIntervals } from './intervals.js';
import { addCounts, SeriesAggregator, zeroCounts, type SecondCounts, type SeriesPoint } from './series.js';
import { planSettle } from './settle.js';
import { readBack, readBackWarnings } from './verify.js';

/** How often the main thread checks the drain and releases ordered events. */
const TICK_MS = 100;
/** After the run: calls that failed on a lost connection are retried for this long (a restart settling). */
const END_RETRY_MS = 5000;
/** ... and for this long after an interrupt, which must end quickly. */
const END_RETRY_INTERRUPTED_MS = 300;
/** A worker that does not answer STOP within this is terminated. */
const STOP_TIMEOUT_MS = 15_000;
/** Ctrl-C, or a failed run: workers give up on calls still waiting this long after STOP (a hung server). */
const STOP_ABANDON_MS = 300;
/** The main thread's own calls after the run wait at most this long for an answer (a hung server)... */
const END_CALL_MS = 10_000;
/** ... and this long after Ctrl-C or a failure. */
const END_CALL_HURRIED_MS = 1000;

export type TesterPhase = 'connecting' | 'sending' | 'draining' | 'settling' | 'stopping' | 'done';

export type { StopSignal, TesterEnvironment };

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
  /** STOP went out with abandonAfterMs. */
  abandonSent: boolean;
  /** When STOP went out (ms, Date.now), to end a worker whose call never returns. */
  stopSentAtMs: number | undefined;
  /** terminate() called: the worker is being ended. */
  terminating: boolean;
  readonly finished: boolean;
  upToSecond: number;
  /** Failed calls it reported (ERROR messages), by kind: the count when it dies without a result. */
  readonly reportedErrors: Record<ErrorKind, number>;
}

type Role = readonly [role: WorkerRole, indices: number[], roleSlot: number];

const errorText = (e: unknown) => (isSmqError(e) ? e.line() : e instanceof Error ? e.message : String(e));
const isLostConnection = (e: unknown) => isSmqError(e) && e.kind === 'connection';
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const workerName = (role: WorkerRole, indices: readonly number[]) =>
  indices.length === 1 ? `${role} ${indices[0]}` : `the ${role} thread of ${role}s ${indices.join(',')}`;

export class TesterRun extends EventEmitter<TesterEvents> {
  readonly config: TesterConfig;
  readonly runId: string;
  private phase: TesterPhase = 'connecting';
  private interrupted = false;
  private interruptSignal: StopSignal | undefined;
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
  private drainOutcome: DrainOutcome = 'skipped';
  private fatal: string | undefined;
  private lastError: string | undefined;
  private errorCount = 0;
  /** Queue ids of foreign messages seen (bounded like the workers' sets). */
  private readonly foreignIds = new Set<string>();
  /** Receivers ask for this run's messages only (see WorkerSetup.receiveByRunId). */
  private receiveByRunId = false;
  /** Rows without this run's id found by the read-back after the run. */
  private foreignInQueue = 0;
  private lastAckUs = 0;
  /** Receivers keep watching for late resurrections until then (µs); see settle.ts. */
  private settleUntilUs = 0;
  private settleStartUs = 0;
  private settleNote: string | undefined;
  private receiverThreads = 0;
  private supervisor: Supervisor | undefined;
  private intervals!: EndToEndIntervals;
  private hdrLog: HdrLog | undefined;
  /** --max-backlog: the counters every worker shares (backlog.ts). */
  private readonly backlogCells = newBacklogCells();
  /** --max-backlog: a waiting sender goes on after this long with nothing received. */
  private backlogStuckMs(): number {
    return Math.max(1000, this.config.drainTimeoutMs);
  }

  constructor(config: TesterConfig) {
    super();
    validateConfig(config);
    this.config = config;
    this.runId = config.runId ?? randomBytes(6).toString('hex');
  }

  /** Ctrl-C (or SIGTERM): stop the senders, drain briefly, and report what there is (marked interrupted). */
  interrupt(signal: StopSignal = 'SIGINT'): void {
    if (this.interrupted) return;
    this.interrupted = true;
    this.interruptSignal = signal;
    this.interruptedAtUs = monoUs();
    for (const w of this.workers) if (w.role === 'sender' || w.stopSent) this.stopWorker(w);
  }

  private setPhase(p: TesterPhase): void {
    if (this.phase === p) return;
    this.phase = p;
    this.emit('phase', p);
  }

  private post(w: WorkerSlot, m: ToWorker): void {
    if (!w.exited) w.worker.postMessage(m);
  }

  /** STOP; after Ctrl-C or a failure, with a short wait for calls in flight (the server may hang). */
  private stopWorker(w: WorkerSlot): void {
    const hurry = this.interrupted || this.fatal !== undefined;
    if (w.stopSent && (w.abandonSent || !hurry)) return;
    w.stopSent = true;
    w.stopSentAtMs ??= Date.now();
    w.abandonSent = hurry;
    this.post(w, hurry ? { type: 'STOP', abandonAfterMs: STOP_ABANDON_MS } : { type: 'STOP' });
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
    let before: QueueStats;
    let messagesAfter: number | null = null;
    let cpuStart = process.cpuUsage();
    let reachable = true;
    try {
      validateQueueName(backend.kind, queue);
      if (c.ack === 'archive' && !backend.capabilities.archive) {
        throw new SmqError('usage', '--ack archive needs a store with an archive', { hint: 'use --ack delete' });
      }
      const info = await backend.info();
      await checkConnections(backend, c.senders, c.receivers);
      if (c.senders === 0) {
        before = await backend.queueStats(queue); // throws queue-not-found
      } else {
        created = await backend.createQueue(queue, { visibilityTimeoutSec: c.vtSec, maxRetries: -1 });
        before = await backend.queueStats(queue);
      }
      messagesBefore = before.total;
      // A drain (--senders 0) is meant for a queue that holds messages: it deletes only its run's.
      if (messagesBefore > 0 && !c.allowForeign && c.senders > 0) {
        // Its messages are someone's: the run would take them in turns with their consumers.
        throw new SmqError('usage', `the queue ${queue} holds ${messagesBefore} message(s) from before the run`, {
          hint: 'name an empty queue (or none: a fresh one), or give --allow-foreign: the tester then leaves them untouched (pgmq 1.4: hands them back)',
        });
      }
      // Others' messages in the queue: receivers take only this run's where the store can filter
      // (normal runs keep the plain receive, whose speed is what is measured).
      this.receiveByRunId = messagesBefore > 0 && backend.capabilities.receiveByRunId;
      // Every receive uses up one of a SmoothMQ message's tries: a handed-back message would
      // reach its limit and fail, never to be delivered to its own consumer (unless the
      // receivers never take it: the store filters by run id).
      if (messagesBefore > 0 && !this.receiveByRunId && before.maxRetries !== undefined && before.maxRetries >= 0) {
        throw new SmqError('usage', `the queue ${queue} gives each message ${before.maxRetries} tries, and holds ${messagesBefore} message(s) from before the run`, {
          hint: 'receiving them would use up their tries: use an empty queue, or one with unlimited tries (max_retries -1)',
        });
      }
      if (c.hdrLogPath) this.hdrLog = HdrLog.open(c.hdrLogPath);
      this.intervals = new EndToEndIntervals(c.warmupMs, this.hdrLog);

      // Ready before any worker runs: a worker that dies early is accounted for like any other.
      const roles = this.plan();
      // A drain (--senders 0) judges an earlier run's messages: any of its senders, sends unseen.
      this.checker =
        c.senders === 0
          ? new DeliveryChecker({ senders: MAX_WORKERS_PER_ROLE, sendsUnknown: true })
          : new DeliveryChecker({ senders: c.senders, capacityPerSender: c.messagesPerSender });
      this.merger = new OrderedEventMerger(c.receivers, (kind, sender, seq, a, b, id) => this.apply(kind, sender, seq, a, b, id));
      this.series = new SeriesAggregator(roles.length);
      this.intervals.receiverThreads(this.receiverThreads);
      const { isolation } = await this.spawn(queue, roles);
      const environment = detectEnvironment(info, c, isolation);
      this.emit('start', { environment, queue, runId: this.runId, config: c });

      cpuStart = process.cpuUsage();
      this.runStartUs = monoUs();
      this.runStartEpochMs = Date.now();
      this.hdrLog?.start(this.runStartEpochMs);
      for (const w of this.workers) this.post(w, { type: 'START', runStartUs: this.runStartUs });
      // Ctrl-C while connecting: the senders stop as soon as they start.
      if (this.interrupted) for (const w of this.workers) if (w.role === 'sender') this.stopWorker(w);
      this.setPhase(c.senders > 0 ? 'sending' : 'draining');
      if (c.senders === 0) this.beginDrain();
      await this.supervise();

      const durationMs = (monoUs() - this.runStartUs) / 1000;
      const cpu = process.cpuUsage(cpuStart);
      // A worker that gave up or died ends the run with a partial report (failure), never a verdict.
      let failure = this.fatal;
      let judgeLoss = !this.interrupted && c.receivers > 0 && failure === undefined;
      const warnings: string[] = [];
      // A worker already gave up on the store (or died): no waiting for it to come back.
      const retryMs = failure !== undefined ? 0 : this.interrupted ? END_RETRY_INTERRUPTED_MS : Math.min(END_RETRY_MS, this.outageTimeoutMs());
      const retryUntil = Date.now() + retryMs;
      // Every call now has a deadline of its own: a hung server must not hold the report back.
      const callMs = failure !== undefined || this.interrupted ? END_CALL_HURRIED_MS : END_CALL_MS;
      const answered = <T>(what: string, call: () => Promise<T>) => () => withDeadline(call(), callMs, what);
      try {
        messagesAfter = (await this.retrying(retryUntil, answered('reading the queue', () => backend.queueStats(queue)))).total;
      } catch (e) {
        messagesAfter = null;
        reachable = !isLostConnection(e);
        // Whatever the workers saw, a store that does not answer now cannot back a verdict.
        failure ??= `the queue cannot be read after the run: ${errorText(e)}`;
        judgeLoss = false;
      }
      // Read the queue back after every run: a row of this run that is there again (a delete
      // that did not stick), twice, or never sent is judged; an acknowledged send never
      // received but still there (claimed by a receive whose answer was lost) is not lost.
      if (reachable && this.fatal === undefined) {
        try {
          const pageWithin = (read: Promise<Message[]>) => withDeadline(read, callMs, 'reading the queue back');
          const back = await this.retrying(retryUntil, () => readBack(backend, queue, this.runId, this.checker, pageWithin));
          this.foreignInQueue = back.foreign;
          warnings.push(...readBackWarnings(back));
        } catch (e) {
          reachable = !isLostConnection(e);
          const missing = this.checker.ackedSends - this.checker.ackedDelivered;
          if (judgeLoss && missing > 0) {
            failure = `cannot check the queue for the ${missing} acknowledged message(s) not received: ${errorText(e)}`;
            judgeLoss = false;
          } else {
            warnings.push(`the queue could not be read back after the run: ${errorText(e)}`);
          }
        }
      }
      if (this.settleNote !== undefined) warnings.push(this.settleNote);
      // Only the fresh queue of the run is dropped; a queue named with --queue is the user's.
      if (created && c.queue === undefined && !c.keep) {
        try {
          if (!reachable) throw new SmqError('connection', 'the database is unreachable');
          await this.retrying(retryUntil, answered('dropping the queue', () => backend.dropQueue(queue)));
          dropped = true;
        } catch (e) {
          warnings.push(`the queue ${queue} created for the run was not dropped: ${errorText(e)}`);
        }
      }
      const nowUs = monoUs();
      const report = buildReport({
        config: c,
        runId: this.runId,
        startedAt,
        durationMs,
        nowUs,
        cores: os.availableParallelism(),
        cpu,
        interrupted: this.interrupted,
        interruptedBy: this.interruptSignal,
        failure,
        summary: this.checker.summarize({ judgeLoss }),
        workers: this.workers,
        series: this.series.points(),
        // Worker threads actually used by each role (see threadsPerRole).
        threads: { senders: Math.min(c.senders, this.threadsPerRole(c.senders)), receivers: Math.min(c.receivers, this.threadsPerRole(c.receivers)) },
        outageTimeoutMs: this.outageTimeoutMs(),
        backlogStuckMs: this.backlogStuckMs(),
        drain: { outcome: this.drainOutcome, startUs: this.drainStartUs, settleStartUs: this.settleStartUs, settleUntilUs: this.settleUntilUs },
        foreign: { seen: this.foreignIds.size, inQueue: this.foreignInQueue },
        lastError: this.lastError,
        queue: { name: queue, created, dropped, messagesBefore, messagesAfter },
        environment,
        warnings,
      });
      this.setPhase('done');
      this.emitProgress(); // the final frame of a live view
      this.emit('done', report);
      return report;
    } catch (e) {
      await this.terminateAll();
      if (created && c.queue === undefined && !c.keep && !dropped) {
        await withDeadline(backend.dropQueue(queue), END_CALL_HURRIED_MS, 'dropping the queue').catch(() => undefined);
      }
      throw e;
    } finally {
      this.hdrLog?.close();
      // A store that does not answer does not close either: its connection is left to the exit.
      const closing = backend.close().catch(() => undefined);
      if (reachable) await withDeadline(closing, END_CALL_HURRIED_MS, 'closing').catch(() => undefined);
    }
  }

  private outageTimeoutMs(): number {
    return this.config.outageTimeoutMs ?? DEFAULT_OUTAGE_TIMEOUT_MS;
  }

  /** Runs fn; a lost connection is retried (the pool reconnects) until the deadline. */
  private async retrying<T>(untilMs: number, fn: () => Promise<T>): Promise<T> {
    for (let wait = 100; ; wait = Math.min(1000, wait * 2)) {
      try {
        return await fn();
      } catch (e) {
        if (!isLostConnection(e) || Date.now() + wait > untilMs) throw e;
        await sleep(wait);
      }
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
        // One call at a time per sender/receiver, on its own connection, through the lean
        // protocol path (pgmq/wire.ts): the tester's CPU per call is kept off the server's cores.
        poolSize: 1,
        dedicated: true,
      },
      queue,
      runId: this.runId,
      sizeBytes: c.sizeBytes,
      batch: c.batch,
      vtSec: c.vtSec,
      ack: c.ack,
      dequeue: c.dequeue,
      naivePauseMs: c.naivePauseMs ?? 0,
      receiveByRunId: this.receiveByRunId,
      messages: c.messagesPerSender,
      durationMs: c.durationMs,
      ratePerSec: c.ratePerSec > 0 && c.senders > 0 ? c.ratePerSec / c.senders : 0,
      // A waiting sender gives up on a queue where nothing is received for the drain timeout
      // (at least a second): the messages it waits for are lost, and the checker says so.
      backlog: c.maxBacklog === undefined ? undefined : { cells: this.backlogCells, max: c.maxBacklog, stuckMs: this.backlogStuckMs() },
      warmupMs: c.warmupMs,
      outageTimeoutMs: this.outageTimeoutMs(),
      faults: c.faults ?? {},
    };
  }

  /**
   * Threads per role: --threads, or by default on Postgres half the cores (at least one), and
   * on SQLite one per sender and per receiver (better-sqlite3 answers synchronously: clients in
   * one thread would take turns, never overlap).
   *
   * Why not one thread per client on Postgres: every event loop that sleeps and wakes for each
   * round trip costs far more CPU than one loop serving several connections, and on a host
   * whose cores the server shares that CPU is taken from the server. Measured on the 2-core
   * bench host (bench/results): a bare pgmq.send loop on 8 connections ran at about 0.3x
   * pgbench from 8 threads and 0.8x from one.
   */
  private threadsPerRole(n: number): number {
    const c = this.config;
    if (c.threads !== undefined) return c.threads;
    if (c.target.kind === 'sqlite') return n;
    return Math.max(1, Math.floor(os.availableParallelism() / 2));
  }

  /** The worker threads: role, the senders (receivers) each runs, and its place among its role's. */
  private plan(): Role[] {
    const c = this.config;
    // The senders (receivers) dealt out round-robin over the role's threads, each still with
    // its own connection.
    const deal = (role: WorkerRole, n: number): Role[] => {
      const threads = Math.min(n, this.threadsPerRole(n));
      const groups = Array.from({ length: threads }, () => [] as number[]);
      for (let i = 0; i < n; i++) groups[i % threads]!.push(i);
      return groups.map((g, roleSlot) => [role, g, roleSlot] as const);
    };
    const roles = [...deal('sender', c.senders), ...deal('receiver', c.receivers)];
    this.receiverThreads = roles.filter(([role]) => role === 'receiver').length;
    return roles;
  }

  /** Starts every worker and waits until each has connected. */
  private spawn(queue: string, roles: readonly Role[]): Promise<{ isolation: string | null }> {
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
        const name = workerName(role, indices);
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
          abandonSent: false,
          stopSentAtMs: undefined,
          terminating: false,
          get finished() {
            return this.result !== undefined || this.exited;
          },
          upToSecond: 0,
          reportedErrors: { connection: 0, other: 0 },
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
        worker.on('exit', (code) => {
          w.exited = true;
          if (!w.ready) fail(`${name} exited before connecting`);
          else if (!w.result) {
            this.onWorkerLost(w);
            // After a crash, 'error' has already said why.
            this.onFatal(`${name} exited without a result (exit code ${code})`);
          }
          this.supervisor?.poke();
        });
      });
    });
  }

  /** A worker died without its result: what it had not reported yet is unknown. */
  private onWorkerLost(w: WorkerSlot): void {
    this.series.finish(w.slot);
    if (w.role === 'receiver') {
      // Its events so far are in; nothing more will come, so the others' are not held back.
      for (const i of w.indices) this.merger.finish(i);
      this.intervals.finished(w.roleSlot);
    } else {
      for (const i of w.indices) this.checker.recordSenderLost(i);
    }
  }

  private onFatal(message: string): void {
    if (this.fatal === undefined) this.fatal = message;
    for (const w of this.workers) this.stopWorker(w);
    this.supervisor?.poke();
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
          this.intervals.finished(w.roleSlot);
        }
        this.supervisor?.poke();
        break;
      case 'ERROR':
        this.errorCount += 1;
        w.reportedErrors[m.kind] += 1;
        this.lastError = m.message;
        this.emit('workerError', { role: w.role, indices: w.indices, message: m.message });
        if (m.fatal) this.onFatal(`${workerName(w.role, w.indices)}: ${m.message}`);
        break;
      case 'READY':
        break;
    }
  }

  private onProgress(w: WorkerSlot, m: Extract<FromWorker, { type: 'PROGRESS' }>): void {
    // Only this run's messages are activity: foreign ones are handed back and come again.
    if (m.lastConsumedUs > this.lastDeliveryUs) this.lastDeliveryUs = m.lastConsumedUs;
    for (const id of m.foreignIds) if (this.foreignIds.size < 100_000) this.foreignIds.add(id);
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
      for (const e of m.endToEnd) this.intervals.add(e.second, e.histogram);
      this.intervals.reported(w.roleSlot, m.upToSecond);
    }
  }

  private apply(kind: Kind, sender: number, seq: number, a: number, b: number, id: bigint): void {
    if (kind === EventKind.delivery || kind === EventKind.redelivery) {
      this.checker.recordDelivery(sender, seq, a, b, String(id), kind === EventKind.redelivery);
      this.lastDeliveryUs = monoUs();
    } else {
      if (kind === EventKind.ackOk) this.lastAckUs = monoUs();
      this.checker.recordAck(sender, seq, kind === EventKind.ackOk, String(id));
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
    return drainTimeoutMs(this.config.drainTimeoutMs, this.interrupted);
  }

  /** Runs until every worker has reported its result or is gone (lifecycle.ts: never re-entered). */
  private supervise(): Promise<void> {
    let lastProgress = 0;
    const step = (): boolean => {
      if (this.workers.every((w) => w.finished)) {
        this.merger.release();
        this.intervals.release(true);
        this.emitProgress();
        return true;
      }
      // A worker whose event loop does not answer STOP (stuck in a call) is ended, once.
      for (const w of overdueWorkers(this.workers, Date.now(), STOP_TIMEOUT_MS)) {
        w.terminating = true;
        void w.worker.terminate().catch(() => 0);
        this.onFatal(`${workerName(w.role, w.indices)} did not stop within ${STOP_TIMEOUT_MS / 1000} s`);
      }
      if (this.fatal !== undefined) return false;
      const sendersDone = this.workers.every((w) => w.role !== 'sender' || w.result !== undefined);
      if (this.phase === 'sending' && sendersDone) this.beginDrain();
      if (this.phase === 'draining') this.checkDrain();
      if (this.phase === 'settling' && (this.interrupted || monoUs() >= this.settleUntilUs)) this.stopReceivers();
      const now = Date.now();
      if (now - lastProgress >= 1000) {
        lastProgress = now;
        this.emitProgress();
      }
      return false;
    };
    this.supervisor = new Supervisor(step, TICK_MS);
    return this.supervisor.run();
  }

  private checkDrain(): void {
    const end = decideDrain(
      {
        drainOnly: this.config.senders === 0,
        ackedSends: this.checker.ackedSends,
        ackedDelivered: this.checker.ackedDelivered,
        uncertainSends: this.checker.uncertainSends,
        drainStartUs: this.drainStartUs,
        lastDeliveryUs: this.lastDeliveryUs,
        interrupted: this.interrupted,
        interruptedAtUs: this.interruptedAtUs,
        timeoutMs: this.drainTimeoutMs(),
      },
      monoUs(),
    );
    if (end === undefined) return;
    this.drainOutcome = end.outcome;
    if (end.next === 'settle') this.settleOrStop();
    else this.stopReceivers();
  }

  /** The drain is over: keep watching for late resurrections (--settle), then stop. */
  private settleOrStop(): void {
    const now = monoUs();
    const plan = planSettle(this.config.settleMs, this.config.vtSec, now, this.lastAckUs);
    this.settleNote = plan.note;
    this.settleStartUs = now;
    this.settleUntilUs = plan.untilUs;
    if (plan.untilUs > now) this.setPhase('settling');
    else this.stopReceivers();
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
      endToEnd: this.intervals.percentiles(),
      drain:
        this.phase === 'draining'
          ? {
              pending: Math.max(0, this.checker.ackedSends - this.checker.ackedDelivered),
              idleMs: drainIdleMs({ drainStartUs: this.drainStartUs, lastDeliveryUs: this.lastDeliveryUs }, monoUs()),
              timeoutMs: this.drainTimeoutMs(),
            }
          : undefined,
      violationsSoFar: this.checker.violationsSoFar,
      lastError: this.lastError,
    });
  }
}

export type { EventLoopStats };
