// smq tester against a server that stops answering without closing anything: every process
// of a PostgreSQL server of this file's own is stopped with SIGSTOP once messages flow (no
// RST, no FIN: each call just never answers), and continued afterwards. A call that never
// answers counts toward the outage timeout like a call that fails, and SIGTERM while the
// calls hang still gives the partial report, exit 143.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TesterReport } from '../../src/tester/index.js';
import { BIN, REPO, cleanEnv, ensureBuilt } from '../helpers/run-cli.js';
import { startPgServer, TEST_PG_PASSWORD, type PgServer } from '../helpers/pg-server.js';
import { installSchema } from '../helpers/schema.js';

let server: PgServer;

beforeAll(async () => {
  ensureBuilt();
  server = await startPgServer();
  await installSchema(server.url);
}, 120_000);

afterAll(() => server?.stop());

/** The postmaster and every process it forked (backends, checkpointer, …). */
function serverPids(): number[] {
  const postmaster = Number(readFileSync(join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' })
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  return [postmaster, ...children];
}

/** Stops every process of the server; returns the function that continues them. */
function freeze(): () => void {
  const pids = serverPids();
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  return () => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // gone meanwhile
      }
    }
  };
}

interface ChildRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** From the freeze to the exit. */
  readonly afterFreezeMs: number;
  /** From the signal (if one was sent) to the exit, and to the first output on stdout (the report). */
  readonly afterSignalMs: number;
  readonly reportAfterSignalMs: number;
}

/**
 * Runs `smq tester …`; once its progress shows messages going both ways, freezes the server,
 * and signalAfterMs later (if given) sends the signal. Killed at the deadline: a hang fails.
 */
function runFrozen(
  args: readonly string[],
  options: { signal?: NodeJS.Signals; signalAfterMs?: number; thawAfterMs?: number; deadlineMs: number },
): Promise<ChildRun> {
  const child = spawn(process.execPath, [BIN, 'tester', '--url', server.url, ...args], {
    cwd: REPO,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let frozenAt = 0;
  let signalledAt = 0;
  let reportAt = 0;
  let thaw: (() => void) | undefined;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    reportAt ||= Date.now();
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    if (!frozenAt && /sent [1-9][\d,]*.* received [1-9]/.test(stderr)) {
      frozenAt = Date.now();
      thaw = freeze();
      if (options.thawAfterMs !== undefined) setTimeout(() => thaw?.(), options.thawAfterMs);
      if (options.signal) {
        setTimeout(() => {
          signalledAt = Date.now();
          child.kill(options.signal);
        }, options.signalAfterMs ?? 0);
      }
    }
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), options.deadlineMs);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      thaw?.();
      const now = Date.now();
      resolve({
        code,
        signal,
        stdout,
        stderr,
        afterFreezeMs: frozenAt ? now - frozenAt : NaN,
        afterSignalMs: signalledAt ? now - signalledAt : NaN,
        reportAfterSignalMs: signalledAt && reportAt ? reportAt - signalledAt : NaN,
      });
    });
  });
}

const parse = (stdout: string) => JSON.parse(stdout) as TesterReport;

describe('a server that stops answering (SIGSTOP)', () => {
  test('calls that never answer count toward --outage-timeout: a partial report, exit 1, in bounded time', async () => {
    const r = await runFrozen(['--duration', '20s', '--rate', '200', '--outage-timeout', '3s', '--drain-timeout', '2s', '--json'], {
      deadlineMs: 45_000,
    });
    expect(r.signal).toBeNull(); // not killed at the deadline
    expect(r.code).toBe(1);
    // The 3 s outage timeout, then stopping the workers and giving up on the store: well
    // before the 20 s the run was asked for.
    expect(r.afterFreezeMs).toBeLessThan(12_000);
    expect(r.stderr).not.toMatch(/RangeError|Maximum call stack/);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      /^smq: tester stopped: .*no answer from the database for \d+\.\d s, giving up.*: the JSON report on stdout is partial$/,
    );
    expect(r.stderr + r.stdout).not.toContain(TEST_PG_PASSWORD);
    const doc = parse(r.stdout);
    expect(doc.verdict).toBe('failed');
    expect(doc.failure).toMatch(/no answer from the database for \d+\.\d s/);
    expect(doc.counts.sent).toBeGreaterThan(0);
    // Not judged: nothing is called lost while the store does not answer.
    expect(doc.counts.lost).toBe(0);
    expect(doc.queue.messagesAfter).toBeNull();
  }, 60_000);

  test('--timeout bounds each call: calls the frozen server never answers fail after it, the run goes on after the thaw', async () => {
    // 5 s frozen, a 1 s call deadline, the default 30 s outage timeout: the workers give up
    // on each call after about a second (a connection error, the connection cut), keep
    // trying, and carry on when the server answers again.
    const r = await runFrozen(['--duration', '12s', '--rate', '200', '--timeout', '1s', '--vt', '3s', '--json'], {
      thawAfterMs: 5_000,
      deadlineMs: 60_000,
    });
    expect(r.signal).toBeNull();
    expect(r.stderr).not.toContain(TEST_PG_PASSWORD);
    const doc = parse(r.stdout);
    expect(doc.failure).toBeNull();
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(doc.errors.connection).toBeGreaterThan(0);
    expect(doc.errors.last).toMatch(/within 1 s|no answer|connect/);
    // No call waited out the whole freeze: each gave up after about its second.
    expect(doc.latency.sendService!.max).toBeLessThan(4_000);
    expect(doc.latency.receive.max).toBeLessThan(4_000);
    expect(doc.counts.lost).toBe(0);
  }, 90_000);

  test('frozen past the end of a --rate --duration run: the sends due meanwhile are counted as never made, and said', async () => {
    // Frozen from about 1 s to 9 s of a 6 s run at 200/s, calls allowed to wait (--timeout 30s):
    // the senders come back after the end, about 1,000 sends behind their schedule.
    const r = await runFrozen(['--duration', '6s', '--rate', '200', '--timeout', '30s', '--json'], {
      thawAfterMs: 8_000,
      deadlineMs: 60_000,
    });
    expect(r.signal).toBeNull();
    const doc = parse(r.stdout);
    expect(doc.failure).toBeNull();
    expect(doc.scheduledNotSent).toBeGreaterThan(500);
    expect(doc.scheduledNotSent! + doc.counts.sent + doc.counts.sendFailed).toBeLessThanOrEqual(1_200 + 2);
    expect(doc.tester.warnings.join('\n')).toMatch(/[\d,]+ sends due before the end were never made/);
  }, 90_000);

  test('frozen for less than --timeout and caught up: the run is clean, and the report names the stall', async () => {
    // Every call waits out the 4 s freeze and goes through; the senders catch up at 100/s.
    // Before, nothing but the latency maxima showed it: no error, no warning, no window.
    const r = await runFrozen(['--duration', '10s', '--rate', '100', '--timeout', '30s', '--json'], {
      thawAfterMs: 4_000,
      deadlineMs: 60_000,
    });
    expect(r.signal).toBeNull();
    const doc = parse(r.stdout);
    expect(doc.failure).toBeNull();
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(doc.counts.lost).toBe(0);
    expect(doc.tester.warnings.join('\n')).toMatch(/^the store stalled: the slowest send took [3-9]\.\d s.*\(no call failed\)/m);
    // While it was frozen, the live view said so: the threads still report (their calls
    // wait on sockets), so only the age of the calls in flight shows that nothing answers.
    expect(r.stderr).toMatch(/no call answered for [2-4](\.\d)? s: \d+ calls waiting on the store \(server stopped or unreachable\?\)/);
  }, 90_000);

  test('SIGTERM while every call hangs: the partial report within seconds, exit 143, no crash', async () => {
    // The default outage timeout (30 s) is far away: only the signal ends this run.
    const r = await runFrozen(['--duration', '60s', '--rate', '200', '--json'], {
      signal: 'SIGTERM',
      signalAfterMs: 1000,
      deadlineMs: 45_000,
    });
    expect(r.signal).toBeNull();
    expect(r.stderr).not.toMatch(/RangeError|Maximum call stack/);
    expect(r.code).toBe(143);
    // Calls in flight are given up on 0.3 s after STOP, the drain is 0.5 s, reading the queue
    // back gets 1 s: the report comes after about 2 s (bounded at 4 s for a busy machine),
    // not after the 15 s a worker gets to answer STOP. The process then leaves with its
    // connection to the hung server still open (bin/smq.js gives open handles 2 s).
    expect(r.reportAfterSignalMs).toBeLessThan(4000);
    expect(r.afterSignalMs).toBeLessThan(7000);
    const doc = parse(r.stdout);
    expect(doc.interrupted).toBe(true);
    expect(doc.interruptedBy).toBe('SIGTERM');
    // Interrupted, as every interrupted run, even though the queue could not be read back:
    // that failure is still listed.
    expect(doc.verdict).toBe('interrupted');
    expect(doc.failure).toMatch(/the queue cannot be read after the run/);
    expect(doc.partial).toBe(true);
    expect(doc.counts.sent).toBeGreaterThan(0);
    expect(doc.counts.lost).toBe(0);
    expect(r.stderr).toMatch(/smq tester: terminated: stopping senders/);
  }, 60_000);
});
