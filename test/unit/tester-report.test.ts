// The report as a function of what the run saw, without threads or a database: buildReport
// merges the workers' histograms and totals and decides the verdict; the warning policy says
// when the tester itself may have set the pace.
import { describe, expect, test } from 'vitest';
import { DeliveryChecker } from '../../src/tester/checker.js';
import type { TesterConfig } from '../../src/tester/config.js';
import type { TesterEnvironment } from '../../src/tester/environment.js';
import { encodeHistogram, HISTOGRAM_NAMES, newWorkerHistogram, recordUs } from '../../src/tester/histograms.js';
import type { WorkerTotals } from '../../src/tester/protocol.js';
import { buildReport, type ReportInput, type ReportedWorker } from '../../src/tester/report.js';
import { formatReport } from '../../src/tester/report-text.js';
import { htmlReport } from '../../src/tester/html/html-report.js';
import { cpuShare, LAG_WARN_MS, pacingWarnings, testerWarnings, type PacingFacts, type WarningFacts } from '../../src/tester/warnings.js';

const config: TesterConfig = {
  target: { kind: 'pgmq', url: 'postgres://x@localhost/db' },
  senders: 1,
  receivers: 1,
  messagesPerSender: 3,
  sizeBytes: 64,
  batch: 1,
  vtSec: 5,
  ack: 'delete',
  dequeue: 'safe',
  ratePerSec: 0,
  warmupMs: 0,
  keep: false,
  drainTimeoutMs: 5000,
};

const environment: TesterEnvironment = {
  backend: 'pgmq',
  serverVersion: 'PostgreSQL 16',
  schema: 'pgmq 1.5',
  location: 'postgres://x@localhost/db',
  embedded: false,
  isolation: null,
  dequeue: 'safe',
  node: 'v20',
  platform: 'linux',
  cores: 2,
  cpuModel: 'cpu',
};

const totals = (over: Partial<WorkerTotals>): WorkerTotals => ({
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
  foreignDeliveries: 0,
  foreignReturned: 0,
  foreignNotReturned: 0,
  calls: { send: 0, sendFailed: 0, receive: 0, receiveFailed: 0, ack: 0, ackFailed: 0 },
  backlogWaitMs: 0,
  backlogStuck: 0,
  scheduledNotSent: 0,
  listenNotified: 0,
  listenFallbacks: 0,
  listenReconnects: 0,
  faultDeleted: 0,
  measuredCount: 0,
  measuredCalls: 0,
  measuredFirstUs: 0,
  measuredLastUs: 0,
  lastError: undefined,
  lastAckError: undefined,
  ...over,
});

/** A worker's histograms, each holding the values given for it (µs). */
function histograms(values: Partial<Record<(typeof HISTOGRAM_NAMES)[number], number[]>>) {
  return Object.fromEntries(
    HISTOGRAM_NAMES.map((n) => {
      const h = newWorkerHistogram();
      for (const v of values[n] ?? []) recordUs(h, v);
      return [n, encodeHistogram(h)];
    }),
  ) as Record<(typeof HISTOGRAM_NAMES)[number], string>;
}

const eventLoop = { meanMs: 1, p99Ms: 2, maxMs: 3, utilization: 0.5 };

/** One sender that sent 3 messages and one receiver that received and deleted them. */
function cleanRun(): ReportInput {
  const checker = new DeliveryChecker({ senders: 1, capacityPerSender: 3, clockBaseMs: 0 });
  checker.recordSend(0, 0, 3, 'acked');
  for (let seq = 0; seq < 3; seq++) {
    checker.recordDelivery(0, seq, 1000 + seq, 6000 + seq, String(seq + 1));
    checker.recordAck(0, seq, true, String(seq + 1));
  }
  const calls = { send: 3, sendFailed: 0, receive: 3, receiveFailed: 0, ack: 3, ackFailed: 0 };
  const sender: ReportedWorker = {
    role: 'sender',
    indices: [0],
    result: {
      type: 'RESULT',
      histograms: histograms({ send: [1000, 2000, 3000] }),
      totals: totals({ sent: 3, calls, measuredCount: 3, measuredCalls: 3, measuredFirstUs: 0, measuredLastUs: 1_000_000 }),
      eventLoop,
    },
    reportedErrors: { connection: 0, other: 0 },
  };
  const receiver: ReportedWorker = {
    role: 'receiver',
    indices: [0],
    result: {
      type: 'RESULT',
      histograms: histograms({ endToEnd: [5000, 6000, 7000] }),
      totals: totals({
        received: 3,
        acknowledged: 3,
        calls,
        measuredCount: 3,
        measuredCalls: 3,
        measuredFirstUs: 0,
        measuredLastUs: 2_000_000,
      }),
      eventLoop,
    },
    reportedErrors: { connection: 0, other: 0 },
  };
  return {
    config,
    runId: 'abc123',
    startedAt: new Date('2026-01-01T00:00:00Z'),
    durationMs: 2000.4,
    nowUs: 10_000_000,
    cores: 2,
    cpu: { user: 100_000, system: 0 },
    steadyCpu: null,
    interrupted: false,
    interruptedBy: undefined,
    failure: undefined,
    summary: checker.summarize({ judgeLoss: true }),
    workers: [sender, receiver],
    series: [],
    threads: { senders: 1, receivers: 1 },
    outageTimeoutMs: 30_000,
    backlogStuckMs: 5000,
    drain: { outcome: 'complete', startUs: 9_000_000, settleStartUs: 0, settleUntilUs: 0 },
    foreign: { seen: 0, inQueue: 0 },
    lastError: undefined,
    queue: { name: 'q', created: true, dropped: true, messagesBefore: 0, messagesAfter: 0 },
    environment,
    warnings: [],
  };
}

describe('buildReport', () => {
  test('a clean run: merged latencies, rates, counts, drain and verdict', () => {
    const r = buildReport(cleanRun());
    expect(r.verdict).toBe('clean');
    expect(r.failure).toBeNull();
    expect(r.counts).toMatchObject({
      sent: 3,
      received: 3,
      acknowledged: 3,
      ok: 3,
      lost: 0,
      foreign: 0,
      foreignDeliveries: 0,
      faultDeleted: 0,
    });
    expect(r.latency.send.count).toBe(3);
    expect(r.latency.endToEnd.count).toBe(3);
    expect(r.latency.endToEnd.max).toBeCloseTo(7, 1);
    expect(r.latency.endToEndService).toBeUndefined();
    expect(r.latencyFrom).toBe('send-start');
    expect(r.throughput).toEqual({ sendPerSec: 3, receivePerSec: 1.5, noRate: [] });
    expect(r.durationMs).toBe(2000);
    expect(r.drain).toEqual({ skipped: false, complete: true, timedOut: false, durationMs: 1000, settleMs: 0 });
    expect(r.tester).toEqual({
      warnings: [],
      cpuPercentOfCores: 2.5,
      steadyCpu: null,
      cores: 2,
      workers: [
        { role: 'sender', indices: [0], eventLoopP99Ms: 2, eventLoopMaxMs: 3, utilization: 0.5, errors: 0 },
        { role: 'receiver', indices: [0], eventLoopP99Ms: 2, eventLoopMaxMs: 3, utilization: 0.5, errors: 0 },
      ],
    });
    expect(r.config['threads']).toEqual({ senders: 1, receivers: 1 });
    expect(r.config['queue']).toBe('q');
    expect(r.queue).toEqual({ name: 'q', created: true, dropped: true, messagesBefore: 0, messagesAfter: 0 });
    expect(r.maxP99).toBeNull();
    expect(r.backlog).toBeNull();
    expect(formatReport(r)).toMatch(/verdict {5}clean\n$/);
  });

  test('--max-p99 is judged on end-to-end latency, and on send latency when nothing was received', () => {
    const x = cleanRun();
    expect(buildReport({ ...x, config: { ...config, maxP99Ms: 6 } }).maxP99).toMatchObject({ limitMs: 6, exceeded: true });
    const noReceiver = { ...x, workers: x.workers.filter((w) => w.role === 'sender'), config: { ...config, maxP99Ms: 6 } };
    expect(buildReport(noReceiver).maxP99).toMatchObject({ limitMs: 6, exceeded: false });
    // The limit is shown as given: 0.001 ms was printed as "0.00 ms".
    expect(formatReport(buildReport({ ...x, config: { ...config, maxP99Ms: 0.001 } }))).toMatch(
      /^--max-p99 +[\d.]+ ms > 0\.001 ms \(EXCEEDED\)$/m,
    );
    expect(formatReport(buildReport({ ...x, config: { ...config, maxP99Ms: 60 } }))).toMatch(/^--max-p99 +[\d.]+ ms <= 60 ms$/m);
  });

  test('--max-p99 with no latency sample (every message sent within the warm-up) is not measured and counts as missed', () => {
    const x = cleanRun();
    const noSamples = x.workers.map((w) => ({ ...w, result: { ...w.result!, histograms: histograms({}) } }));
    const r = buildReport({ ...x, workers: noSamples, config: { ...config, warmupMs: 5000, maxP99Ms: 1 } });
    expect(r.latency.endToEnd.count).toBe(0);
    expect(r.maxP99).toMatchObject({ limitMs: 1, valueMs: null, samples: 0, exceeded: false, missed: true });
    expect(r.maxP99!.notMeasured).toMatch(/within the 5 s warm-up/);
    expect(r.verdict).toBe('clean');
    expect(formatReport(r)).toMatch(
      /^--max-p99 +not measured \(no latency samples\): every message was sent within the 5 s warm-up .*counts as missed$/m,
    );
    // Measured: the sample count is given, and a p99 within the limit is not missed.
    const measured = buildReport({ ...x, config: { ...config, maxP99Ms: 60 } }).maxP99;
    expect(measured).toMatchObject({ limitMs: 60, samples: 3, exceeded: false, missed: false, notMeasured: null });
  });

  test('a worker that died: its reported errors count, and the failure makes a partial, failed report', () => {
    const x = cleanRun();
    const dead: ReportedWorker = { role: 'receiver', indices: [1], result: undefined, reportedErrors: { connection: 2, other: 1 } };
    const r = buildReport({ ...x, workers: [...x.workers, dead], failure: 'receiver 1 crashed: boom', lastError: 'boom' });
    expect(r.verdict).toBe('failed');
    expect(r.partial).toBe(true);
    expect(r.failure).toBe('receiver 1 crashed: boom');
    expect(r.errors).toEqual({ count: 3, connection: 2, other: 1, last: 'boom' });
  });

  test("warnings: the run's own first, then the policy's", () => {
    const x = cleanRun();
    const r = buildReport({ ...x, warnings: ['from the read-back'], foreign: { seen: 0, inQueue: 4 } });
    expect(r.tester.warnings).toEqual([
      'from the read-back',
      "4 message(s) without this run's id are in the queue: left untouched (never received)",
    ]);
    expect(r.counts.foreign).toBe(4);
  });

  test('the drain lasts until its end, not through the settle and read-back; backlog waits are a share of the sending', () => {
    // Before: "drain complete after 8.70 s" for a drain of 0.5 s and 8 s of settle, and
    // "senders waited 30%" of the whole run for 92% of their sending time.
    const x = cleanRun();
    const r = buildReport({
      ...x,
      config: { ...x.config, maxBacklog: 5 },
      durationMs: 10_000,
      sendingMs: 4_000,
      drain: { outcome: 'complete', startUs: 4_000_000, endUs: 4_500_000, settleStartUs: 4_500_000, settleUntilUs: 9_000_000 },
      workers: x.workers.map((w) =>
        w.role === 'sender' && w.result ? { ...w, result: { ...w.result, totals: { ...w.result.totals, backlogWaitMs: 3_680 } } } : w,
      ),
    });
    expect(r.drain.durationMs).toBe(500);
    expect(r.backlog?.senderWaitShare).toBe(0.92);
  });

  test('interrupted: marked, with the signal', () => {
    const r = buildReport({ ...cleanRun(), interrupted: true, interruptedBy: 'SIGTERM' });
    expect(r.verdict).toBe('interrupted');
    expect(r.interruptedBy).toBe('SIGTERM');
  });
});

describe('testerWarnings', () => {
  const quiet: WarningFacts = {
    targetKind: 'pgmq',
    workers: [{ role: 'sender', indices: [0], eventLoopP99Ms: 1 }],
    cpuShare: 0.1,
    cores: 2,
    backlogStuck: 0,
    backlogStuckMs: 5000,
    foreignSeen: 0,
    foreignDeliveries: 0,
    foreignNotReturned: 0,
    foreignInQueue: 0,
    notDrained: 0,
    receivers: 1,
  };

  test('nothing to say', () => {
    expect(testerWarnings(quiet)).toEqual([]);
  });

  test('event-loop lag names the worst worker on Postgres, never on SQLite', () => {
    const workers = [
      { role: 'sender' as const, indices: [0, 2], eventLoopP99Ms: LAG_WARN_MS + 10.123 },
      { role: 'receiver' as const, indices: [1], eventLoopP99Ms: LAG_WARN_MS + 1 },
    ];
    expect(testerWarnings({ ...quiet, workers })).toEqual([
      `the tester may be the bottleneck: 2 worker(s) had event-loop delays over ${LAG_WARN_MS} ms at p99 (worst: sender 0,2, 60.12 ms)`,
    ]);
    expect(testerWarnings({ ...quiet, workers, targetKind: 'sqlite' })).toEqual([]);
  });

  test('CPU near all cores (SQLite runs in-process, and says so)', () => {
    expect(testerWarnings({ ...quiet, cpuShare: 0.95 })).toEqual(['the tester may be the bottleneck: it used 95% of 2 cores']);
    expect(testerWarnings({ ...quiet, cpuShare: 0.9, targetKind: 'sqlite' })).toEqual([
      'the tester may be the bottleneck: it used 90% of 2 cores (including SQLite, which runs in-process)',
    ]);
    expect(cpuShare({ user: 1_500_000, system: 500_000 }, 1000, 2)).toBe(1);
  });

  test('messages not deleted by the tester: each reason, a delete error when there was one, and those never acknowledged', () => {
    expect(
      testerWarnings({
        ...quiet,
        notDeleted: { all: 6, ackFailed: 3, notFound: 1 },
        lastAckError: 'database error 42501: permission denied',
      }),
    ).toEqual([
      '6 delivered message(s) were not deleted by the tester, so not counted ok: ' +
        '3 because their delete failed (last delete error: database error 42501: permission denied); ' +
        '1 because its delete found no row (deleted by another client); ' +
        '2 never acknowledged (the receivers stopped before deleting them)',
    ]);
    expect(testerWarnings({ ...quiet, notDeleted: { all: 1, ackFailed: 0, notFound: 0 } })).toEqual([
      '1 delivered message(s) were not deleted by the tester, so not counted ok: 1 never acknowledged (the receivers stopped before deleting it)',
    ]);
    expect(testerWarnings({ ...quiet, notDeleted: { all: 0, ackFailed: 0, notFound: 0 } })).toEqual([]);
  });

  test('backlog waits given up, foreign messages handed back, sends not drained', () => {
    expect(testerWarnings({ ...quiet, backlogStuck: 2 })).toEqual([
      '2 time(s) a sender waiting under --max-backlog went on anyway: nothing was received for 5 s (messages lost, or receivers that cannot receive)',
    ]);
    expect(testerWarnings({ ...quiet, foreignSeen: 3, foreignDeliveries: 5, foreignNotReturned: 1, foreignInQueue: 9 })).toEqual([
      "3 message(s) without this run's id were received 5 time(s) and handed back (never deleted; each receive raised a read count); " +
        '1 could not be handed back and are visible again when their lease ends',
    ]);
    expect(testerWarnings({ ...quiet, notDrained: 4 })).toEqual([
      '4 acknowledged send(s) were not received before the run ended (not judged as lost)',
    ]);
    expect(testerWarnings({ ...quiet, notDrained: 4, receivers: 0 })).toEqual([]);
  });
});

describe('faults, write outages and the servers of a run (failover.ts)', () => {
  const a = { server: '127.0.0.1:5432', systemIdentifier: '7400', timeline: 1, inRecovery: false };
  const b = { server: '127.0.0.1:5433', systemIdentifier: '7400', timeline: 2, inRecovery: false };
  const fault = {
    fault: 'exec:pg_ctl promote@1s',
    kind: 'exec' as const,
    command: 'pg_ctl promote',
    atMs: 1000,
    second: 1,
    durationMs: 200,
    outcome: 'ok' as const,
    detail: 'exit code 0 after 0.2 s',
    exitCode: 0,
    connectionsEnded: null,
    output: 'waiting for server to promote....\nserver promoted\n',
    writesImpossibleMs: 1500,
  };
  const failover = (splitBrain: boolean) => ({
    faults: [fault],
    writeUnavailable: { windows: [{ fromMs: 1100, toMs: 2600 }], totalMs: 1500, longestMs: 1500 },
    servers: {
      applicationName: 'smq-tester-abc123-0a0b0c',
      phases: [
        { ...a, firstSeenMs: 0, lastSeenMs: 900, connections: 3 },
        { ...b, firstSeenMs: 2500, lastSeenMs: 2600, connections: 2 },
      ],
      failover: true,
      readBackOn: b,
      splitBrain: splitBrain
        ? [{ server: a.server, timeline: 1, systemIdentifier: '7400', atMs: 3000, text: 'two primaries (split brain)' }]
        : [],
      words: ['2 lost: acknowledged by 127.0.0.1:5432 on timeline 1, absent after the failover to 127.0.0.1:5433 on timeline 2'],
    },
  });

  test('the JSON carries them, and the series marks the second a fault fired', () => {
    const r = buildReport({
      ...cleanRun(),
      series: [0, 1, 2].map((second) => ({ second, sent: 1, sendFailed: 0, received: 1, acknowledged: 1, emptyReceives: 0, errors: 0 })),
      failover: failover(false),
    });
    expect(r.verdict).toBe('clean');
    expect(r.faults).toEqual([fault]);
    expect(r.series.map((p) => p.faults)).toEqual([undefined, ['exec:pg_ctl promote@1s'], undefined]);
    expect(r.writeUnavailable.totalMs).toBe(1500);
    expect(r.servers.phases).toHaveLength(2);
  });

  test('the text says it in a few lines', () => {
    const text = formatReport(buildReport({ ...cleanRun(), failover: failover(false) }));
    expect(text).toContain('fault       exec:pg_ctl promote@1s at 1.00 s: exit code 0 after 0.2 s; writes impossible for 1.50 s\n');
    expect(text).toContain('              | server promoted\n');
    expect(text).toContain('writes      impossible for 1.50 s in all (1 window(s), longest 1.50 s)\n');
    expect(text).toContain('served by   127.0.0.1:5432 (system 7400, timeline 1) from 0.00 s (3 connection(s) found it)\n');
    expect(text).toContain('            127.0.0.1:5433 (system 7400, timeline 2) from 2.50 s (2 connection(s) found it)\n');
    expect(text).toContain('failover    2 lost: acknowledged by 127.0.0.1:5432 on timeline 1');
  });

  test('a split brain is a violation whatever the counts', () => {
    const r = buildReport({ ...cleanRun(), failover: failover(true) });
    expect(r.counts.lost).toBe(0);
    expect(r.verdict).toBe('violations');
    expect(formatReport(r)).toContain('SPLIT BRAIN two primaries (split brain)\n');
  });
});

describe('the report explains the load (pacingWarnings, calls, peak backlog)', () => {
  const unpaced: PacingFacts = {
    ratePerSec: 0,
    maxBacklog: undefined,
    senders: 4,
    receivers: 4,
    sendPerSec: 12_000,
    peakBacklog: 48_000,
    endToEndP50Ms: 900,
    callsP50Ms: 3.2,
  };

  test('unpaced senders and a large backlog: end-to-end latency is mostly waiting in the queue', () => {
    expect(pacingWarnings(unpaced)).toEqual([
      'senders were unpaced and the backlog reached 48,000: end-to-end latency is mostly time spent waiting in the queue ' +
        "(p50 900 ms, of which a send and a receive call take 3.2 ms); use --rate or --max-backlog to measure the queue's own latency",
    ]);
    // Paced, a small backlog, or latency the calls explain: nothing to say.
    expect(pacingWarnings({ ...unpaced, maxBacklog: 1000 })).toEqual([]);
    expect(pacingWarnings({ ...unpaced, ratePerSec: 20_000, sendPerSec: 19_900 })).toEqual([]);
    expect(pacingWarnings({ ...unpaced, peakBacklog: 200 })).toEqual([]);
    expect(pacingWarnings({ ...unpaced, endToEndP50Ms: 5 })).toEqual([]);
    expect(pacingWarnings({ ...unpaced, endToEndP50Ms: undefined })).toEqual([]);
  });

  test('--rate not reached: offered and achieved', () => {
    const rated = { ...unpaced, ratePerSec: 3000, sendPerSec: 1040.4, peakBacklog: 10 };
    expect(pacingWarnings(rated)).toEqual([
      '--rate was not reached: offered 3,000 msg/s, achieved 1,040 (the senders could not keep up; see the schedule lag)',
    ]);
    expect(pacingWarnings({ ...rated, sendPerSec: 2_950 })).toEqual([]);
    expect(pacingWarnings({ ...rated, senders: 0 })).toEqual([]);
  });

  test('sends due before the end and never made are counted and named: their latency is in no percentile', () => {
    const behind = { ...unpaced, ratePerSec: 200, sendPerSec: 198, peakBacklog: 10, scheduledNotSent: 2_961, sentMessages: 1_039 };
    expect(pacingWarnings(behind)).toEqual([
      '2,961 sends due before the end were never made: the senders were behind their schedule when the time was up ' +
        '(a stalled store, or see the schedule lag); no latency of theirs is in the percentiles',
    ]);
    expect(pacingWarnings({ ...behind, scheduledNotSent: 0 })).toEqual([]);
    // Under 1% of the schedule: the tester's own jitter at the end, counted in the JSON, no line.
    expect(pacingWarnings({ ...behind, scheduledNotSent: 92, sentMessages: 11_000 })).toEqual([]);
  });

  test('--rate not reached because the server stalled or failed: the report says so, not that the senders could not keep up', () => {
    const stalled = { ...unpaced, ratePerSec: 200, sendPerSec: 34, peakBacklog: 10, slowestSendMs: 25_034, failedCalls: 0 };
    expect(pacingWarnings(stalled)).toEqual([
      '--rate was not reached: offered 200 msg/s, achieved 34 (the sends waited on the store: the slowest took 25.0 s; ' +
        'a stalled or unreachable server, not the tester)',
    ]);
    expect(pacingWarnings({ ...stalled, slowestSendMs: 900, failedCalls: 12 })).toEqual([
      '--rate was not reached: offered 200 msg/s, achieved 34 (the sends waited on the store: 12 calls failed; ' +
        'a stalled or unreachable server, not the tester)',
    ]);
  });

  // A server frozen for 10 s, shorter than --timeout: every call waited and then went through,
  // the senders caught up, and the report said nothing (only the latency maxima showed it).
  test('a store that stalled and recovered is named, though nothing failed and the rate was reached', () => {
    const caughtUp = { ...unpaced, ratePerSec: 100, sendPerSec: 100, peakBacklog: 10, failedCalls: 0 };
    expect(pacingWarnings({ ...caughtUp, slowestSendMs: 10_010, slowestReceiveMs: 9_870, slowestAckMs: 120 })).toEqual([
      'the store stalled: the slowest send took 10.0 s, the slowest receive 9.9 s; calls waited on the server ' +
        '(no call failed), so the latency maxima and the per-second series show the stall, not the tester',
    ]);
    expect(pacingWarnings({ ...caughtUp, slowestSendMs: 950, slowestReceiveMs: 300, slowestAckMs: 999 })).toEqual([]);
    // A read with --poll waits for messages by design: only beyond that is it a stall.
    expect(pacingWarnings({ ...caughtUp, slowestReceiveMs: 5_200, pollSec: 5 })).toEqual([]);
    // Said once: where --rate was not reached, that line already names the slowest send.
    const behind = { ...caughtUp, sendPerSec: 34, slowestSendMs: 25_034 };
    expect(pacingWarnings(behind)).toHaveLength(1);
  });

  test('calls in the JSON count empty receives apart from those that returned messages; the text says so', () => {
    const x = cleanRun();
    const recv = x.workers[1]!;
    // With the sender's fixture calls (3 sends, 3 receives, 3 acks): 10 receives in all.
    const calls = { send: 0, sendFailed: 0, receive: 7, receiveFailed: 1, ack: 0, ackFailed: 0 };
    const receiver: ReportedWorker = {
      ...recv,
      result: { ...recv.result!, totals: { ...recv.result!.totals, calls, emptyReceives: 6 } },
    };
    const series = [
      { second: 0, sent: 3, sendFailed: 0, received: 0, acknowledged: 0, emptyReceives: 2, errors: 0 },
      { second: 1, sent: 0, sendFailed: 0, received: 3, acknowledged: 3, emptyReceives: 4, errors: 0 },
    ];
    const r = buildReport({ ...x, workers: [x.workers[0]!, receiver], series });
    expect(r.calls).toEqual({
      send: 3,
      sendFailed: 0,
      receive: 10,
      receiveWithMessages: 3,
      receiveEmpty: 6,
      receiveFailed: 1,
      ack: 3,
      ackFailed: 0,
    });
    expect(r.peakBacklog).toBe(3);
    expect(formatReport(r)).toContain('receives    10 calls: 3 returned messages, 6 empty, 1 failed');
  });
});

describe('threads in the run line', () => {
  const runLine = (threads: { senders: number; receivers: number; shared?: number }) =>
    formatReport(buildReport({ ...cleanRun(), threads }))
      .split('\n')
      .find((l) => l.startsWith('run '))!;

  test('a thread per role, or worker threads that run both', () => {
    expect(runLine({ senders: 1, receivers: 1 })).toContain(' on 1 sender + 1 receiver thread(s), ');
    expect(runLine({ senders: 1, receivers: 1, shared: 0 })).toContain(' on 1 sender + 1 receiver thread(s), ');
    expect(runLine({ senders: 1, receivers: 1, shared: 1 })).toContain(' on 1 worker thread(s) shared by senders and receivers, ');
    expect(runLine({ senders: 2, receivers: 3, shared: 2 })).toContain(
      ' on 3 worker thread(s), 2 of them shared by senders and receivers, ',
    );
  });
});

describe('messages the tester did not delete', () => {
  /** The clean run, with seq 1's delete failed (an error) and seq 2's delete finding no row. */
  function notDeletedRun(): ReportInput {
    const x = cleanRun();
    const checker = new DeliveryChecker({ senders: 1, capacityPerSender: 3, clockBaseMs: 0 });
    checker.recordSend(0, 0, 3, 'acked');
    for (let seq = 0; seq < 3; seq++) checker.recordDelivery(0, seq, 1000 + seq, 6000 + seq, String(seq + 1));
    checker.recordAck(0, 0, true, '1');
    checker.recordAck(0, 1, false, '2');
    checker.recordAck(0, 2, false, '3', true);
    const recv = x.workers[1]!;
    const calls = { send: 0, sendFailed: 0, receive: 3, receiveFailed: 0, ack: 3, ackFailed: 1 };
    const lastAckError = 'database error P0001: no delete of 2';
    const receiver: ReportedWorker = {
      ...recv,
      result: { ...recv.result!, totals: { ...recv.result!.totals, calls, acknowledged: 1, ackFailed: 1, ackNotFound: 1, lastAckError } },
    };
    return { ...x, summary: checker.summarize({ judgeLoss: true }), workers: [x.workers[0]!, receiver] };
  }

  // Before: "ok 3", the failed delete and the missing row only in "ack failed", no word, verdict clean.
  test('they are not ok, are counted and named in the text and the JSON, with why, and the verdict is clean with a warning', () => {
    const r = buildReport(notDeletedRun());
    expect(r.counts).toMatchObject({
      ok: 1,
      notDeleted: 2,
      notDeletedAckFailed: 1,
      notDeletedNotFound: 1,
      acknowledged: 1,
      ackFailed: 1,
      ackNotFound: 1,
    });
    expect(r.calls.ackFailed).toBe(1);
    expect(r.verdict).toBe('clean');
    const warning = r.tester.warnings.find((w) => w.includes('not deleted by the tester'));
    expect(warning).toBe(
      '2 delivered message(s) were not deleted by the tester, so not counted ok: ' +
        '1 because its delete failed (last delete error: database error P0001: no delete of 2); ' +
        '1 because its delete found no row (deleted by another client)',
    );
    const text = formatReport(r);
    expect(text).toMatch(/^not deleted +2 +ack not found +1/m);
    expect(text).toContain('not deleted examples: sender 0 seq 1 (id 2); sender 0 seq 2 (id 3)');
    expect(text).toContain(`warning: ${warning}`);
    expect(text).toMatch(/verdict {5}clean\n$/);
  });

  test('a clean run says nothing of them', () => {
    const r = buildReport(cleanRun());
    expect(r.counts).toMatchObject({ notDeleted: 0, ackFailed: 0, ackNotFound: 0 });
    expect(formatReport(r)).not.toMatch(/not deleted/);
  });
});

describe('a fractional --rate, and throughput over the time that measures it', () => {
  /** The clean run with the sender's measured messages, calls and window (µs) replaced. */
  function withSends(x: ReportInput, count: number, calls: number, lastUs: number): ReportInput {
    return {
      ...x,
      workers: x.workers.map((w) =>
        w.role === 'sender' && w.result
          ? {
              ...w,
              result: {
                ...w.result,
                totals: { ...w.result.totals, measuredCount: count, measuredCalls: calls, measuredFirstUs: 0, measuredLastUs: lastUs },
              },
            }
          : w,
      ),
    };
  }

  // Before: "rate 1/s" in the run line and "send 1 msg/s" for --rate 0.5 (rounded to whole numbers).
  test('--rate 0.5 --duration 6s: the rate as given, and 3 messages over the 6 s of sending are 0.5 msg/s, sent and received', () => {
    const x = cleanRun();
    const cfg = { ...config, messagesPerSender: undefined, durationMs: 6000, ratePerSec: 0.5 };
    // Sends due at 0, 2 and 4 s; the window ends with the duration (3 calls and its end).
    const r = buildReport(withSends({ ...x, config: cfg }, 3, 4, 6_000_000));
    expect(r.config['ratePerSec']).toBe(0.5);
    expect(r.throughput.sendPerSec).toBe(0.5);
    expect(r.throughput.noRate).toEqual([]);
    const text = formatReport(r);
    expect(text).toMatch(/^run .*, rate 0\.5\/s/m);
    // Received over the receivers' time, which lasted at least as long as the sending.
    expect(r.throughput.receivePerSec).toBe(0.5);
    expect(text).toMatch(/^throughput {2}send 0\.5 msg\/s, receive 0\.5 msg\/s$/m);
    expect(r.tester.warnings.join('\n')).not.toMatch(/--rate was not reached/);
  });

  test('a --rate not reached says the offered rate as given', () => {
    const x = cleanRun();
    const cfg = { ...config, messagesPerSender: undefined, durationMs: 10_000, ratePerSec: 2.5 };
    const r = buildReport(withSends({ ...x, config: cfg }, 5, 6, 10_000_000));
    expect(r.tester.warnings.join('\n')).toMatch(/--rate was not reached: offered 2\.5 msg\/s, achieved 0\.5 /);
  });

  // Before: --messages 1 reported "sendPerSec": 56.66 (one message over its own call's latency).
  test('one send call has no rate: 0 in the JSON, named in noRate, and the text says so', () => {
    const r = buildReport(withSends(cleanRun(), 1, 1, 17_650));
    expect(r.throughput.sendPerSec).toBe(0);
    expect(r.throughput.noRate).toEqual(['send']);
    expect(formatReport(r)).toMatch(/^throughput {2}send – \(one call: no rate\), receive 1\.5 msg\/s$/m);
    // The HTML report's header says the same (before: "send 0 msg/s").
    expect(htmlReport(r)).toContain('send – (one call: no rate) · receive 1.5 msg/s');
    // A --rate run of one message is not called "not reached" on that account.
    const rated = buildReport(withSends({ ...cleanRun(), config: { ...config, ratePerSec: 10, messagesPerSender: 1 } }, 1, 1, 17_650));
    expect(rated.tester.warnings.join('\n')).not.toMatch(/--rate was not reached/);
  });
});
