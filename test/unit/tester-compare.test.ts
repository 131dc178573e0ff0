import { describe, expect, test } from 'vitest';
import { compareReports, reportProblem, type ComparableReport } from '../../src/tester/compare.js';
import { formatComparison } from '../../src/tester/compare-text.js';
import { parsePercent } from '../../src/commands/tester-compare.js';

const lat = (p99: number) => ({ count: 1000, p50: 1, p90: 2, p99, p999: p99 * 2, max: p99 * 3 });

/** A run of 10 seconds (warm-up 1 s) whose per-second receive rate is `rate` ± `jitter`. */
function run(rate: number, jitter: number, p99 = 10, extra: Partial<ComparableReport> = {}): ComparableReport {
  const series = Array.from({ length: 12 }, (_, s) => ({ second: s, sent: rate, received: rate + (s % 2 === 0 ? jitter : -jitter) }));
  return {
    verdict: 'clean',
    config: { senders: 2, receivers: 2, durationMs: 10_000, warmupMs: 1000, queue: `q${rate}` },
    throughput: { sendPerSec: rate, receivePerSec: rate },
    latency: { endToEnd: lat(p99), send: lat(p99 / 10), scheduleLag: lat(1) },
    series,
    ...extra,
  };
}

describe('tester compare', () => {
  test("every latency group has a title with its unit, the rated runs' service and schedule rows too", () => {
    const rated = (p99: number) =>
      run(1000, 1, p99, {
        latency: { endToEnd: lat(p99), endToEndService: lat(p99), send: lat(p99), sendService: lat(p99), scheduleLag: lat(1) },
      });
    const text = formatComparison(compareReports(rated(10), rated(10), 10), { file: 'a.json' }, { file: 'b.json' });
    expect(text).not.toMatch(/sendService|endToEndService|scheduleLag/);
    expect(text).toContain('send, the call alone (ms)');
  });
  test('a throughput drop beyond the threshold is a regression; within it is not', () => {
    const c = compareReports(run(1000, 10), run(850, 10), 10);
    const receive = c.rows.find((r) => r.metric === 'receivePerSec')!;
    expect(receive.changePct).toBeCloseTo(-15);
    expect(receive.regression).toBe(true);
    expect(compareReports(run(1000, 10), run(950, 10), 10).regressions).toEqual([]);
  });

  test("a p99 rise beyond the threshold is a regression; p50 and the tester's own schedule lag never are", () => {
    const base = run(1000, 10, 10);
    const next = run(1000, 10, 13, { latency: { endToEnd: { ...lat(13), p50: 5 }, send: lat(1), scheduleLag: lat(9) } });
    const c = compareReports(base, next, 10);
    expect(c.regressions.map((r) => `${r.group} ${r.metric}`)).toEqual(['endToEnd p99']);
  });

  test('noise comes from the per-second series: a steady run marks a small change, a jumpy one does not', () => {
    const steady = compareReports(run(1000, 1), run(970, 1), 10).rows.find((r) => r.metric === 'receivePerSec')!;
    expect(steady.noisePct!).toBeLessThan(1);
    expect(steady.beyondNoise).toBe(true);
    const jumpy = compareReports(run(1000, 300), run(970, 300), 10).rows.find((r) => r.metric === 'receivePerSec')!;
    expect(jumpy.noisePct!).toBeGreaterThan(3);
    expect(jumpy.beyondNoise).toBe(false);
  });

  test('warm-up seconds and the last second do not count as noise', () => {
    const base = run(1000, 0);
    const spiky = { ...base, series: base.series!.map((p) => (p.second === 0 || p.second === 11 ? { ...p, received: 5 } : p)) };
    expect(compareReports(spiky, base, 10).rows.find((r) => r.metric === 'receivePerSec')!.noisePct).toBe(0);
  });

  test('settings that differ are named; queue names are not', () => {
    const c = compareReports(run(1000, 1), run(1000, 1, 10, { config: { ...run(1, 1).config, senders: 8, queue: 'other' } }), 10);
    expect(c.configChanges).toEqual([{ key: 'senders', baseline: 2, next: 8 }]);
    const text = formatComparison(c, { file: 'a.json' }, { file: 'b.json' });
    expect(text).toContain('settings differ (not like for like): senders 2 → 8');
  });

  test('a report of another store is named first among the differences: the store, its version, its schema', () => {
    const pg = {
      backend: 'pgmq',
      serverVersion: 'PostgreSQL 15.18',
      schema: 'pgmq 1.13.0',
      node: 'v20',
      location: 'postgres://h/db',
    };
    const lite = { backend: 'sqlite', serverVersion: 'SQLite 3.53.2', schema: 'SmoothMQ', node: 'v20', location: '/tmp/x.db' };
    const c = compareReports(
      run(1000, 1, 10, { environment: pg }),
      run(1000, 1, 10, { environment: lite, config: { ...run(1, 1).config, senders: 8 } }),
      10,
    );
    expect(c.configChanges.map((d) => d.key)).toEqual(['store', 'storeVersion', 'schema', 'senders']);
    const text = formatComparison(c, { file: 'a.json' }, { file: 'b.json' });
    expect(text).toContain(
      'settings differ (not like for like): store pgmq → sqlite, store version PostgreSQL 15.18 → SQLite 3.53.2, schema pgmq 1.13.0 → SmoothMQ, senders 2 → 8',
    );
    // Same store, another pgmq: the schema alone; where the run ran (location, node) is not a setting.
    const newer = compareReports(
      run(1000, 1, 10, { environment: pg }),
      run(1000, 1, 10, { environment: { ...pg, schema: 'pgmq 1.12.0', location: 'elsewhere' } }),
      10,
    );
    expect(newer.configChanges).toEqual([{ key: 'schema', baseline: 'pgmq 1.13.0', next: 'pgmq 1.12.0' }]);
    // A report without an environment (older) says nothing about the store.
    expect(compareReports(run(1000, 1), run(1000, 1, 10, { environment: lite }), 10).configChanges).toEqual([]);
  });

  test('a role that did not run is left out; per-second percentiles give latency noise', () => {
    const a = run(1000, 1, 10, { throughput: { sendPerSec: 1000, receivePerSec: 0 } });
    const withP99 = (r: ComparableReport, v: number) => ({
      ...r,
      series: r.series!.map((p) => ({ ...p, latency: { endToEnd: { p50: 1, p99: v + (p.second % 2), max: 20 } } })),
    });
    const c = compareReports(withP99(a, 10), withP99(run(1000, 1, 10, { throughput: { sendPerSec: 1000, receivePerSec: 0 } }), 10), 10);
    expect(c.rows.filter((r) => r.group === 'throughput').map((r) => r.metric)).toEqual(['sendPerSec']);
    expect(c.rows.find((r) => r.group === 'endToEnd' && r.metric === 'p99')!.noisePct).not.toBeNull();
    expect(c.rows.find((r) => r.group === 'send' && r.metric === 'p99')!.noisePct).toBeNull();
  });

  test('a number out of range in a report is refused, naming the field', () => {
    const base = run(1000, 1);
    const cases: [ComparableReport, RegExp][] = [
      [{ ...base, throughput: { sendPerSec: -1e308, receivePerSec: 1 } }, /^throughput\.sendPerSec is -1e\+308: /],
      [{ ...base, throughput: { sendPerSec: 1, receivePerSec: 1e308 } }, /^throughput\.receivePerSec is 1e\+308: /],
      [{ ...base, latency: { endToEnd: { ...lat(10), p99: -3 } } }, /^latency\.endToEnd\.p99 is -3: /],
      [{ ...base, latency: { endToEnd: { ...lat(10), max: 1e300 } } }, /^latency\.endToEnd\.max is 1e\+300: /],
      [{ ...base, latency: { endToEnd: { ...lat(10), count: -1 } } }, /^latency\.endToEnd\.count is -1: /],
      [{ ...base, series: [{ second: 0, sent: 1, received: -5 }] }, /^series\[0\]\.received is -5: /],
      [
        { ...base, series: [{ second: 0, sent: 1, latency: { endToEnd: { p99: 1e308 } } }] },
        /^series\[0\]\.latency\.endToEnd\.p99 is 1e\+308: /,
      ],
      [{ ...base, series: [{ second: -1e308 }] }, /^series\[0\]\.second is -1e\+308: /],
      [{ ...base, config: { ...base.config, warmupMs: -1e308 } }, /^config\.warmupMs is -1e\+308: /],
      [{ ...base, config: { ...base.config, durationMs: 'long' } }, /^config\.durationMs is "long": /],
      // A newline in it printed a line of the file's own under compare's header.
      [
        { ...base, verdict: '\u001b[2Jclean\nFAKE' },
        /^verdict is "\\u001b\[2Jclean\\nFAKE": a verdict is clean, incomplete, violations, failed or interrupted/,
      ],
      [{ ...base, startedAt: 'x\ny' }, /^startedAt is "x\\ny": /],
    ];
    for (const [doc, problem] of cases) expect(reportProblem(doc), String(problem)).toMatch(problem);
    // JSON has no NaN or Infinity, but a number too large for a double parses as Infinity.
    expect(reportProblem(JSON.parse(JSON.stringify(base).replace('"sendPerSec":1000', '"sendPerSec":1e999')))).toMatch(
      /^throughput\.sendPerSec is Infinity: /,
    );
  });

  test('no line of the table is wider than 80 columns because of a number (a verdict aside), however far apart the runs', () => {
    const tiny = run(1000, 1, 10, {
      throughput: { sendPerSec: 1e-9, receivePerSec: 1e-9 },
      latency: { endToEnd: { ...lat(1e-9), p999: 1e-9, max: 1e-9 } },
    });
    const huge = run(1000, 1, 10, {
      throughput: { sendPerSec: 1e9, receivePerSec: 1e9 },
      latency: { endToEnd: { ...lat(1e9), p999: 1e9, max: 1e9 } },
    });
    expect(reportProblem(tiny)).toBeUndefined();
    expect(reportProblem(huge)).toBeUndefined();
    for (const [a, b] of [
      [tiny, huge],
      [huge, tiny],
    ] as const) {
      const text = formatComparison(compareReports(a, b, 10), { file: 'a.json' }, { file: 'b.json' });
      const table = text.split('\n').filter((l) => /^ {2}\S/.test(l));
      expect(table.length).toBeGreaterThan(3);
      // The verdict's words (a regression's) are as wide as they always are; the numbers stay within 80.
      for (const l of table) {
        expect(l.replace(/ {2}(regression \(.*\)|better|worse)$/, '').length, l).toBeLessThanOrEqual(80);
        // baseline, new, change, noise: '1,000,000,000' at the most.
        for (const cell of l.trim().split(/ {2,}/).slice(1, 5)) expect(cell.length, l).toBeLessThanOrEqual(13);
      }
    }
  });

  test('a run with no latency samples (count 0) is named, not silently left out of the latency rows', () => {
    const empty = { count: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
    const base = run(1000, 1, 10, { latency: { endToEnd: empty, send: empty, scheduleLag: lat(1) } });
    const c = compareReports(base, run(1000, 1), 10);
    expect(c.rows.some((r) => r.group === 'endToEnd')).toBe(false);
    expect(c.noSamples).toEqual({ baseline: ['endToEnd', 'send'], next: [] });
    const text = formatComparison(c, { file: 'a.json' }, { file: 'b.json' });
    expect(text).toContain('the baseline has no latency samples for end-to-end, send (rows left out)');
    expect(compareReports(run(1000, 1), run(1000, 1), 10).noSamples).toEqual({ baseline: [], next: [] });
  });

  test('what is not a report, and percentages', () => {
    expect(reportProblem([])).toMatch(/not a JSON object/);
    expect(reportProblem({ throughput: { sendPerSec: 1 } })).toMatch(/no throughput/);
    expect(reportProblem({ throughput: { sendPerSec: 1, receivePerSec: 1 }, latency: {} })).toMatch(/no config/);
    expect(reportProblem(run(1, 1))).toBeUndefined();
    expect(parsePercent('10%')).toBe(10);
    expect(parsePercent('2.5')).toBe(2.5);
    expect(() => parsePercent('-5%')).toThrow(/not a percentage/);
    expect(() => parsePercent('ten')).toThrow(/not a percentage/);
  });
});
