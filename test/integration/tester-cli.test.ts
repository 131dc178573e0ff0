// `smq tester` as a user runs it: the built binary, its streams and its exit codes.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { BIN, REPO, cleanEnv, ensureBuilt, runCli } from '../helpers/run-cli.js';

beforeAll(() => ensureBuilt());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a report is read field by field, as jq would
const parse = (stdout: string) => JSON.parse(stdout) as Record<string, any>;

describe('smq tester', () => {
  test('with no connection it runs on an embedded SQLite file; --json prints one document with the documented fields', async () => {
    const r = await runCli(['tester', '--senders', '2', '--receivers', '2', '--messages', '200', '--batch', '10', '--json'], {
      timeoutMs: 60_000,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/embedded SQLite file in .*smq-tester-/);
    const doc = parse(r.stdout); // the whole of stdout is one JSON document
    expect(doc['verdict']).toBe('clean');
    expect(Object.keys(doc['counts'])).toEqual(
      expect.arrayContaining([
        'sent',
        'received',
        'acknowledged',
        'ok',
        'lost',
        'doubleDequeued',
        'redelivered',
        'resurrected',
        'unexpected',
        'uncertain',
      ]),
    );
    expect(doc['counts']).toMatchObject({ sent: 400, received: 400, acknowledged: 400, ok: 400 });
    expect(Object.keys(doc['throughput'])).toEqual(expect.arrayContaining(['sendPerSec', 'receivePerSec']));
    for (const h of ['endToEnd', 'send', 'receive', 'ack']) {
      expect(Object.keys(doc['latency'][h])).toEqual(expect.arrayContaining(['p50', 'p90', 'p99', 'p999', 'max']));
    }
    expect(Array.isArray(doc['series'])).toBe(true);
    expect(doc['config']).toMatchObject({ senders: 2, receivers: 2, messagesPerSender: 200, batch: 10 });
    expect(doc['environment']).toMatchObject({ backend: 'sqlite', embedded: true, dequeue: 'safe' });
    // Without a terminal, progress is one plain line per second on stderr.
    expect(r.stderr).toMatch(/^\[\d+\.\ds\] +\w+ +sent [\d,]+\/400/m);
  });

  test('the text report on stdout; violations found exit 4', async () => {
    const r = await runCli(
      // A wide select-to-update window, and each batch held for longer than that before its
      // acknowledgement: a receiver that chose the same messages updates them while the first
      // still holds them (without the hold, only updates a millisecond apart show the race).
      [
        'tester',
        '--senders',
        '2',
        '--receivers',
        '4',
        '--messages',
        '200',
        '--batch',
        '10',
        '--dequeue',
        'naive',
        '--naive-pause-ms',
        '20',
        '--ack-delay',
        '50ms',
      ],
      { timeoutMs: 60_000 },
    );
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/latency \(ms\) +p50 +p90 +p99 +p99\.9 +max/);
    expect(r.stdout).toMatch(/double-dequeue examples: sender \d+ seq \d+ \(id \d+\)/);
    expect(r.stdout).toMatch(/verdict +VIOLATIONS/);
  });

  test('--max-p99 exceeded exits 5 with a clean verdict', async () => {
    const r = await runCli(['tester', '--messages', '50', '--max-p99', '0.001ms', '--json'], { timeoutMs: 60_000 });
    expect(r.code).toBe(5);
    const doc = parse(r.stdout);
    expect(doc['verdict']).toBe('clean');
    expect(doc['maxP99']).toMatchObject({ limitMs: 0.001, exceeded: true });
  });

  test('--max-p99 with nothing measured (a --messages run that ends within its --warmup) exits 5: not measured, missed', async () => {
    const r = await runCli(['tester', '--warmup', '5s', '--messages', '100', '--max-p99', '1ms', '--json'], { timeoutMs: 60_000 });
    expect(r.code).toBe(5);
    const doc = parse(r.stdout);
    expect(doc['verdict']).toBe('clean');
    expect(doc['latency']['endToEnd']['count']).toBe(0);
    expect(doc['maxP99']).toMatchObject({ limitMs: 1, valueMs: null, samples: 0, missed: true });
    expect(doc['maxP99']['notMeasured']).toMatch(/warm-up/);
  });

  test('--warmup as long as --duration or longer is refused: one line, exit 2, no temporary folder left', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'smq-warmup-'));
    try {
      for (const [warmup, duration] of [
        ['5s', '2s'],
        ['2s', '2s'],
        ['1h', '2s'],
      ]) {
        const r = await runCli(['tester', '--warmup', warmup!, '--duration', duration!, '--max-p99', '1ms', '--json'], {
          env: { TMPDIR: tmp },
        });
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).toMatch(/--warmup .*--duration/);
        expect(readdirSync(tmp)).toEqual([]);
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test('a --vt PostgreSQL cannot hold and a --drain-timeout of 0 are refused before anything runs, on pgmq too', async () => {
    // Before, pgmq took --vt 3000000000, sent, and failed every receive (exit 1); --drain-timeout 0
    // stopped the drain at once and judged the run clean with 40% of it unchecked.
    const url = inject('pgUrl');
    for (const [args, says] of [
      [['--vt', '3000000000'], /^smq: --vt is at most 2147483647 s/],
      [['--vt', '99999999999s'], /^smq: --vt is at most 2147483647 s/],
      [['--drain-timeout', '0'], /^smq: --drain-timeout must be more than 0/],
    ] as const) {
      const r = await runCli(['tester', '--url', url, '--messages', '10', '--queue', 'never_made_vt', ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(says);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    const made = await runCli(['queues', '--url', url, '--json']);
    expect(made.stdout).not.toContain('never_made_vt');
  });

  test('--output ndjson prints the report as one JSON document on one line', async () => {
    const r = await runCli(['tester', '--messages', '50', '--output', 'ndjson'], { timeoutMs: 60_000 });
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('\n')).toBe(true);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(parse(lines[0]!)).toMatchObject({ verdict: 'clean', counts: { sent: 100, ok: 100 } });
    // --json with --output ndjson contradict each other, as in every command.
    const both = await runCli(['tester', '--messages', '5', '--json', '--output', 'ndjson']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/contradict/);
  });

  test('--help lists the exit codes', async () => {
    const r = await runCli(['tester', '--help']);
    expect(r.code).toBe(0);
    for (const line of [
      /^ +0 +clean/m,
      /^ +1 +could not run/m,
      /^ +2 +bad usage/m,
      /^ +4 +violations found/m,
      /^ +5 +--max-p99 missed/m,
      /^ +130 +interrupted/m,
    ]) {
      expect(r.stdout).toMatch(line);
    }
  });

  test.each([
    [['tester', '--senders', '-1']],
    [['tester', '--messages', '10', '--duration', '5s']],
    [['tester', '--duration', 'soon']],
    // Past what a timer holds (about 24 days): it would have run for ever.
    [['tester', '--duration', '99999999999h']],
    [['tester', '--outage-timeout', '30d']],
    [['tester', '--ack-delay', '9999999h']],
    [['tester', '--ack', 'archive']],
    [['tester', '--senders', '0']],
    [['tester', '--max-backlog', '0']],
    [['tester', '--max-backlog', 'lots']],
    [['tester', '--max-backlog', '10', '--receivers', '0']],
    [['tester', '--max-backlog', '4', '--batch', '10']],
    [['tester', '--settle', 'soon']],
    [['tester', '--settle', '2h']],
    [['tester', '--settle']],
    [['tester', '--senders', '0', '--queue', 'q']],
    [['tester', '--run-id', 'a b']],
    [['tester', '--vt', '1.5']],
    [['tester', '--vt', '500ms']],
    [['tester', '--vt', 'soon']],
    [['tester', '--max-p99', '50']],
    [['tester', '--naive-pause-ms', 'soon', '--dequeue', 'naive']],
  ])('bad usage exits 2 with one line: %j', async (args) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });

  test('on Postgres the report states the isolation level read back from the server', async () => {
    const url = inject('pgUrl');
    const r = await runCli(['tester', '--url', url, '--messages', '100', '--isolation', 'repeatable-read', '--json'], {
      timeoutMs: 60_000,
    });
    expect(r.code).toBe(0);
    const doc = parse(r.stdout);
    expect(doc['environment']).toMatchObject({ backend: 'pgmq', isolation: 'repeatable read' });
    expect(r.stdout + r.stderr).not.toContain(new URL(url).password);
  });

  test('a drain whose --run-id matches nothing in the queue: the report says so, exit 1, the other messages untouched', async () => {
    const url = inject('pgUrl');
    const queue = `tc_drain_${Date.now().toString(36)}`;
    expect((await runCli(['create', queue, '--url', url])).code).toBe(0);
    try {
      expect((await runCli(['send', queue, '{"order": 1}', '--url', url])).code).toBe(0);
      const args = ['tester', '--url', url, '--senders', '0', '--queue', queue, '--run-id', 'wrongid', '--drain-timeout', '1s'];
      const r = await runCli([...args, '--json'], { timeoutMs: 60_000 });
      expect(r.code).toBe(1);
      const doc = parse(r.stdout);
      expect(doc['verdict']).toBe('failed');
      expect(doc['failure']).toBe(`no message of run wrongid found in ${queue}`);
      expect(r.stderr).toContain(`no message of run wrongid found in ${queue}`);
      const text = await runCli(args, { timeoutMs: 60_000 });
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(new RegExp(`^failed +no message of run wrongid found in ${queue}$`, 'm'));
      expect(text.stdout).not.toMatch(/^verdict +clean/m);
      const left = await runCli(['peek', queue, '--url', url, '--json']);
      expect(left.stdout).toContain('order');
    } finally {
      await runCli(['drop', queue, '--url', url, '--yes']);
    }
  }, 90_000);

  test('Ctrl-C stops the senders, drains briefly, prints a partial report and exits 130', async () => {
    const child = spawn(process.execPath, [BIN, 'tester', '--duration', '60s', '--json'], {
      cwd: REPO,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    let interrupted = false;
    const code = await new Promise<number | null>((resolve) => {
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        // Interrupt once the run is under way (its first progress line with something sent).
        if (!interrupted && /sent [1-9]/.test(stderr)) {
          interrupted = true;
          child.kill('SIGINT');
        }
      });
      child.on('close', resolve);
    });
    expect(code).toBe(130);
    const doc = parse(stdout);
    expect(doc['interrupted']).toBe(true);
    expect(doc['verdict']).toBe('interrupted');
    expect(doc['counts']['lost']).toBe(0);
    expect(doc['durationMs']).toBeLessThan(30_000);
  }, 60_000);
});
