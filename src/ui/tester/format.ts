// Pure text for the tester's progress display: the sparkline, the rate and percentile
// strings, and the one-line form used when stderr is not a terminal.
import type { ProgressSnapshot, WorkerRate } from '../../tester/index.js';

const BARS = '▁▂▃▄▅▆▇█';

/** The last `width` values as bars scaled to their maximum; empty input gives ''. */
export function sparkline(values: readonly number[], width: number): string {
  const shown = values.slice(-Math.max(0, width));
  const max = Math.max(0, ...shown);
  return shown
    .map((v) => {
      if (max <= 0 || !(v > 0)) return BARS[0];
      const i = Math.min(BARS.length - 1, Math.floor((v / max) * (BARS.length - 1) + 0.5));
      return BARS[i];
    })
    .join('');
}

export const count = (n: number) => Math.round(n).toLocaleString('en-US');
export const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
export const seconds = (msValue: number) => `${(msValue / 1000).toFixed(1)}s`;
/** '8.3 s', '30 s': a whole number of seconds without its decimal. */
export const secondsText = (msValue: number) => {
  const s = msValue / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
};

/** '8.3 s of 30 s · 21.7 s left' under --duration, else '8.3 s'. */
export function timeText(s: ProgressSnapshot): string {
  const elapsed = `${(Math.floor(s.elapsedMs / 100) / 10).toFixed(1)} s`;
  if (s.durationMs === undefined) return elapsed;
  if (s.elapsedMs >= s.durationMs) return `${elapsed} · --duration ${secondsText(s.durationMs)} over`;
  // Ctrl-C, or --messages reached, before the duration ran out.
  if (s.phase !== 'sending' && s.phase !== 'connecting')
    return `${elapsed} · sending stopped before --duration ${secondsText(s.durationMs)}`;
  const left = Math.max(0, s.durationMs - s.elapsedMs);
  return `${elapsed} of ${secondsText(s.durationMs)} · ${secondsText(Math.ceil(left / 100) * 100)} left`;
}

/** 'backlog 4,800 (growing) · senders waiting 35% of the time (--max-backlog 1,000)'. */
export function backlogText(s: ProgressSnapshot): string {
  const b = s.backlog;
  const wait =
    b.max !== undefined && b.senderWaitShare !== undefined
      ? ` · senders waiting ${Math.round(b.senderWaitShare * 100)}% of the time (--max-backlog ${count(b.max)})`
      : '';
  return `backlog ${count(b.count)} (${b.trend})${wait}`;
}

const workerText = (w: WorkerRate) => `${w.role} ${w.indices.join(',')}`;

/** The lagging workers, one line each: 'receiver 2 lags: 0/s, the other receivers 1,200/s'. */
export function laggingLines(s: ProgressSnapshot, most = 3): string[] {
  const lagging = s.workers.filter((w) => w.lagging);
  // Every one silent: the store (a locked SQLite file), not a worker, holds them all.
  if (s.workers.length > 1 && s.workers.every((w) => w.silentMs >= 2000)) {
    const since = Math.min(...s.workers.map((w) => w.silentMs));
    return [`no sender or receiver reported for ${secondsText(Math.floor(since / 100) * 100)}: all blocked (store locked?)`];
  }
  // The threads still report, but none of their calls has an answer: the store is stopped or cut off.
  if (s.stalled) {
    const n = s.stalled.calls;
    return [
      `no call answered for ${secondsText(Math.floor(s.stalled.quietMs / 100) * 100)}: ${count(n)} call${n === 1 ? '' : 's'} waiting on the store (server stopped or unreachable?)`,
    ];
  }
  const lines = lagging.slice(0, most).map((w) => {
    if (w.silentMs >= 2000) return `${workerText(w)} lags: no report for ${secondsText(Math.floor(w.silentMs / 100) * 100)} (blocked?)`;
    const others = w.othersPerSec === undefined ? '' : `, the other ${w.role}s ${count(w.othersPerSec)}/s`;
    return `${workerText(w)} lags: ${count(w.perSec ?? 0)}/s${others}`;
  });
  if (lagging.length > most) lines.push(`and ${lagging.length - most} more lagging`);
  return lines;
}

/** 'errors 12 (10 connection, 2 other) · failed sends 3'. */
export function errorsText(s: ProgressSnapshot): string {
  const e = s.errorsByKind;
  const kinds = e.connection + e.other > 0 ? ` (${count(e.connection)} connection, ${count(e.other)} other)` : '';
  return `errors ${count(s.totals.errors)}${kinds}${s.totals.sendFailed > 0 ? ` · failed sends ${count(s.totals.sendFailed)}` : ''}`;
}

/** The last faults that fired: 'fault terminate@5s at 5.0 s: ended 4 connection(s)' (not escaped: the view escapes). */
export function faultLines(s: ProgressSnapshot, most = 3): string[] {
  return s.faults.slice(-most).map((f) => `fault ${f.fault} at ${(f.atMs / 1000).toFixed(1)} s: ${f.detail}`);
}

/** '14,600 left' of --messages. */
export function messagesLeftText(s: ProgressSnapshot): string {
  if (s.totalToSend === undefined) return '';
  return `${count(Math.max(0, s.totalToSend - s.totals.sent))} left`;
}

export function percentText(s: ProgressSnapshot): string {
  if (s.totalToSend === undefined || s.totalToSend === 0) return '';
  return `${Math.min(100, Math.floor((s.totals.sent / s.totalToSend) * 100))}%`;
}

export function latencyText(s: ProgressSnapshot): string {
  return s.endToEnd ? `p50 ${ms(s.endToEnd.p50)} ms  p99 ${ms(s.endToEnd.p99)} ms` : 'p50 –  p99 –';
}

export function drainText(s: ProgressSnapshot): string {
  if (!s.drain) return '';
  return `draining: ${count(s.drain.pending)} to go, no new message for ${seconds(s.drain.idleMs)} of ${seconds(s.drain.timeoutMs)}`;
}

/** One line per second when stderr is not a terminal. */
export function plainProgressLine(s: ProgressSnapshot): string {
  const parts = [
    `[${seconds(s.elapsedMs)}]`,
    s.phase + (s.interrupted ? ' (interrupted)' : ''),
    `sent ${count(s.totals.sent)}${s.totalToSend !== undefined ? `/${count(s.totalToSend)}` : ''}`,
    `received ${count(s.totals.received)}`,
    `acked ${count(s.totals.acknowledged)}`,
    `${count(s.sendRate)}/s out ${count(s.receiveRate)}/s in`,
    latencyText(s),
    backlogText(s),
  ];
  if (s.durationMs !== undefined && s.phase === 'sending') {
    parts.splice(1, 0, `${secondsText(Math.ceil(Math.max(0, s.durationMs - s.elapsedMs) / 100) * 100)} left`);
  }
  if (s.totals.errors > 0 || s.totals.sendFailed > 0) parts.push(errorsText(s));
  for (const l of laggingLines(s)) parts.push(l);
  if (s.violationsSoFar > 0) parts.push(`violations so far ${count(s.violationsSoFar)}`);
  const d = drainText(s);
  if (d) parts.push(d);
  return parts.join('  ');
}
