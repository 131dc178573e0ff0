import { describe, expect, test } from 'vitest';
import type { ProgressSnapshot } from '../../src/tester/index.js';
import {
  backlogText,
  errorsText,
  laggingLines,
  messagesLeftText,
  plainProgressLine,
  sparkline,
  timeText,
} from '../../src/ui/tester/format.js';
import { TesterProgress } from '../../src/ui/tester/LiveView.js';
import { render } from 'ink-testing-library';

const snapshot: ProgressSnapshot = {
  elapsedMs: 2500,
  phase: 'draining',
  interrupted: false,
  totalToSend: 1000,
  totals: { sent: 500, sendFailed: 0, received: 400, acknowledged: 390, emptyReceives: 3, errors: 1 },
  sendRate: 250,
  receiveRate: 200,
  series: [
    { second: 0, sent: 250, sendFailed: 0, received: 200, acknowledged: 200, emptyReceives: 0, errors: 0 },
    { second: 1, sent: 250, sendFailed: 0, received: 200, acknowledged: 190, emptyReceives: 3, errors: 1 },
  ],
  endToEnd: { p50: 1.234, p99: 12.5 },
  drain: { pending: 100, idleMs: 200, timeoutMs: 10_000 },
  violationsSoFar: 0,
  lastError: 'boom\u001b[31m',
  durationMs: undefined,
  backlog: { count: 100, trend: 'steady', max: undefined, senderWaitShare: undefined },
  errorsByKind: { connection: 1, other: 0 },
  workers: [],
  stalled: undefined,
  faults: [],
};

describe('tester progress text', () => {
  test('sparkline scales to the maximum and keeps the last values', () => {
    expect(sparkline([0, 1, 2, 4, 8], 5)).toBe('▁▂▃▅█');
    expect(sparkline([1, 2, 3], 2)).toHaveLength(2);
    expect(sparkline([], 10)).toBe('');
    expect(sparkline([0, 0], 10)).toBe('▁▁');
  });

  test('the plain line has the totals, rates, percentiles and the drain', () => {
    const line = plainProgressLine(snapshot);
    expect(line).toContain('sent 500/1,000');
    expect(line).toContain('250/s out 200/s in');
    expect(line).toContain('p50 1.23 ms  p99 12.5 ms');
    expect(line).toContain('draining: 100 to go');
    expect(line).toContain('errors 1');
  });

  test('the live view shows progress and escapes error text', () => {
    const { lastFrame } = render(<TesterProgress snapshot={snapshot} title="smq tester" />);
    const frame = lastFrame() ?? '';
    expect(frame).toContain('50% sent 500/1,000');
    expect(frame).toContain('draining: 100 to go');
    expect(frame).toContain('boom\\e[31m');
    expect(frame).not.toContain('\u001b[31mboom');
  });

  test('the live view shows each --fault that fired: when, and what came of it so far', () => {
    const s: ProgressSnapshot = {
      ...snapshot,
      faults: [
        { fault: 'terminate@5s', atMs: 5_010, outcome: 'ok', detail: 'ended 4 connection(s)' },
        { fault: 'exec:pg_ctl promote\u001b[2J@10s', atMs: 10_020, outcome: 'running', detail: 'running' },
      ],
    };
    const frame = render(<TesterProgress snapshot={s} title="smq tester" />).lastFrame() ?? '';
    expect(frame).toContain('fault terminate@5s at 5.0 s: ended 4 connection(s)');
    expect(frame).toContain('fault exec:pg_ctl promote\\e[2J@10s at 10.0 s: running');
    expect(frame).not.toContain('\u001b[2J');
    expect(plainProgressLine(s)).not.toContain('fault');
  });

  test('time of the duration and left, messages left, backlog, waits, lagging workers and errors by kind', () => {
    const s: ProgressSnapshot = {
      ...snapshot,
      phase: 'sending',
      elapsedMs: 8_340,
      durationMs: 30_000,
      totals: { ...snapshot.totals, errors: 12, sendFailed: 3 },
      backlog: { count: 48_000, trend: 'growing', max: 50_000, senderWaitShare: 0.354 },
      errorsByKind: { connection: 10, other: 2 },
      workers: [
        { role: 'receiver', indices: [0], perSec: 1200, othersPerSec: 600, silentMs: 50, lagging: false },
        { role: 'receiver', indices: [1], perSec: 0, othersPerSec: 1200, silentMs: 80, lagging: true },
        { role: 'receiver', indices: [2], perSec: 900, othersPerSec: 1200, silentMs: 3_400, lagging: true },
      ],
    };
    expect(timeText(s)).toBe('8.3 s of 30 s · 21.7 s left');
    expect(backlogText(s)).toBe('backlog 48,000 (growing) · senders waiting 35% of the time (--max-backlog 50,000)');
    expect(laggingLines(s)).toEqual([
      'receiver 1 lags: 0/s, the other receivers 1,200/s',
      'receiver 2 lags: no report for 3.4 s (blocked?)',
    ]);
    const stalled = { ...s, workers: s.workers.map((w) => ({ ...w, silentMs: w.silentMs + 3_000, lagging: true })) };
    expect(laggingLines(stalled)).toEqual(['no sender or receiver reported for 3 s: all blocked (store locked?)']);
    // PostgreSQL stopped (SIGSTOP): the threads report on, their calls wait.
    expect(laggingLines({ ...s, stalled: { quietMs: 3_460, calls: 8 } })).toEqual([
      'no call answered for 3.4 s: 8 calls waiting on the store (server stopped or unreachable?)',
    ]);
    expect(laggingLines({ ...s, stalled: { quietMs: 2_000, calls: 1 } })[0]).toMatch(/^no call answered for 2 s: 1 call waiting/);
    expect(errorsText(s)).toBe('errors 12 (10 connection, 2 other) · failed sends 3');
    expect(messagesLeftText(snapshot)).toBe('500 left');
    expect(timeText({ ...s, elapsedMs: 31_050, phase: 'draining' })).toBe('31.0 s · --duration 30 s over');
    // Stopped before its --duration (Ctrl-C, --messages reached): not "over".
    expect(timeText({ ...s, elapsedMs: 2_050, phase: 'draining' })).toBe('2.0 s · sending stopped before --duration 30 s');
    expect(timeText({ ...s, elapsedMs: 2_050, phase: 'stopping' })).toBe('2.0 s · sending stopped before --duration 30 s');
    const frame = render(<TesterProgress snapshot={s} title="smq tester" />).lastFrame() ?? '';
    expect(frame).toContain('8.3 s of 30 s · 21.7 s left · sending');
    expect(frame).toContain('receiver 1 lags: 0/s');
    expect(frame).toContain('errors 12 (10 connection, 2 other)');
    expect(frame).toContain('last error: boom');
  });
});
