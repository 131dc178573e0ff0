// Parts of the report document that are plain sums or copies (report.ts puts them together):
// the config as run, the calls by kind, the backlog's peak.
import type { TesterConfig } from './config.js';
import { listenFallbackMs } from './listen.js';
import type { WorkerTotals } from './protocol.js';
import type { SecondCounts } from './series.js';

/** Calls by kind; receives split into those that returned messages, empty ones and failed ones. */
export interface CallsReport {
  readonly send: number;
  readonly sendFailed: number;
  readonly receive: number;
  readonly receiveWithMessages: number;
  readonly receiveEmpty: number;
  readonly receiveFailed: number;
  readonly ack: number;
  readonly ackFailed: number;
}

export function callsReport(totals: readonly WorkerTotals[]): CallsReport {
  const of = (k: keyof WorkerTotals['calls']) => totals.reduce((a, t) => a + t.calls[k], 0);
  const receive = of('receive');
  const receiveFailed = of('receiveFailed');
  const receiveEmpty = totals.reduce((a, t) => a + t.emptyReceives, 0);
  return {
    send: of('send'),
    sendFailed: of('sendFailed'),
    receive,
    receiveWithMessages: Math.max(0, receive - receiveFailed - receiveEmpty),
    receiveEmpty,
    receiveFailed,
    ack: of('ack'),
    ackFailed: of('ackFailed'),
  };
}

/** The largest backlog (sent − received) at the end of a second of the series. */
export function peakBacklog(series: readonly Pick<SecondCounts, 'sent' | 'received'>[]): number {
  let backlog = 0;
  let peak = 0;
  for (const p of series) {
    backlog += p.sent - p.received;
    if (backlog > peak) peak = backlog;
  }
  return peak;
}

/** The config as the report shows it. */
export function configReport(
  c: TesterConfig,
  x: {
    /** shared: worker threads that run a sender thread's loops and a receiver thread's (pool.ts planHosts). */
    readonly threads: { readonly senders: number; readonly receivers: number; readonly shared?: number };
    readonly queue: string;
    readonly outageTimeoutMs: number;
  },
): Readonly<Record<string, unknown>> {
  return {
    senders: c.senders,
    receivers: c.receivers,
    // Worker threads actually used by each role (see threadsPerRole).
    threads: x.threads,
    messagesPerSender: c.messagesPerSender ?? null,
    durationMs: c.durationMs ?? null,
    sizeBytes: c.sizeBytes,
    batch: c.batch,
    vtSec: c.vtSec,
    ratePerSec: c.ratePerSec,
    maxBacklog: c.maxBacklog ?? null,
    warmupMs: c.warmupMs,
    queue: x.queue,
    keep: c.keep,
    ack: c.ack,
    drainTimeoutMs: c.drainTimeoutMs,
    outageTimeoutMs: x.outageTimeoutMs,
    isolation: c.isolation ?? null,
    dequeue: c.dequeue,
    naivePauseMs: c.naivePauseMs ?? 0,
    groups: c.groups ?? 0,
    read: c.read ?? 'plain',
    pollSec: c.listen ? null : (c.pollSec ?? (c.read === 'poll' ? 1 : null)),
    listen: c.listen ? { throttleMs: c.listenThrottleMs ?? 0, fallbackMs: listenFallbackMs(c) } : null,
    ackDelayMs: c.ackDelayMs ?? 0,
    fanout: c.fanout ?? null,
    maxP99Ms: c.maxP99Ms ?? null,
    allowForeign: c.allowForeign === true,
    settleMs: c.settleMs ?? null,
    faults: (c.faultSpecs ?? []).map((f) => f.text),
  };
}
