// The final report of a run: the JSON document (--json), built from what the run saw by a pure
// function (buildReport). report-text.ts renders it as the text table.
import type { ListenSetup } from './listen.js';
import type { FanoutReport } from './fanout.js';
import type { CheckerSummary } from './checker.js';
import type { TesterConfig } from './config.js';
import type { DrainOutcome } from './drain.js';
import type { FailoverReport } from './failover.js';
import type { TesterEnvironment } from './environment.js';
import {
  addEncoded,
  HISTOGRAM_NAMES,
  newMergedHistogram,
  spectrum,
  summarize,
  type Histogram,
  type HistogramName,
  type LatencySummary,
} from './histograms.js';
import type { ErrorKind, FromWorker, WorkerRole, WorkerTotals } from './protocol.js';
import type { SecondLatency } from './intervals.js';
import type { DatabaseFigures } from './store-figures.js';
import type { SeriesPoint } from './series.js';
import { decideVerdict } from './verdict.js';
import { judgeMaxP99 } from './threshold.js';
import { callsReport, configReport, peakBacklog } from './report-parts.js';
import type { SteadyCpu } from './cpu-window.js';
import { cpuShare, pacingWarnings, round2, testerWarnings } from './warnings.js';

export type * from './report-types.js';
import type { ReportedLatency, StopSignal, TesterReport, WorkerReport } from './report-types.js';

/** A worker thread as the report sees it: its result, or (died) the errors it had reported. */
export interface ReportedWorker {
  readonly role: WorkerRole;
  readonly indices: readonly number[];
  readonly result: Extract<FromWorker, { type: 'RESULT' }> | undefined;
  readonly reportedErrors: Readonly<Record<ErrorKind, number>>;
}

/** Everything the report is made of; buildReport reads no clock and no state of its own. */
export interface ReportInput {
  readonly config: TesterConfig;
  readonly runId: string;
  readonly startedAt: Date;
  readonly durationMs: number;
  /** µs, monotonic: now (the drain's and the settle's durations end here). */
  readonly nowUs: number;
  readonly cores: number;
  /** CPU the process used during the run. */
  readonly cpu: NodeJS.CpuUsage;
  /** CPU per message from the end of --warmup to the end of sending (cpu-window.ts). */
  readonly steadyCpu: SteadyCpu | null;
  readonly interrupted: boolean;
  readonly interruptedBy: StopSignal | undefined;
  /** Why the run stopped early or cannot back a verdict. */
  readonly failure: string | undefined;
  readonly summary: CheckerSummary;
  readonly workers: readonly ReportedWorker[];
  readonly series: readonly SeriesPoint[];
  /** End-to-end percentiles of each second that had deliveries (intervals.ts). */
  readonly secondLatency?: ReadonlyMap<number, SecondLatency>;
  /** Each call kind's percentiles by second (call-seconds.ts). */
  readonly callSeconds?: Readonly<Record<string, ReadonlyMap<number, SecondLatency>>>;
  /** Worker threads each role used. */
  readonly threads: { readonly senders: number; readonly receivers: number; readonly shared?: number };
  readonly outageTimeoutMs: number;
  readonly backlogStuckMs: number;
  /** µs, monotonic; 0: never began. */
  /** From the start to the end of sending (the senders' time, for their share of backlog waits); else the whole run. */
  readonly sendingMs?: number;
  readonly drain: {
    readonly outcome: DrainOutcome;
    readonly startUs: number;
    /** When the drain ended (0: not recorded; then the report's time). */
    readonly endUs?: number;
    readonly settleStartUs: number;
    readonly settleUntilUs: number;
  };
  /** Distinct foreign messages received; foreign rows the read-back found. */
  readonly foreign: { readonly seen: number; readonly inQueue: number };
  /** The last error a worker reported while running. */
  readonly lastError: string | undefined;
  readonly queue: TesterReport['queue'];
  readonly fanout?: FanoutReport | undefined;
  readonly environment: TesterEnvironment;
  /** Warnings from before the report (the read-back, the settle, the queue's drop). */
  readonly warnings: readonly string[];
  /** store-figures.ts; null or left out: the store has no counters. */
  readonly database?: DatabaseFigures | null;
  /** --listen: the throttle and fallback the run used (listen.ts). */
  readonly listen?: ListenSetup | undefined;
  /** Faults, servers and write outages (failover.ts); none when left out. */
  readonly failover?: FailoverReport | undefined;
  /** --hdr-log, closed and whole; left out: none, or a write failed (the command says which). */
  readonly hdrLog?: string | undefined;
}

/** A latency as the report gives it: without a sample, null figures (not measured), never 0. */
function reported(s: LatencySummary): ReportedLatency {
  if (s.count > 0) return s;
  return { count: 0, min: null, mean: null, p50: null, p90: null, p99: null, p999: null, max: null };
}

const NO_FAILOVER: FailoverReport = {
  faults: [],
  writeUnavailable: { windows: [], totalMs: 0, longestMs: 0 },
  servers: { applicationName: null, phases: [], failover: false, readBackOn: null, splitBrain: [], words: [] },
};

export function buildReport(x: ReportInput): TesterReport {
  const c = x.config;
  const failover = x.failover ?? NO_FAILOVER;
  const results = x.workers.map((w) => ({ w, r: w.result! })).filter((x) => x.r !== undefined);
  const merged = Object.fromEntries(HISTOGRAM_NAMES.map((n) => [n, newMergedHistogram()])) as Record<HistogramName, Histogram>;
  for (const { r } of results) for (const n of HISTOGRAM_NAMES) addEncoded(merged[n], r.histograms[n]);
  const lat = Object.fromEntries(HISTOGRAM_NAMES.map((n) => [n, summarize(merged[n])])) as Record<HistogramName, LatencySummary>;
  const rated = c.ratePerSec > 0;
  const shown: HistogramName[] = rated ? [...HISTOGRAM_NAMES] : ['endToEnd', 'send', 'receive', 'ack'];

  const summary = x.summary;
  const sum = (role: WorkerRole, f: (t: WorkerTotals) => number) =>
    results.filter(({ w }) => w.role === role).reduce((a, { r }) => a + f(r.totals), 0);
  // Throughput: the messages measured (after the warm-up) over the window they were measured
  // in, from the first call's start to the last call's end (a --duration run's senders: to the
  // end of the duration; receivers: at least to the end of sending, they were receiving). One
  // call has no rate (its own latency is not a throughput): 0, and the role is named in noRate.
  // (All threads read the one monotonic clock, clock.ts.)
  const noRate: ('send' | 'receive')[] = [];
  const lastOf = (role: WorkerRole) =>
    Math.max(...results.filter(({ w, r }) => w.role === role && r.totals.measuredCount > 0).map(({ r }) => r.totals.measuredLastUs));
  const rate = (role: WorkerRole) => {
    const rs = results.filter(({ w }) => w.role === role).map(({ r }) => r.totals);
    const n = rs.reduce((a, t) => a + t.measuredCount, 0);
    const calls = rs.reduce((a, t) => a + t.measuredCalls, 0);
    const first = Math.min(...rs.map((t) => t.measuredFirstUs));
    const last = role === 'receiver' ? Math.max(lastOf('receiver'), lastOf('sender')) : lastOf('sender');
    const sec = (last - first) / 1e6;
    if (n > 0 && calls < 2) noRate.push(role === 'sender' ? 'send' : 'receive');
    return n > 0 && calls >= 2 && sec > 0 ? n / sec : 0;
  };

  const workers: WorkerReport[] = results.map(({ w, r }) => ({
    role: w.role,
    indices: w.indices,
    eventLoopP99Ms: round2(r.eventLoop.p99Ms),
    eventLoopMaxMs: round2(r.eventLoop.maxMs),
    utilization: round2(r.eventLoop.utilization),
    errors: r.totals.errors,
  }));
  const cores = x.cores;
  const share = cpuShare(x.cpu, x.durationMs, cores);
  const backlogStuck = sum('sender', (t) => t.backlogStuck);
  const foreign = {
    deliveries: sum('receiver', (t) => t.foreignDeliveries),
    returned: sum('receiver', (t) => t.foreignReturned),
    notReturned: sum('receiver', (t) => t.foreignNotReturned),
  };
  const warnings: string[] = [
    ...x.warnings,
    ...testerWarnings({
      targetKind: c.target.kind,
      workers: results.map(({ w, r }) => ({ role: w.role, indices: w.indices, eventLoopP99Ms: r.eventLoop.p99Ms })),
      cpuShare: share,
      cores,
      backlogStuck,
      backlogStuckMs: x.backlogStuckMs,
      foreignSeen: x.foreign.seen,
      foreignDeliveries: foreign.deliveries,
      foreignNotReturned: foreign.notReturned,
      foreignInQueue: x.foreign.inQueue,
      notDrained: summary.counts.notDrained,
      receivers: c.receivers,
      notDeleted: {
        all: summary.counts.notDeleted,
        ackFailed: summary.counts.notDeletedAckFailed,
        notFound: summary.counts.notDeletedNotFound,
      },
      lastAckError: [...results].reverse().find(({ r }) => r.totals.lastAckError !== undefined)?.r.totals.lastAckError,
    }),
  ];
  // Errors by kind: from each worker's result, or what a worker that died had reported.
  const errorsOf = (kind: ErrorKind) =>
    x.workers.reduce(
      (a, w) =>
        a + (w.result ? (kind === 'connection' ? w.result.totals.connectionErrors : w.result.totals.otherErrors) : w.reportedErrors[kind]),
      0,
    );
  const connectionErrors = errorsOf('connection');
  const otherErrors = errorsOf('other');
  const scheduledNotSent = c.ratePerSec > 0 && c.durationMs !== undefined ? sum('sender', (t) => t.scheduledNotSent) : null;
  const peak = peakBacklog(x.series);
  const throughput = { sendPerSec: round2(rate('sender')), receivePerSec: round2(rate('receiver')), noRate };
  warnings.push(
    ...pacingWarnings({
      ratePerSec: c.ratePerSec,
      maxBacklog: c.maxBacklog,
      senders: c.senders,
      receivers: c.receivers,
      sendPerSec: noRate.includes('send') ? undefined : throughput.sendPerSec,
      peakBacklog: peak,
      endToEndP50Ms: lat.endToEnd.count > 0 ? lat.endToEnd.p50 : undefined,
      callsP50Ms: lat.send.p50 + lat.receive.p50,
      slowestSendMs: (lat.sendService ?? lat.send).max,
      slowestReceiveMs: lat.receive.max,
      slowestAckMs: lat.ack.max,
      pollSec: c.pollSec,
      failedCalls: connectionErrors + otherErrors,
      scheduledNotSent: scheduledNotSent ?? 0,
      sentMessages: summary.counts.sent + summary.counts.sendFailed,
    }),
  );

  const maxP99 =
    c.maxP99Ms === undefined
      ? null
      : judgeMaxP99(c.maxP99Ms, {
          endToEnd: lat.endToEnd,
          send: lat.send,
          warmupMs: c.warmupMs,
          durationMs: x.durationMs,
          sent: summary.counts.sent,
        });
  // The drain itself: not the settle after it, nor the read-back of the queue.
  const drainMs = x.drain.startUs > 0 ? ((x.drain.endUs || x.nowUs) - x.drain.startUs) / 1000 : 0;
  const sendingMs = x.sendingMs ?? x.durationMs;
  const counts = {
    ...summary.counts,
    // Received (and handed back), or found in the queue afterwards: whichever saw more.
    foreign: Math.max(x.foreign.seen, x.foreign.inQueue),
    foreignDeliveries: foreign.deliveries,
    faultDeleted: sum('sender', (t) => t.faultDeleted),
  };
  // A drain of an earlier run (--senders 0) does not know what that run sent: loss is not
  // judged, and neither is a message that was never sent (one with a body that cannot be that
  // run's, counted unexpected all the same, stays judged).
  const notJudged: TesterReport['notJudged'] =
    c.senders === 0
      ? [
          { class: 'lost', why: "a drain of an earlier run's messages (--senders 0) does not know which sends that run had acknowledged" },
          ...(counts.unexpected === 0
            ? [{ class: 'unexpected' as const, why: 'nor which messages it sent: every message carrying its run id counts as sent' }]
            : []),
        ]
      : [];
  for (const g of (summary.gaps ?? []).slice(0, 5)) {
    const more = g.missing > g.examples.length ? ', …' : '';
    warnings.push(
      `sender ${g.sender}: ${g.missing} sequence number(s) below the highest one seen (${g.highest}) never came: seq ${g.examples.join(', ')}${more}: ` +
        'lost, or never sent (a send that failed in the earlier run), or received by the earlier run; a drain cannot tell which (see that run’s report)',
    );
  }
  const lastError = [...results].reverse().find(({ r }) => r.totals.lastError !== undefined)?.r.totals.lastError ?? x.lastError;
  const calls = callsReport(results.map(({ r }) => r.totals));
  const outcome = decideVerdict({
    stoppedBecause: x.failure,
    interrupted: x.interrupted,
    senders: c.senders,
    receivers: c.receivers,
    counts,
    calls,
    lastError: lastError ?? null,
    splitBrain: failover.servers.splitBrain.length > 0,
    drain: c.senders === 0 ? { runId: x.runId, queue: x.queue.name } : undefined,
    notJudged: notJudged.length,
  });
  const notJudgedClass = (k: 'lost' | 'unexpected') => notJudged.some((n) => n.class === k);
  const faultsAt = new Map<number, string[]>();
  for (const f of failover.faults) faultsAt.set(f.second, [...(faultsAt.get(f.second) ?? []), f.fault]);

  return {
    verdict: outcome.verdict,
    failure: outcome.failure,
    partial: outcome.partial,
    interrupted: x.interrupted,
    interruptedBy: x.interruptedBy ?? null,
    runId: x.runId,
    startedAt: x.startedAt.toISOString(),
    durationMs: Math.round(x.durationMs),
    counts: {
      ...counts,
      lost: notJudgedClass('lost') ? null : counts.lost,
      unexpected: notJudgedClass('unexpected') ? null : counts.unexpected,
    },
    notJudged,
    throughput,
    scheduledNotSent,
    calls,
    peakBacklog: peak,
    latency: {
      endToEnd: reported(lat.endToEnd),
      send: reported(lat.send),
      receive: reported(lat.receive),
      ack: reported(lat.ack),
      ...(rated
        ? { endToEndService: reported(lat.endToEndService), sendService: reported(lat.sendService), scheduleLag: reported(lat.scheduleLag) }
        : {}),
    },
    latencyFrom: rated ? 'intended' : 'send-start',
    spectrum: Object.fromEntries(shown.filter((n) => lat[n].count > 0).map((n) => [n, spectrum(merged[n])])),
    series: x.series.map((p) => {
      const latency: Record<string, SecondLatency> = {};
      const endToEnd = x.secondLatency?.get(p.second);
      if (endToEnd) latency['endToEnd'] = endToEnd;
      for (const [kind, bySecond] of Object.entries(x.callSeconds ?? {})) {
        const s = bySecond.get(p.second);
        if (s) latency[kind] = s;
      }
      const faults = faultsAt.get(p.second);
      return { ...p, ...(Object.keys(latency).length > 0 ? { latency } : {}), ...(faults ? { faults } : {}) };
    }),
    faults: failover.faults,
    writeUnavailable: failover.writeUnavailable,
    servers: failover.servers,
    config: configReport(c, { threads: x.threads, queue: x.queue.name, outageTimeoutMs: x.outageTimeoutMs }),
    environment: { ...x.environment },
    examples: summary.examples,
    drain: {
      skipped: x.drain.outcome === 'skipped',
      complete: x.drain.outcome === 'complete',
      timedOut: x.drain.outcome === 'timedOut',
      durationMs: Math.round(drainMs),
      settleMs:
        x.drain.settleStartUs > 0 ? Math.round(Math.max(0, Math.min(x.nowUs, x.drain.settleUntilUs) - x.drain.settleStartUs) / 1000) : 0,
    },
    ...(x.fanout ? { fanout: x.fanout } : {}),
    queue: { ...x.queue },
    database: x.database ?? null,
    listen: x.listen
      ? {
          throttleMs: x.listen.throttleMs,
          fallbackMs: x.listen.fallbackMs,
          notified: sum('receiver', (t) => t.listenNotified),
          fallbacks: sum('receiver', (t) => t.listenFallbacks),
          reconnects: sum('receiver', (t) => t.listenReconnects),
        }
      : null,
    tester: { warnings, cpuPercentOfCores: Math.round(share * 1000) / 10, steadyCpu: x.steadyCpu, cores, workers },
    errors: { count: connectionErrors + otherErrors, connection: connectionErrors, other: otherErrors, last: lastError ?? null },
    maxP99,
    hdrLog: x.hdrLog ?? null,
    backlog:
      c.maxBacklog === undefined
        ? null
        : {
            max: c.maxBacklog,
            // Of the senders' time, the share spent waiting for room.
            senderWaitShare:
              c.senders > 0 && sendingMs > 0 ? round2(Math.min(1, sum('sender', (t) => t.backlogWaitMs) / c.senders / sendingMs)) : 0,
            stuck: backlogStuck,
          },
  };
}
