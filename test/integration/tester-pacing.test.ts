// --rate: the tester's own lateness (its schedule lag) is measured and reported apart from the
// queue's latency, in the JSON and in the text, as pgbench reports its lag under -R.
import { inject, describe, expect, test } from 'vitest';
import { ensureBuilt, runCli } from '../helpers/run-cli.js';
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
    expect(lat.send.p50).toBeGreaterThanOrEqual(lat.sendService!.p50 ?? NaN);
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

// Before: "rate 1/s" in the run line, "duration 2.1 s" (the senders stopped at their last due
// send) and "send 1 msg/s"; and one message claimed "sendPerSec": 56.66.
describe('a fractional --rate, and a throughput a single call does not claim', () => {
  test('smq tester --rate 0.5 --duration 4s: the rate as given, sending lasts 4 s, 2 messages over it are 0.5 msg/s', async () => {
    const r = await runCli(
      ['tester', '--url', inject('pgUrl'), '--senders', '1', '--receivers', '1', '--rate', '0.5', '--duration', '4s'],
      { timeoutMs: 60_000 },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^run .*, rate 0\.5\/s/m);
    // 2 sends over the measured sending time, about 4 s (0.51 when a loaded machine starts the clock late): not 1, not 56.
    expect(r.stdout).toMatch(/^throughput {2}send 0\.(49|5|50|51) msg\/s,/m);
    expect(r.stdout).toMatch(/^sent +2 /m);
    const duration = Number(/^duration {4}([\d.]+) s/m.exec(r.stdout)?.[1]);
    expect(duration).toBeGreaterThanOrEqual(4);
  }, 60_000);

  test('smq tester --messages 1: no send rate from one call', async () => {
    const r = await runCli(['tester', '--url', inject('pgUrl'), '--senders', '1', '--receivers', '1', '--messages', '1', '--json'], {
      timeoutMs: 60_000,
    });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { throughput: { sendPerSec: number; noRate: string[] } };
    expect(doc.throughput).toMatchObject({ sendPerSec: 0, noRate: expect.arrayContaining(['send']) });
  }, 60_000);
});
