// The tester's main thread: makes the queue ready (run-queue.ts), spawns the worker threads
// (pool.ts), puts what they report together (collector.ts), decides when the drain is over
// (drain.ts), reconciles with the queue after the run (verify.ts) and builds the report
// (report.ts). It only coordinates: no message is sent or received here. The live view and
// the command listen to its events (progress.ts; it has no ink/react import).
// Over 350 lines on purpose: run() is the one sequence of a run, from setup to report, read
// top to bottom; every step it names lives in a module of its own.
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { openBackend, type OpenOptions } from '../backends/index.js';
import { newBacklogCells } from './backlog.js';
import { monoUs } from './clock.js';
import { RunCollector } from './collector.js';
import { DEFAULT_OUTAGE_TIMEOUT_MS, validateConfig, type TesterConfig } from './config.js';
import { decideDrain, drainTimeoutMs, type DrainOutcome } from './drain.js';
import { detectEnvironment, type TesterEnvironment } from './environment.js';
import { COMMAND_GRACE_MS, FailoverWatch } from './failover.js';
import { HdrLog } from './hdr-log.js';
import { Supervisor, withDeadline } from './lifecycle.js';
import { CpuWindow } from './cpu-window.js';
import { planThreads, STOP_TIMEOUT_MS, threadCounts, WorkerPool, workerName, workerSetup, type RunSetup, type WorkerSlot } from './pool.js';
import type { TesterEvents, TesterPhase } from './progress.js';
import type { EventLoopStats } from './protocol.js';
import { buildReport, type StopSignal, type TesterReport } from './report.js';
import { enableListen, restoreListen } from './listen.js';
import { abandonRunQueue, dropRunQueue, prepareQueue, queuesLeft, runQueueName, type LeftQueue, type RunQueue } from './run-queue.js';
import { planSettle } from './settle.js';
import { databaseAfterRun, readActivity } from './store-figures.js';
import { afterRunCalls, END_CALL_HURRIED_MS, reconcile } from './verify.js';
import { cleanUpFanout, FanoutTally, fanoutSummary, newFanoutPlan, prepareFanout, reconcileFanout, type FanoutPlan } from './fanout.js';

/** How often the main thread checks the drain and releases ordered events. */
const TICK_MS = 100;

export type { EventLoopStats, StopSignal, TesterEnvironment };
export type { ProgressSnapshot, TesterEvents, TesterPhase } from './progress.js';

export class TesterRun extends EventEmitter<TesterEvents> {
  readonly config: TesterConfig;
  readonly runId: string;
  /** The run's connections: the main thread's (with `create`) and every worker's (dedicated) are these. */
  private readonly open: Pick<OpenOptions, 'tenant' | 'isolation' | 'connectTimeoutMs' | 'poolSize' | 'applicationName' | 'callTimeoutMs'>;
  /** --fault, the servers the run's connections found themselves on, write outages. */
  private readonly failover: FailoverWatch;
  private readonly outageTimeoutMs: number;
  /** --max-backlog: a waiting sender goes on after this long with nothing received. */
  private readonly backlogStuckMs: number;
  /** --max-backlog: the counters every worker shares (backlog.ts). */
  private readonly backlogCells = newBacklogCells();
  private phase: TesterPhase = 'connecting';
  private interrupted = false;
  private interruptSignal: StopSignal | undefined;
  private interruptedAtUs = 0;
  private collector: RunCollector | undefined;
  private hdrLog: HdrLog | undefined;
  private supervisor: Supervisor | undefined;
  private runStartUs = 0;
  private drainStartUs = 0;
  private cpuWindow: CpuWindow | undefined;
  private drainOutcome: DrainOutcome = 'skipped';
  /** Receivers keep watching for late resurrections until then (µs); see settle.ts. */
  private settleUntilUs = 0;
  private settleStartUs = 0;
  private drainEndUs = 0;
  private settleNote: string | undefined;
  private fatal: string | undefined;
  private lastError: string | undefined;
  /** The run's queue(s), once known: what a quit now would leave behind (leftBehind). */
  private queues: { readonly queue: RunQueue; readonly plan: FanoutPlan | undefined } | undefined;
  private readonly pool = new WorkerPool({
    progress: (w, m) => this.collector?.progress(w, m),
    result: (w) => {
      this.collector?.finished(w);
      this.supervisor?.poke();
    },
    error: (w, m) => {
      this.lastError = m.message;
      this.emit('workerError', { role: w.role, indices: w.indices, message: m.message });
      if (m.fatal) this.onFatal(`${workerName(w.role, w.indices)}: ${m.message}`);
    },
    lost: (w) => this.collector?.lost(w),
    fatal: (message) => this.onFatal(message),
    exited: () => this.supervisor?.poke(),
    note: (m) => this.failover.onWorker(m),
  });

  constructor(config: TesterConfig) {
    super();
    validateConfig(config);
    this.config = config;
    this.runId = config.runId ?? randomBytes(6).toString('hex');
    // The run's connections carry a name of their own (a run id may be given twice), so that
    // --fault terminate ends these and no others; PostgreSQL keeps 63 bytes of it.
    const applicationName =
      config.target.kind === 'pgmq' ? `smq-tester-${this.runId.slice(0, 32)}-${randomBytes(3).toString('hex')}` : undefined;
    this.failover = new FailoverWatch(config.faultSpecs ?? [], applicationName, config.secrets);
    this.open = {
      ...(applicationName !== undefined ? { applicationName } : {}),
      ...(config.tenant !== undefined ? { tenant: config.tenant } : {}),
      ...(config.isolation !== undefined ? { isolation: config.isolation } : {}),
      connectTimeoutMs: config.connectTimeoutMs ?? 5000,
      poolSize: 1,
    };
    this.outageTimeoutMs = config.outageTimeoutMs ?? DEFAULT_OUTAGE_TIMEOUT_MS;
    this.backlogStuckMs = Math.max(1000, config.drainTimeoutMs);
  }

  /** Ctrl-C (or SIGTERM): stop the senders, drain briefly, and report what there is (marked interrupted). */
  interrupt(signal: StopSignal = 'SIGINT'): void {
    if (this.interrupted) return;
    this.interrupted = true;
    this.interruptSignal = signal;
    this.interruptedAtUs = monoUs();
    this.stopWhere((w) => w.role === 'sender' || w.stopSent);
  }

  /** The --hdr-log's first failed write (the run went on without the rest of the log). */
  hdrLogFailure(): Error | undefined {
    return this.hdrLog?.failure;
  }

  /** The queues this run created to drop after it and has not dropped yet (a second Ctrl-C leaves them). */
  leftBehind(): LeftQueue[] {
    return this.queues ? queuesLeft(this.config, this.queues.queue, this.queues.plan?.created) : [];
  }

  private setPhase(p: TesterPhase): void {
    if (this.phase === p) return;
    this.phase = p;
    this.emit('phase', p);
  }

  /** STOP; after Ctrl-C or a failure, with a short wait for calls in flight (the server may hang). */
  private stopWhere(which: (w: WorkerSlot) => boolean): void {
    this.pool.stopWhere(which, this.interrupted || this.fatal !== undefined);
  }

  async run(): Promise<TesterReport> {
    const c = this.config;
    const startedAt = new Date();
    const backend = await openBackend(c.target, { create: c.createSqlite ?? false, ...this.open });
    const queue: RunQueue = { name: runQueueName(c, this.runId), created: false, dropped: false };
    const plan = c.fanout && newFanoutPlan(c, c.fanout);
    this.queues = { queue, plan: plan || undefined };
    let cpuStart: NodeJS.CpuUsage | undefined;
    let reachable = true;
    let listen: Awaited<ReturnType<typeof enableListen>>;
    try {
      // Refused before anything is created: a terminate fault this role may not carry out.
      await this.failover.checkPrivilege(backend);
      const { info, messagesBefore, receiveByRunId } = plan ? await prepareFanout(backend, c, plan) : await prepareQueue(backend, c, queue);
      listen = await enableListen(backend, c, plan ? plan.queues.map((name) => ({ name, created: true })) : [queue], info);
      await this.failover.noteMain(backend);
      // The tables of every queue the run wrote to: --topic's bound queues, or the run's one.
      const tablesOf = plan ? plan.queues : [queue.name];
      const activityBefore = await readActivity(backend, tablesOf);
      if (c.hdrLogPath) this.hdrLog = HdrLog.open(c.hdrLogPath);

      // Ready before any worker runs: a worker that dies early is accounted for like any other.
      const threads = planThreads(c);
      const collector = new RunCollector(c, threads.length, threads.filter(([role]) => role === 'receiver').length, this.hdrLog, plan);
      this.collector = collector;
      const setup: RunSetup = {
        config: c,
        // The workers' calls have --timeout as their deadline; the main thread's own calls
        // (setup, reading the queue back) keep theirs.
        open: c.callTimeoutMs === undefined ? this.open : { ...this.open, callTimeoutMs: c.callTimeoutMs },
        queue: queue.name,
        runId: this.runId,
        receiveByRunId,
        fanout: plan && { keys: plan.keys, queues: plan.queues, senders: plan.senders },
        backlogCells: this.backlogCells,
        backlogStuckMs: this.backlogStuckMs,
        outageTimeoutMs: this.outageTimeoutMs,
        writeOutage: this.failover.writeOutageCell,
      };
      const { isolation } = await this.pool.spawn(c, threads, (role, indices, shares, one) =>
        workerSetup(role, indices, setup, shares, one),
      );
      const environment = detectEnvironment(info, c, isolation);
      this.emit('start', { environment, queue: queue.name, runId: this.runId, config: c });

      cpuStart = process.cpuUsage();
      this.runStartUs = monoUs();
      this.cpuWindow = new CpuWindow(this.runStartUs + c.warmupMs * 1000);
      this.hdrLog?.start(Date.now());
      this.pool.start(this.runStartUs);
      this.failover.start(this.runStartUs, backend, (f) => this.emit('fault', f));
      // Ctrl-C while connecting: the senders stop as soon as they start.
      if (this.interrupted) this.stopWhere((w) => w.role === 'sender');
      this.setPhase(c.senders > 0 ? 'sending' : 'draining');
      if (c.senders === 0) this.beginDrain();
      await this.supervise();
      // A command of --fault still running gets a few seconds (none after Ctrl-C or a failure).
      await this.failover.finish(this.interrupted || this.fatal !== undefined ? 0 : COMMAND_GRACE_MS);

      const durationMs = (monoUs() - this.runStartUs) / 1000;
      const cpu = process.cpuUsage(cpuStart);
      // A worker that gave up or died ends the run with a partial report (failure), never a verdict.
      const failed = this.fatal !== undefined;
      const calls = afterRunCalls({ failed, interrupted: this.interrupted, outageTimeoutMs: this.outageTimeoutMs });
      const judging = {
        failure: this.fatal,
        judgeLoss: !this.interrupted && c.receivers > 0 && !failed,
        workerFailed: failed,
        receivers: c.receivers,
      };
      const after = plan
        ? await reconcileFanout(backend, this.runId, collector.checker, calls, plan, judging)
        : await reconcile(backend, queue.name, this.runId, collector.checker, calls, judging);
      reachable = after.reachable;
      if (reachable) await this.failover.noteMain(backend, true);
      const warnings = [...after.warnings, ...this.failover.warnings, ...(listen?.warning ? [listen.warning] : [])];
      if (this.settleNote !== undefined) warnings.push(this.settleNote);
      const database = reachable ? await databaseAfterRun(backend, tablesOf, activityBefore, collector.checker) : { figures: null };
      if (database.warning !== undefined) warnings.push(database.warning);
      const notDropped = await dropRunQueue(backend, c, queue, calls, reachable);
      if (notDropped !== undefined) warnings.push(notDropped);
      const notRestored = reachable ? await restoreListen(backend, listen?.setup) : undefined;
      if (notRestored !== undefined) warnings.push(notRestored);
      if (plan) warnings.push(...(await cleanUpFanout(backend, c, plan, !reachable)));
      // What the failover lost or brought back, told message by message by the checker's count.
      const attribution = this.failover.attribution();
      const tally = plan && new FanoutTally(plan);
      const judged = collector.checker.summarize({
        judgeLoss: after.judgeLoss,
        each: (cls, s, q) => attribution.add(cls, s, q),
        every: tally?.add,
      });
      const summary = plan ? fanoutSummary(judged, plan) : judged;
      const report = buildReport({
        config: c,
        runId: this.runId,
        startedAt,
        durationMs,
        nowUs: monoUs(),
        cores: os.availableParallelism(),
        cpu,
        steadyCpu: this.cpuWindow?.result() ?? null,
        interrupted: this.interrupted,
        interruptedBy: this.interruptSignal,
        failure: after.failure,
        summary,
        failover: this.failover.report(attribution),
        workers: this.pool.workers,
        series: collector.series.points(),
        secondLatency: collector.intervals.perSecond,
        callSeconds: Object.fromEntries(Object.entries(collector.callSeconds).map(([k, m]) => [k, m.perSecond])),
        threads: threadCounts(c),
        outageTimeoutMs: this.outageTimeoutMs,
        backlogStuckMs: this.backlogStuckMs,
        sendingMs: ((this.drainStartUs || monoUs()) - this.runStartUs) / 1000,
        drain: {
          outcome: this.drainOutcome,
          startUs: this.drainStartUs,
          endUs: this.drainEndUs,
          settleStartUs: this.settleStartUs,
          settleUntilUs: this.settleUntilUs,
        },
        foreign: { seen: collector.foreignIds.size, inQueue: after.foreignInQueue },
        lastError: this.lastError,
        queue: plan
          ? { name: plan.queues.join(', '), created: true, dropped: plan.dropped, messagesBefore, messagesAfter: after.messagesAfter }
          : { name: queue.name, created: queue.created, dropped: queue.dropped, messagesBefore, messagesAfter: after.messagesAfter },
        fanout: tally?.report(),
        environment,
        warnings,
        database: database.figures,
        listen: listen?.setup,
        hdrLog: this.hdrLog?.closeWhole(), // every second is in it by now
      });
      this.setPhase('done');
      this.emitProgress(); // the final frame of a live view
      this.emit('done', report);
      return report;
    } catch (e) {
      await this.failover.finish(0);
      await this.pool.terminateAll();
      await abandonRunQueue(backend, c, queue);
      await withDeadline(restoreListen(backend, listen?.setup), END_CALL_HURRIED_MS, 'restoring').catch(() => undefined);
      if (plan) await cleanUpFanout(backend, c, plan, true).catch(() => undefined);
      throw e;
    } finally {
      this.hdrLog?.close();
      // A store that does not answer does not close either: its connection is left to the exit.
      const closing = backend.close().catch(() => undefined);
      if (reachable) await withDeadline(closing, END_CALL_HURRIED_MS, 'closing').catch(() => undefined);
    }
  }

  private onFatal(message: string): void {
    if (this.fatal === undefined) this.fatal = message;
    this.stopWhere(() => true);
    this.supervisor?.poke();
  }

  // ---- supervision: sending, draining, stopping -----------------------------------------

  private beginDrain(): void {
    this.drainStartUs = monoUs();
    this.failover.sendingEnded();
    if (this.collector) this.collector.lastProgressUs = this.drainStartUs;
    this.setPhase('draining');
    if (this.config.receivers === 0) {
      this.drainOutcome = 'skipped';
      this.stopReceivers();
    }
  }

  private stopReceivers(): void {
    this.setPhase('stopping');
    this.stopWhere((w) => w.role === 'receiver');
  }

  /** Runs until every worker has reported its result or is gone (lifecycle.ts: never re-entered). */
  private supervise(): Promise<void> {
    let lastProgress = 0;
    const step = (): boolean => {
      if (this.pool.allFinished) {
        this.collector?.releaseAll();
        this.emitProgress();
        return true;
      }
      // A worker whose event loop does not answer STOP (stuck in a call) is ended, once.
      this.pool.terminateOverdue(Date.now(), (w) =>
        this.onFatal(`${workerName(w.role, w.indices)} did not stop within ${STOP_TIMEOUT_MS / 1000} s`),
      );
      if (this.fatal !== undefined) return false;
      const checker = this.collector?.checker;
      if (checker)
        this.cpuWindow?.observe(
          monoUs(),
          this.config.receivers > 0 ? checker.ackedDelivered : checker.ackedSends,
          this.phase === 'sending',
        );
      if (this.phase === 'sending' && this.pool.sendersDone) this.beginDrain();
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
    const col = this.collector!;
    const end = decideDrain(
      {
        drainOnly: this.config.senders === 0,
        ackedSends: col.checker.ackedSends,
        ackedDelivered: col.checker.ackedDelivered,
        uncertainSends: col.checker.uncertainSends,
        drainStartUs: this.drainStartUs,
        lastProgressUs: col.lastProgressUs,
        interrupted: this.interrupted,
        interruptedAtUs: this.interruptedAtUs,
        timeoutMs: drainTimeoutMs(this.config.drainTimeoutMs, this.interrupted),
      },
      monoUs(),
    );
    if (end === undefined) return;
    this.drainOutcome = end.outcome;
    this.drainEndUs = monoUs();
    if (end.next === 'settle') this.settleOrStop();
    else this.stopReceivers();
  }

  /** The drain is over: keep watching for late resurrections (--settle), then stop. */
  private settleOrStop(): void {
    const now = monoUs();
    const plan = planSettle(this.config.settleMs, this.config.vtSec, now, this.collector!.lastAckUs);
    this.settleNote = plan.note;
    this.settleStartUs = now;
    this.settleUntilUs = plan.untilUs;
    if (plan.untilUs > now) this.setPhase('settling');
    else this.stopReceivers();
  }

  private emitProgress(): void {
    const c = this.config;
    const frame = this.collector?.snapshot({
      elapsedMs: (monoUs() - this.runStartUs) / 1000,
      phase: this.phase,
      interrupted: this.interrupted,
      totalToSend: c.messagesPerSender === undefined ? undefined : c.messagesPerSender * c.senders,
      drain:
        this.phase === 'draining'
          ? { startUs: this.drainStartUs, timeoutMs: drainTimeoutMs(this.config.drainTimeoutMs, this.interrupted) }
          : undefined,
      lastError: this.lastError,
      faults: this.failover.liveFaults(),
    });
    if (frame) this.emit('progress', frame);
  }
}
