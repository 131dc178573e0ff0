import { describe, expect, test } from 'vitest';
import { SmqError } from '../../src/errors.js';
import { parseDuration, parseMilliseconds } from '../../src/text/duration.js';

function failure(fn: () => unknown): SmqError {
  try {
    fn();
  } catch (e) {
    if (e instanceof SmqError) return e;
    throw e;
  }
  throw new Error('no error thrown');
}

describe('parseDuration: the one parser for every duration flag', () => {
  test.each([
    ['500ms', 500],
    ['2s', 2000],
    ['1.5s', 1500],
    ['1m', 60_000],
    ['1.5m', 90_000],
    ['2h', 7_200_000],
    ['1m30s', 90_000],
    ['1h2m3s4ms', 3_723_004],
    ['.5s', 500],
    ['0', 0],
    ['2', 2000],
    ['0.25', 250],
    [' 3s ', 3000],
  ])('%j is %d ms', (text, ms) => {
    expect(parseDuration('d', text)).toBe(ms);
  });

  test('in seconds: a value given in seconds comes back exactly, never rounded', () => {
    const s = { unit: 's' } as const;
    expect(parseDuration('vt', '1.1', s)).toBe(1.1);
    expect(parseDuration('vt', '1.1s', s)).toBe(1.1);
    expect(parseDuration('vt', '30', s)).toBe(30);
    expect(parseDuration('vt', '1.5', s)).toBe(1.5);
    expect(parseDuration('vt', '500ms', s)).toBe(0.5);
    expect(parseDuration('vt', '1.1m', s)).toBe(66);
    expect(parseDuration('vt', '2h', s)).toBe(7200);
    // Large values pass through unchanged: the store says what it can keep.
    expect(parseDuration('vt', '99999999999', s)).toBe(99_999_999_999);
    expect(parseDuration('vt', 30, s)).toBe(30);
  });

  test('a bare number counts in milliseconds only where the flag says so', () => {
    expect(parseDuration('naive-pause-ms', '50', { bare: 'ms' })).toBe(50);
    expect(parseDuration('naive-pause-ms', '0.5', { bare: 'ms' })).toBe(0.5);
    expect(parseDuration('naive-pause-ms', '1s', { bare: 'ms' })).toBe(1000);
    expect(parseDuration('max-p99', '0.001ms', { bare: null })).toBe(0.001);
    const e = failure(() => parseDuration('max-p99', '50', { bare: null }));
    expect(e.line()).toBe('--max-p99 50 has no unit: write 50ms or 50s');
    // Zero is zero in any unit: it needs none.
    expect(parseDuration('throttle', '0', { bare: null })).toBe(0);
    expect(parseDuration('throttle', ' 0.0 ', { bare: null })).toBe(0);
    expect(failure(() => parseDuration('throttle', '0.5', { bare: null })).line()).toBe('--throttle 0.5 has no unit: write 0.5ms or 0.5s');
    expect(failure(() => parseDuration('max-p99', 'soon', { bare: null })).line()).toBe(
      'invalid --max-p99 "soon": give a duration such as 30s, 1.5s, 500ms or 2m (a unit is required)',
    );
  });

  test('parseMilliseconds rounds to whole milliseconds (timers, deadlines)', () => {
    expect(parseMilliseconds('timeout', '1.0004s')).toBe(1000);
    expect(parseMilliseconds('timeout', '10')).toBe(10_000);
  });

  test.each(['', 'abc', '-5', '5x', '5 s', '1e3', '0x10', 'Infinity', 'NaN', '1.', 's', '5ss', '1m-30s', '10s5', '١٢s'])(
    'refuses %j with one usage line naming the flag and what to write',
    (text) => {
      const e = failure(() => parseDuration('vt', text, { unit: 's' }));
      expect(e.exitCode).toBe(2);
      expect(e.line()).toBe(
        `invalid --vt ${JSON.stringify(text.trim())}: give a duration such as 30s, 2m or 1m30s (a bare number is seconds)`,
      );
      expect(e.line()).not.toContain('\n');
    },
  );

  test.each(['1m1m', '30s30s', '1s1m', '500ms2s', '1h1h1h', '2s1h'])(
    '%j: a unit repeated or out of order is refused, not summed',
    (text) => {
      const e = failure(() => parseDuration('duration', text));
      expect(e.exitCode).toBe(2);
      expect(e.line()).toBe(`invalid --duration ${JSON.stringify(text)}: each unit at most once, largest first (1h30m, 2m5s, 1s500ms)`);
    },
  );

  test('given twice, or too large to hold', () => {
    expect(failure(() => parseDuration('delay', ['1s', '2s'])).line()).toBe('--delay given more than once: pass it once');
    const huge = `${'9'.repeat(400)}h`;
    const e = failure(() => parseDuration('duration', huge));
    expect(e.exitCode).toBe(2);
    expect(e.line()).toMatch(/^--duration "9+h" is too large: give a shorter duration$/);
  });
});
