import { describe, expect, test } from 'vitest';
import type { ProgressSnapshot } from '../../src/tester/index.js';
import { plainProgressLine, sparkline } from '../../src/ui/tester/format.js';
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
});
