// smq tester when things break: PostgreSQL restarted or stopped under a run, a receive whose
// answer is lost with its connection, SIGINT/SIGTERM, a worker thread that crashes, more
// workers than the server has connections, and 8 receivers on one SQLite file. Real worker
// threads (dist/) and a PostgreSQL server of this file's own: these tests restart and stop
// it, so never the suite's shared one.
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TesterReport } from '../../src/tester/index.js';
import { BIN, REPO, cleanEnv, ensureBuilt, runCli } from '../helpers/run-cli.js';
import { startPgServer, TEST_PG_PASSWORD, type PgServer } from '../helpers/pg-server.js';
import { installSchema } from '../helpers/schema.js';
import { baseConfig, loadTester, tempSqlite } from '../helpers/tester-dist.js';

/** Small, so that the connection-limit test can exceed it with a modest run. */
const MAX_CONNECTIONS = 20;

let server: PgServer;

beforeAll(async () => {
  ensureBuilt();
  server = await startPgServer({ settings: { max_connections: MAX_CONNECTIONS } });
  await installSchema(server.url);
}, 120_000);

afterAll(() => server?.stop());

const target = () => ({ kind: 'pgmq' as const, url: server.url });
let queueNo = 0;
const freshQueue = (what: string) => `tf_${what}_${Date.now().toString(36)}_${queueNo++}`;

/** A short-lived client for checking the database after a run (the server may have restarted meanwhile). */
async function query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  try {
    return (values.length > 0 ? await c.query<R>(text, values) : await c.query<R>(text)).rows;
  } finally {
    await c.end();
  }
}

/** This run's messages still in the queue's table, as "sender:seq". */
async function leftInQueue(queue: string): Promise<string[]> {
  const rows = await query<{ s: number; q: number }>(`SELECT (message->>'s')::int AS s, (message->>'q')::int AS q FROM pgmq.q_${queue}`);
  return rows.map((r) => `${r.s}:${r.q}`);
}

/**
 * Every acknowledged send is accounted for: received (ok, redelivered, or not deleted: its
 * delete died with the connection and nothing redelivered it), or still in the queue.
 */
function expectReconciled(report: TesterReport): void {
  const c = report.counts;
  expect(c.lost).toBe(0);
  expect(c.doubleDequeued).toBe(0);
  expect(c.resurrected).toBe(0);
  expect(c.unexpected).toBe(0);
  expect(c.ok + c.redelivered + c.notDrained + c.notDeleted).toBe(c.sent);
  // Failed sends are uncertain, never lost, whether or not they reached the queue.
  expect(c.uncertain).toBe(c.sendFailed);
}

interface ChildRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** From the moment the trigger fired to the exit. */
  readonly afterTriggerMs: number;
  readonly totalMs: number;
}

/**
 * Runs `smq tester …` as a user would; once its progress shows messages going (a plain line
 * per second on stderr), calls trigger(child). Killed at the deadline: a hang fails the test.
 */
function runTesterChild(
  args: readonly string[],
  trigger: ((pid: number) => void | Promise<void>) | undefined,
  options: { env?: Record<string, string>; deadlineMs: number },
): Promise<ChildRun> {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, 'tester', '--url', server.url, ...args], {
    cwd: REPO,
    env: cleanEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let triggeredAt = 0;
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    if (trigger && !triggeredAt && /sent [1-9][\d,]*.* received [1-9]/.test(stderr)) {
      triggeredAt = Date.now();
      void trigger(child.pid!);
    }
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), options.deadlineMs);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      const now = Date.now();
      resolve({ code, signal, stdout, stderr, afterTriggerMs: triggeredAt ? now - triggeredAt : NaN, totalMs: now - started });
    });
  });
}

const parse = (stdout: string) => JSON.parse(stdout) as TesterReport;

describe('PostgreSQL restarted in the middle of a run', () => {
  test('workers reconnect, errors are counted by kind, the run finishes, and the verdict agrees with the database', async () => {
    const { TesterRun } = await loadTester();
    const queue = freshQueue('restart');
    const run = new TesterRun(
      baseConfig(target(), {
        queue,
        keep: true,
        messagesPerSender: undefined,
        durationMs: 6000,
        ratePerSec: 1000,
        batch: 5,
        // Short leases: a message whose delete died with the connection comes back within the drain.
        vtSec: 2,
        drainTimeoutMs: 5000,
      }),
    );
    // Once messages flow both ways (about a second in), restart the server under the run.
    let restartedAtMs = 0;
    let restartTookMs = 0;
    let restarted: Promise<void> | undefined;
    run.on('progress', (p) => {
      if (restarted || p.totals.received === 0) return;
      restartedAtMs = p.elapsedMs;
      const t = Date.now();
      restarted = server.restartAsync().then(() => void (restartTookMs = Date.now() - t)); // pg_ctl restart -m fast
    });
    const report = await run.run().finally(() => restarted);

    expect(report.failure).toBeNull();
    expect(report.verdict).toBe('clean');
    expect(report.interrupted).toBe(false);
    // The restart was seen and counted as connection errors; sends during it are uncertain.
    expect(report.errors.connection).toBeGreaterThan(0);
    expect(report.errors.count).toBe(report.errors.connection + report.errors.other);
    expect(report.counts.sendFailed).toBeGreaterThan(0);
    expectReconciled(report);
    // Every worker came back: messages were sent and received after the server did.
    expect(restartedAtMs).toBeGreaterThan(0);
    const backAtSecond = Math.ceil((restartedAtMs + restartTookMs) / 1000);
    const after = report.series.filter((p) => p.second >= backAtSecond);
    expect(after.reduce((a, p) => a + p.sent, 0)).toBeGreaterThan(0);
    expect(after.reduce((a, p) => a + p.received, 0)).toBeGreaterThan(0);
    expect(report.drain.complete).toBe(true);

    // The database agrees: what is left in the queue is what the report says is left, and
    // none of it was an acknowledged message that the report calls lost.
    const left = await leftInQueue(queue);
    expect(report.queue.messagesAfter).toBe(left.length);
    for (const ref of report.examples.lost) expect(left).not.toContain(`${ref.sender}:${ref.seq}`);
    await query('SELECT pgmq.drop_queue($1)', [queue]);
  }, 60_000);
});

describe('a receive whose answer is lost with its connection', () => {
  test('the claimed messages come back after their lease: redelivered, not double-dequeued, not lost', async () => {
    const { TesterRun } = await loadTester();
    const report = await new TesterRun(
      baseConfig(target(), { messagesPerSender: 200, vtSec: 1, drainTimeoutMs: 4000, faults: { loseReceiveAnswerEvery: 4 } }),
    ).run();
    expect(report.errors.connection).toBeGreaterThan(0);
    expect(report.counts.redelivered).toBeGreaterThan(0);
    expect(report.examples.redelivered.length).toBeGreaterThan(0);
    expectReconciled(report);
    expect(report.counts.notDrained).toBe(0);
    expect(report.verdict).toBe('clean');
  }, 30_000);

  test('claimed messages still invisible when the drain ends are found in the queue: not lost', async () => {
    const { TesterRun } = await loadTester();
    const queue = freshQueue('lostanswer');
    const report = await new TesterRun(
      baseConfig(target(), {
        queue,
        keep: true,
        messagesPerSender: 200,
        vtSec: 60,
        drainTimeoutMs: 1000,
        faults: { loseReceiveAnswerEvery: 4 },
      }),
    ).run();
    expect(report.drain.timedOut).toBe(true);
    expect(report.counts.notDrained).toBeGreaterThan(0);
    expectReconciled(report);
    expect(report.verdict).toBe('clean');
    expect(report.tester.warnings.join('\n')).toMatch(/acknowledged message\(s\) were never received but are still in the queue/);
    // They are there, claimed (in flight), exactly those.
    const rows = await query<{ n: number; inflight: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE vt > clock_timestamp() AND read_ct = 1)::int AS inflight FROM pgmq.q_${queue}`,
    );
    expect(rows[0]).toEqual({ n: report.counts.notDrained, inflight: report.counts.notDrained });
    await query('SELECT pgmq.drop_queue($1)', [queue]);
  }, 30_000);
});

describe('PostgreSQL stopped for longer than the run', () => {
  test('a clear error line and the partial report, exit 1, in bounded time', async () => {
    let halted: Promise<void> | undefined;
    try {
      const r = await runTesterChild(
        ['--duration', '4s', '--rate', '400', '--outage-timeout', '3s', '--drain-timeout', '2s', '--json'],
        () => {
          halted = server.halt();
        },
        { deadlineMs: 30_000 },
      );
      expect(r.signal).toBeNull(); // not killed at the deadline
      expect(r.code).toBe(1);
      // From the stop: the 3 s outage timeout, then the report and Node's exit.
      expect(r.afterTriggerMs).toBeLessThan(10_000);
      const lines = r.stderr.trim().split('\n');
      expect(lines.at(-1)).toMatch(
        /^smq: tester stopped: .*(the database has been unreachable for \d+\.\d s, giving up|the queue cannot be read after the run).*cannot connect to postgres:\/\/postgres:\*\*\*@127\.0\.0\.1.*: the JSON report on stdout is partial$/,
      );
      expect(r.stderr + r.stdout).not.toContain(TEST_PG_PASSWORD);
      const doc = parse(r.stdout);
      expect(doc.verdict).toBe('failed');
      expect(doc.failure).toMatch(/cannot connect/);
      expect(doc.counts.sent).toBeGreaterThan(0);
      // Not judged: undelivered messages are "not drained", never "lost", with the store gone.
      expect(doc.counts.lost).toBe(0);
      expect(doc.errors.connection).toBeGreaterThan(0);
      expect(doc.queue.messagesAfter).toBeNull();
      expect(doc.tester.warnings.join('\n')).toMatch(/was not dropped: the database is unreachable/);
    } finally {
      await halted;
      await server.start();
    }
  }, 60_000);

  test('the text report says FAILED, never a verdict', async () => {
    const { formatReport, TesterRun } = await loadTester();
    let halted: Promise<void> | undefined;
    try {
      const run = new TesterRun(baseConfig(target(), { messagesPerSender: 100_000, ratePerSec: 400, outageTimeoutMs: 2000 }));
      run.once('progress', () => {
        halted = server.halt();
      });
      const report = await run.run();
      expect(report.verdict).toBe('failed');
      const text = formatReport(report);
      expect(text).toMatch(/^smq tester — FAILED, partial report/);
      expect(text).toMatch(/^stopped +.*the database has been unreachable for/m);
      expect(text).toMatch(/^errors +[\d,]+ \([\d,]+ connection, \d+ other\)/m);
      expect(text).toMatch(/^verdict +FAILED/m);
      expect(text).not.toMatch(/verdict +clean/);
    } finally {
      await halted;
      await server.start();
    }
  }, 60_000);
});

describe('signals during a run', () => {
  test.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s: stops within 2 s with a partial report marked interrupted, exit %i',
    async (signal, exitCode) => {
      const queue = freshQueue(signal.toLowerCase());
      const r = await runTesterChild(
        ['--duration', '60s', '--rate', '500', '--queue', queue, '--json'],
        (pid) => void process.kill(pid, signal),
        {
          deadlineMs: 30_000,
        },
      );
      expect(r.code).toBe(exitCode);
      expect(r.afterTriggerMs).toBeLessThan(2000);
      const doc = parse(r.stdout);
      expect(doc.interrupted).toBe(true);
      expect(doc.interruptedBy).toBe(signal);
      expect(doc.failure).toBeNull();
      expect(doc.counts.sent).toBeGreaterThan(0);
      expect(doc.counts.lost).toBe(0);
      expect(doc.counts.doubleDequeued).toBe(0);
      expect(r.stderr).toMatch(
        signal === 'SIGINT' ? /smq tester: interrupted: stopping senders/ : /smq tester: terminated: stopping senders/,
      );
      // What it did not drain is still in the queue, and the report says how much.
      expect((await leftInQueue(queue)).length).toBe(doc.queue.messagesAfter);
      await query('SELECT pgmq.drop_queue($1)', [queue]);
    },
    40_000,
  );

  test('the text report names the signal', async () => {
    const r = await runTesterChild(['--duration', '60s', '--rate', '500'], (pid) => void process.kill(pid, 'SIGTERM'), {
      deadlineMs: 30_000,
    });
    expect(r.code).toBe(143);
    expect(r.stdout).toMatch(/^smq tester — INTERRUPTED \(SIGTERM\), partial report/);
    expect(r.stdout).toMatch(/^verdict +interrupted$/m);
  }, 40_000);
});

describe('a worker thread that crashes', () => {
  // One thread per sender/receiver names the client; a thread that runs several names them all.
  test.each([
    ['receiver', 1, '2', 'receiver 1'],
    ['sender', 0, '2', 'sender 0'],
    ['receiver', 1, '1', 'the receiver thread of receivers 0,1'],
    ['sender', 0, '1', 'the sender thread of senders 0,1'],
  ] as const)(
    'a %s (index %i, --threads %s): the run stops, says which worker failed and why, exit 1',
    async (role, index, threads, name) => {
      // 500 messages at 1,000/s is half a second: several of the worker's 100 ms progress reports
      // have reached the engine before the crash, also on a loaded machine (100 raced the first).
      const crashWorker = { role, index, afterMessages: 500 };
      const r = await runTesterChild(['--messages', '100000', '--rate', '1000', '--threads', threads, '--json'], undefined, {
        env: { SMQ_TESTER_FAULTS: JSON.stringify({ crashWorker }) },
        deadlineMs: 30_000,
      });
      expect(r.signal).toBeNull();
      expect(r.code).toBe(1);
      expect(r.totalMs).toBeLessThan(20_000);
      const line = new RegExp(
        `^smq: tester stopped: ${name} crashed: injected crash after \\d+ messages \\(SMQ_TESTER_FAULTS crashWorker\\): the JSON report on stdout is partial$`,
      );
      expect(r.stderr.trim().split('\n').at(-1)).toMatch(line);
      const doc = parse(r.stdout);
      expect(doc.verdict).toBe('failed');
      expect(doc.failure).toMatch(new RegExp(`^${name} crashed: injected crash`));
      // A partial report, not a verdict: nothing is judged lost, and the dead sender's last,
      // unreported sends are uncertain, not unexpected.
      expect(doc.counts.lost).toBe(0);
      expect(doc.counts.unexpected).toBe(0);
      expect(doc.counts.doubleDequeued).toBe(0);
      expect(doc.counts.sent).toBeGreaterThan(0);
      // The fresh queue was still cleaned up.
      expect(doc.queue.dropped).toBe(true);
    },
    40_000,
  );
});

describe('SQLite under contention', () => {
  test('8 receivers on one file: no SQLITE_BUSY reaches the run, nothing double-dequeued, the file stays valid', async () => {
    const { TesterRun } = await loadTester();
    const t = tempSqlite();
    try {
      const report = await new TesterRun(
        baseConfig({ kind: 'sqlite', path: t.path }, { createSqlite: true, senders: 2, receivers: 8, messagesPerSender: 1500, batch: 5 }),
      ).run();
      expect(report.verdict).toBe('clean');
      expect(report.errors).toMatchObject({ count: 0, last: null });
      expect(report.counts).toMatchObject({ sent: 3000, ok: 3000, doubleDequeued: 0, redelivered: 0, lost: 0 });
      // Eight receiver threads, each with its own connection to the file.
      expect(report.tester.workers.filter((w) => w.role === 'receiver')).toHaveLength(8);
      const db = new Database(t.path, { readonly: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        db.close();
      }
    } finally {
      t.cleanup();
    }
  }, 60_000);
});

test('the checker: a dead sender’s unreported sends are uncertain when they arrive, not unexpected', async () => {
  const { DeliveryChecker } = await loadTester();
  const c = new DeliveryChecker({ senders: 2, capacityPerSender: 10 });
  c.recordSend(0, 0, 2, 'acked');
  c.recordSend(1, 0, 1, 'acked');
  const t = Date.now();
  // Sender 0 sent seq 2 and died before reporting it; sender 1's seq 5 was never sent.
  for (const [s, q] of [
    [0, 0],
    [0, 1],
    [0, 2],
    [1, 0],
    [1, 5],
  ] as const)
    c.recordDelivery(s, q, t, t + 1000, `${s}-${q}`);
  // The reported sends were also deleted by the tester: ok (delivered and not deleted is its own class).
  for (const [s, q] of [
    [0, 0],
    [0, 1],
    [1, 0],
  ] as const)
    c.recordAck(s, q, true, `${s}-${q}`);
  c.recordSenderLost(0);
  expect(c.summarize({ judgeLoss: true }).counts).toMatchObject({ ok: 3, uncertain: 1, unexpected: 1 });
});

describe('connection limits', () => {
  test('more senders and receivers than free connections: one clear line before the run, exit 2, nothing created', async () => {
    const before = await query<{ n: number }>('SELECT count(*)::int AS n FROM pgmq.meta');
    const r = await runCli(['tester', '--url', server.url, '--senders', '10', '--receivers', '10', '--messages', '10'], {
      timeoutMs: 20_000,
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^smq: --senders 10 --receivers 10 need 20 connections; the server has \\d+ free \\(max_connections ${MAX_CONNECTIONS}, \\d+ in use, 3 reserved for superusers\\): lower --senders or --receivers`,
      ),
    );
    const free = Number(/has (\d+) free/.exec(lines[0]!)![1]);
    expect(free).toBeLessThan(MAX_CONNECTIONS - 3);
    expect((await query<{ n: number }>('SELECT count(*)::int AS n FROM pgmq.meta'))[0]).toEqual(before[0]);
  });

  test('a run that fits still runs', async () => {
    const r = await runCli(['tester', '--url', server.url, '--senders', '4', '--receivers', '4', '--messages', '20', '--json'], {
      timeoutMs: 30_000,
    });
    expect(r.code).toBe(0);
    expect(parse(r.stdout).verdict).toBe('clean');
  }, 40_000);

  test('a role with a CONNECTION LIMIT: the limit is named', async () => {
    await query(
      `DO $$ BEGIN CREATE ROLE smq_limited LOGIN PASSWORD 'limited-pw' CONNECTION LIMIT 3; EXCEPTION WHEN duplicate_object THEN NULL; END $$`,
    );
    await query('GRANT ALL ON SCHEMA pgmq TO smq_limited; GRANT ALL ON ALL TABLES IN SCHEMA pgmq TO smq_limited');
    const url = new URL(server.url);
    url.username = 'smq_limited';
    url.password = 'limited-pw';
    const r = await runCli(['tester', '--url', url.toString(), '--senders', '2', '--receivers', '2', '--messages', '10'], {
      timeoutMs: 20_000,
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(
      /^smq: --senders 2 --receivers 2 need 4 connections; the server has 2 free \(the role's connection limit is 3\)/,
    );
  });
});
