// Pure text for the tester's progress display: the sparkline, the rate and percentile
// strings, and the one-line form used when stderr is not a terminal.
import type { ProgressSnapshot } from '../../tester/index.js';

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

export function percentText(s: ProgressSnapshot): string {
  if (s.totalToSend === undefined || s.totalToSend === 0) return '';
  return `${Math.min(100, Math.floor((s.totals.sent / s.totalToSend) * 100))}%`;
}

export function latencyText(s: ProgressSnapshot): string {
  return s.endToEnd ? `p50 ${ms(s.endToEnd.p50)} ms  p99 ${ms(s.endToEnd.p99)} ms` : 'p50 –  p99 –';
}

export function drainText(s: ProgressSnapshot): string {
  if (!s.drain) return '';
  return `draining: ${count(s.drain.pending)} to go, idle ${seconds(s.drain.idleMs)} of ${seconds(s.drain.timeoutMs)}`;
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
  ];
  if (s.totals.errors > 0) parts.push(`errors ${count(s.totals.errors)}`);
  if (s.violationsSoFar > 0) parts.push(`violations so far ${count(s.violationsSoFar)}`);
  const d = drainText(s);
  if (d) parts.push(d);
  return parts.join('  ');
}
