// `smq tester compare` as a CI job uses it: two real runs saved with --json, then the built
// binary compares them; a doctored copy stands for a slower build.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureBuilt, runCli } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'smq-compare-'));
const file = (name: string) => join(dir, name);

async function savedRun(name: string): Promise<void> {
  const r = await runCli(['tester', '--senders', '2', '--receivers', '2', '--duration', '4s', '--rate', '400', '--json'], {
    timeoutMs: 60_000,
  });
  expect(r.code).toBe(0);
  writeFileSync(file(name), r.stdout);
}

beforeAll(async () => {
  ensureBuilt();
  await savedRun('a.json');
  await savedRun('b.json');
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('smq tester compare', () => {
  test('a run saved with --json carries per-second percentiles of end-to-end and of each call in its series', () => {
    const doc = JSON.parse(readFileSync(file('a.json'), 'utf8'));
    const withLatency = doc.series.filter((p: { latency?: unknown }) => p.latency);
    expect(withLatency.length).toBeGreaterThanOrEqual(3);
    for (const kind of ['endToEnd', 'send', 'receive', 'ack']) {
      const seconds = withLatency.filter((p: { latency: Record<string, unknown> }) => p.latency[kind]);
      expect(seconds.length, kind).toBeGreaterThanOrEqual(3);
      for (const p of seconds) {
        const { p50, p99, max } = p.latency[kind];
        expect(p50).toBeGreaterThan(0);
        expect(p99).toBeGreaterThanOrEqual(p50);
        expect(max).toBeGreaterThanOrEqual(p99);
      }
    }
    // Every send of the run is in some second's send histogram: the seconds' counts add up.
    const sendSeconds = withLatency.filter((p: { latency: Record<string, unknown> }) => p.latency['send']).length;
    expect(sendSeconds).toBeGreaterThanOrEqual(doc.series.filter((p: { sent: number }) => p.sent > 0).length);
  });

  test('two runs of the same settings: every histogram side by side, noise estimated, exit 0 at a loose threshold', async () => {
    const r = await runCli(['tester', 'compare', file('a.json'), file('b.json'), '--max-regression', '1000%']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const heading of ['throughput (msg/s)', 'end-to-end (ms)', 'send (ms)', 'receive (ms)', 'ack (ms)', 'schedule lag (ms)']) {
      expect(r.stdout).toContain(heading);
    }
    expect(r.stdout).toMatch(/^ {2}receive +[\d,.]+ +[\d,.]+ +[+-]?\d+\.\d% +±\d+\.\d%/m);
    expect(r.stdout).toMatch(/^ {2}p99 +[\d,.]+ +[\d,.]+ +[+-]?\d+\.\d% +±\d+\.\d%/m); // end-to-end p99 from the per-second series
    expect(r.stdout).toContain('no regression beyond 1000%');
    expect(r.stdout).not.toContain('settings differ');
  });

  test('a slower run: exit 5 and the regressions named; --json says the same', async () => {
    const doc = JSON.parse(readFileSync(file('a.json'), 'utf8'));
    doc.throughput.receivePerSec *= 0.5;
    doc.latency.endToEnd.p99 *= 3;
    writeFileSync(file('slow.json'), JSON.stringify(doc));
    const r = await runCli(['tester', 'compare', file('a.json'), file('slow.json')]);
    expect(r.code).toBe(5);
    expect(r.stdout).toMatch(/2 regressions beyond 10%: throughput receive -50\.0%, end-to-end p99 \+200\.0%/);
    const j = await runCli(['tester', 'compare', file('a.json'), file('slow.json'), '--json']);
    expect(j.code).toBe(5);
    const out = JSON.parse(j.stdout);
    expect(out.regressions.map((x: { group: string; metric: string }) => `${x.group} ${x.metric}`)).toEqual([
      'throughput receivePerSec',
      'endToEnd p99',
    ]);
  });

  // The tester's own --baseline (for --html) is hidden from this help, and hid the positional of the same name.
  test('its help lists both operands', async () => {
    const help = (await runCli(['tester', 'compare', '--help'])).stdout;
    expect(help).toMatch(/^ {2}baseline +the earlier run/m);
    expect(help).toMatch(/^ {2}new +the run to judge/m);
  });

  test('bad input: one line, exit 2', async () => {
    writeFileSync(file('not-json.json'), 'verdict clean\n');
    writeFileSync(file('other.json'), '{"queues": []}');
    const cases: [string[], RegExp][] = [
      [[file('missing.json'), file('a.json')], /^smq: cannot read .*missing\.json: no such file \(ENOENT\): give the file/],
      [[file('not-json.json'), file('a.json')], /^smq: .*not-json\.json is not JSON/],
      [[file('a.json'), file('other.json')], /^smq: .*other\.json is not a tester report: it has no throughput/],
      [[file('a.json'), file('b.json'), '--max-regression', 'lots'], /^smq: --max-regression "lots" is not a percentage: write e\.g\. 10%/],
      // The subcommand's own help, not the tester's.
      [[file('a.json')], /^smq: missing <new>: smq tester compare <baseline> <new> \[options\]: see 'smq tester compare --help'$/m],
    ];
    for (const [args, line] of cases) {
      const r = await runCli(['tester', 'compare', ...args]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(line);
      expect(r.stderr).not.toMatch(/ {4}at /);
    }
  });

  /** compare on a bad baseline: one line on stderr, exit 2, and soon (reading nothing it need not). */
  async function refused(path: string): Promise<string> {
    const started = Date.now();
    const r = await runCli(['tester', 'compare', path, file('a.json')], { timeoutMs: 10_000 });
    expect(Date.now() - started, 'answered at once').toBeLessThan(8_000);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    return r.stderr;
  }

  test('a FIFO or a directory is refused at once, not waited on', async () => {
    const fifo = file('fifo.json');
    execFileSync('mkfifo', [fifo]);
    expect(await refused(fifo)).toMatch(/^smq: .*fifo\.json is a FIFO, not a file: give the file/);
    mkdirSync(file('dir.json'));
    expect(await refused(file('dir.json'))).toMatch(/^smq: .*dir\.json is a directory, not a file: give the file/);
  });

  test('a file larger than a report can be is refused by its size, before it is read', async () => {
    const huge = file('huge.json');
    writeFileSync(huge, '');
    truncateSync(huge, 1024 ** 3); // sparse: 1 GiB that takes no disk
    expect(await refused(huge)).toMatch(/^smq: .*huge\.json is 1\.0 GB: a report is at most 64 MiB$/m);
  });

  test('a device (/dev/zero, endless) is refused at once', async () => {
    expect(await refused('/dev/zero')).toMatch(/^smq: \/dev\/zero is a character device, not a file: give the file/);
  });
});
