// --rate: the tester's own lateness (its schedule lag) is measured and reported apart from the
// queue's latency, in the JSON and in the text, as pgbench reports its lag under -R.
import { inject, describe, expect, test } from 'vitest';
import { ensureBuilt } from '../helpers/run-cli.js';
import { baseConfig, loadTester } from '../helpers/tester-dist.js';

ensureBuilt();

describe('schedule lag with --rate', () => {
  test('1 sender at 200/s: every send has its lag recorded; the text names it', async () => {
    const { TesterRun, formatReport } = await loadTester();
    const report = await new TesterRun(
      baseConfig(
        { kind: 'pgmq', url: inject('pgUrl') },
        { senders: 1, receivers: 1, batch: 1, messagesPerSender: undefined, durationMs: 2000, ratePerSec: 200 },
      ),
    ).run();
    const lat = report.latency;
    expect(report.latencyFrom).toBe('intended');
    expect(lat.scheduleLag).toBeDefined();
    expect(lat.scheduleLag!.count).toBe(lat.send.count);
    expect(lat.scheduleLag!.count).toBeGreaterThan(300);
    // The corrected send latency is the lag plus the service time, per send.
    expect(lat.send.p50).toBeGreaterThanOrEqual(lat.sendService!.p50);
    expect(lat.scheduleLag!.min).toBeGreaterThanOrEqual(0);
    const text = formatReport(report);
    expect(text).toMatch(/^ {2}schedule lag +[\d.]+ +[\d.]+/m);
    expect(text).toContain('"schedule lag": how late the tester itself started each send');
  }, 30_000);

  test('without --rate there is no schedule and no lag', async () => {
    const { TesterRun } = await loadTester();
    const report = await new TesterRun(baseConfig({ kind: 'pgmq', url: inject('pgUrl') }, { messagesPerSender: 50 })).run();
    expect(report.latency.scheduleLag).toBeUndefined();
  }, 30_000);
});
