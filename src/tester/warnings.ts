// The warning policy of the report: when the tester itself may have set the pace, when a
// --max-backlog wait gave up, what happened to others' messages, what was never drained.
// Pure: facts in, lines out (report.ts puts them after the read-back's own warnings).
import type { BackendKind } from '../backends/types.js';
import type { WorkerRole } from './protocol.js';

/** A worker's event loop delayed this much (p99) means the tester, not the queue, set the pace. */
export const LAG_WARN_MS = 50;
/** Share of all cores the tester process may use before it is probably the bottleneck. */
export const CPU_WARN_SHARE = 0.9;

export interface WarningFacts {
  readonly targetKind: BackendKind;
  /** Every worker that sent its result. */
  readonly workers: readonly { readonly role: WorkerRole; readonly indices: readonly number[]; readonly eventLoopP99Ms: number }[];
  /** CPU the tester process used, as a share of all cores (cpuShare). */
  readonly cpuShare: number;
  readonly cores: number;
  /** --max-backlog: waits that went on with nothing received for backlogStuckMs. */
  readonly backlogStuck: number;
  readonly backlogStuckMs: number;
  /** Distinct messages without this run's id received, how often, and how many could not be handed back. */
  readonly foreignSeen: number;
  readonly foreignDeliveries: number;
  readonly foreignNotReturned: number;
  /** Rows without this run's id found by the read-back after the run. */
  readonly foreignInQueue: number;
  /** Acknowledged sends never received (not judged as lost). */
  readonly notDrained: number;
  readonly receivers: number;
  /** Delivered messages the tester never deleted, and of them those whose delete failed, and found no row. */
  readonly notDeleted?: { readonly all: number; readonly ackFailed: number; readonly notFound: number };
  /** The last error of a delete (or archive) call. */
  readonly lastAckError?: string | undefined;
}

/** CPU used over the run, as a share of all cores. */
export function cpuShare(cpu: NodeJS.CpuUsage, durationMs: number, cores: number): number {
  return (cpu.user + cpu.system) / 1000 / Math.max(1, durationMs) / cores;
}

export const round2 = (n: number) => Math.round(n * 100) / 100;

export function testerWarnings(f: WarningFacts): string[] {
  const warnings: string[] = [];
  // On SQLite every call (lock waits included) runs synchronously on the worker's own
  // thread, so its event-loop delay measures SQLite, not the tester: only CPU counts there.
  const lagging = f.targetKind === 'sqlite' ? [] : f.workers.filter((w) => w.eventLoopP99Ms > LAG_WARN_MS);
  if (lagging.length > 0) {
    const worst = lagging.reduce((a, b) => (b.eventLoopP99Ms > a.eventLoopP99Ms ? b : a));
    warnings.push(
      `the tester may be the bottleneck: ${lagging.length} worker(s) had event-loop delays over ${LAG_WARN_MS} ms at p99 ` +
        `(worst: ${worst.role} ${worst.indices.join(',')}, ${round2(worst.eventLoopP99Ms)} ms)`,
    );
  }
  if (f.cpuShare >= CPU_WARN_SHARE) {
    warnings.push(
      `the tester may be the bottleneck: it used ${Math.round(f.cpuShare * 100)}% of ${f.cores} cores` +
        (f.targetKind === 'sqlite' ? ' (including SQLite, which runs in-process)' : ''),
    );
  }
  if (f.backlogStuck > 0) {
    warnings.push(
      `${f.backlogStuck} time(s) a sender waiting under --max-backlog went on anyway: nothing was received for ` +
        `${f.backlogStuckMs / 1000} s (messages lost, or receivers that cannot receive)`,
    );
  }
  if (f.foreignSeen > 0) {
    warnings.push(
      `${f.foreignSeen} message(s) without this run's id were received ${f.foreignDeliveries} time(s) and handed back ` +
        `(never deleted; each receive raised a read count)` +
        (f.foreignNotReturned > 0 ? `; ${f.foreignNotReturned} could not be handed back and are visible again when their lease ends` : ''),
    );
  } else if (f.foreignInQueue > 0) {
    warnings.push(`${f.foreignInQueue} message(s) without this run's id are in the queue: left untouched (never received)`);
  }
  if (f.notDrained > 0 && f.receivers > 0) {
    warnings.push(`${f.notDrained} acknowledged send(s) were not received before the run ended (not judged as lost)`);
  }
  const nd = f.notDeleted;
  if (nd && nd.all > 0) warnings.push(notDeletedWarning(nd, f.lastAckError));
  return warnings;
}

/**
 * Delivered messages the tester could not delete are not ok, and not the queue's violation
 * (it lost and duplicated nothing): a run with them is clean only with this line, which says why.
 */
function notDeletedWarning(nd: NonNullable<WarningFacts['notDeleted']>, lastAckError: string | undefined): string {
  const their = (n: number) => (n === 1 ? 'its' : 'their');
  const never = nd.all - nd.ackFailed - nd.notFound;
  const why = [
    nd.ackFailed > 0
      ? `${nd.ackFailed} because ${their(nd.ackFailed)} delete failed` + (lastAckError ? ` (last delete error: ${lastAckError})` : '')
      : undefined,
    nd.notFound > 0 ? `${nd.notFound} because ${their(nd.notFound)} delete found no row (deleted by another client)` : undefined,
    never > 0 ? `${never} never acknowledged (the receivers stopped before deleting ${never === 1 ? 'it' : 'them'})` : undefined,
  ].filter((x) => x !== undefined);
  return `${nd.all} delivered message(s) were not deleted by the tester, so not counted ok: ${why.join('; ')}`;
}

/** Unpaced senders that piled up this many messages make end-to-end latency mostly waiting. */
export const QUEUEING_BACKLOG = 1000;
/** End-to-end p50 at least this many times a send and a receive call is mostly waiting. */
export const QUEUEING_FACTOR = 4;
/** --rate counts as reached from this share of it on. */
export const RATE_REACHED_SHARE = 0.9;

export interface PacingFacts {
  /** --rate (0: none) and --max-backlog. */
  readonly ratePerSec: number;
  readonly maxBacklog: number | undefined;
  readonly senders: number;
  readonly receivers: number;
  /** Achieved send throughput after the warm-up (msg/s); undefined: not measured (one call). */
  readonly sendPerSec: number | undefined;
  /** The largest backlog (sent − received) at the end of a second. */
  readonly peakBacklog: number;
  /** End-to-end p50 (undefined: nothing received), and a send's plus a receive's p50 (ms). */
  readonly endToEndP50Ms: number | undefined;
  readonly callsP50Ms: number;
  /** The slowest send call (service time, ms) and the calls that failed: a stalled store, not the tester. */
  readonly slowestSendMs?: number;
  /** The slowest receive and acknowledgement calls (ms). */
  readonly slowestReceiveMs?: number;
  readonly slowestAckMs?: number;
  /** --poll: a receive waits this long for messages by design (s). */
  readonly pollSec?: number | undefined;
  readonly failedCalls?: number;
  /** Messages due before the end (--rate, --duration) that were never sent, and the messages sent (acknowledged or not). */
  readonly scheduledNotSent?: number;
  readonly sentMessages?: number;
}

/** Sends never made worth a warning: this share of all that were due. */
const NOT_SENT_SHARE = 0.01;
/** A send this slow, or any failed call, means the store held the senders back. */
const STALLED_SEND_MS = 1000;

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const msText = (n: number) => (n >= 100 ? int(n) : String(round2(n)));
/** A measured rate (msg/s): whole from 10 on, else to 2 decimals (0.5, not 1). */
export const rateText = (n: number) => (n >= 10 ? int(n) : String(round2(n)));
/** A --rate as given (0.5, 1,000). */
export const givenRateText = (n: number) => (Number.isInteger(n) ? int(n) : String(n));

/** What the senders' pace did to the figures: queueing in end-to-end latency, a --rate not reached. */
export function pacingWarnings(f: PacingFacts): string[] {
  const out: string[] = [];
  const unpaced = f.ratePerSec <= 0 && f.maxBacklog === undefined;
  if (
    unpaced &&
    f.senders > 0 &&
    f.receivers > 0 &&
    f.peakBacklog >= QUEUEING_BACKLOG &&
    f.endToEndP50Ms !== undefined &&
    f.endToEndP50Ms > QUEUEING_FACTOR * f.callsP50Ms
  ) {
    out.push(
      `senders were unpaced and the backlog reached ${int(f.peakBacklog)}: end-to-end latency is mostly time spent waiting in the queue ` +
        `(p50 ${msText(f.endToEndP50Ms)} ms, of which a send and a receive call take ${msText(f.callsP50Ms)} ms); ` +
        `use --rate or --max-backlog to measure the queue's own latency`,
    );
  }
  if (f.ratePerSec > 0 && f.senders > 0 && f.sendPerSec !== undefined && f.sendPerSec < f.ratePerSec * RATE_REACHED_SHARE) {
    const slowest = f.slowestSendMs ?? 0;
    const failed = f.failedCalls ?? 0;
    const store = [
      slowest >= STALLED_SEND_MS ? `the slowest took ${(slowest / 1000).toFixed(1)} s` : undefined,
      failed > 0 ? `${int(failed)} calls failed` : undefined,
    ].filter((x) => x !== undefined);
    const why =
      store.length > 0
        ? `the sends waited on the store: ${store.join(', ')}; a stalled or unreachable server, not the tester`
        : 'the senders could not keep up; see the schedule lag';
    out.push(`--rate was not reached: offered ${givenRateText(f.ratePerSec)} msg/s, achieved ${rateText(f.sendPerSec)} (${why})`);
  }
  // A stall the run came through (a server frozen for less than --timeout): nothing failed and
  // the senders caught up, so only the maxima would show it. Said once: a --rate not reached says it above.
  const rateLine = out.some((l) => l.startsWith('--rate was not reached'));
  const pollMs = (f.pollSec ?? 0) * 1000;
  const slow = (
    [
      ['send', f.slowestSendMs, STALLED_SEND_MS],
      ['receive', f.slowestReceiveMs, STALLED_SEND_MS + pollMs],
      ['acknowledgement', f.slowestAckMs, STALLED_SEND_MS],
    ] as const
  ).filter(([, ms, bar]) => ms !== undefined && ms >= bar);
  if (slow.length > 0 && !rateLine) {
    const which = slow.map(([what, ms], i) => `the slowest ${what}${i === 0 ? ' took' : ''} ${(ms! / 1000).toFixed(1)} s`);
    const failed = f.failedCalls ?? 0;
    out.push(
      `the store stalled: ${which.join(', ')}; calls waited on the server ` +
        `(${failed > 0 ? `${int(failed)} calls failed` : 'no call failed'}), so the latency maxima and the per-second series show the stall, not the tester`,
    );
  }
  // A few sends behind at the end is the tester's own jitter; 1% of the schedule is worth a line.
  const notSent = f.scheduledNotSent ?? 0;
  const sent = f.sentMessages ?? 0;
  if (notSent > 0 && notSent >= NOT_SENT_SHARE * (notSent + sent)) {
    out.push(
      `${int(notSent)} sends due before the end were never made: the senders were behind their schedule when the time was ` +
        `up (a stalled store, or see the schedule lag); no latency of theirs is in the percentiles`,
    );
  }
  return out;
}
