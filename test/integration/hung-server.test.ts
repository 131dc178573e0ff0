// A server that stops answering without closing anything (its processes stopped with
// SIGSTOP, or a statement that waits for ever on a lock): every smq call has a deadline
// (--timeout, 10 s by default), ends with one line that names it, and top shows the hung
// database like an unreachable one and still quits at once. The server is this file's own,
// never the suite's shared one.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openBackend } from '../../src/backends/index.js';
import { isCallTimeout } from '../../src/backends/deadline.js';
import { makeTempDir } from '../helpers/backends.js';
import { startPgServer, type PgServer } from '../helpers/pg-server.js';
import { BIN, cleanEnv, ensureBuilt, runCli } from '../helpers/run-cli.js';
import { installSchema } from '../helpers/schema.js';
import { TmuxSession, tmuxAvailable } from '../helpers/tmux.js';

let server: PgServer;
const QUEUE = 'hung_q';

/** Stops (or resumes) the postmaster and every process it started: nothing answers, nothing is closed. */
function signalServer(signal: 'STOP' | 'CONT'): void {
  const pid = readFileSync(join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
  // Children first when stopping (the postmaster cannot fork a replacement meanwhile).
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', pid], { encoding: 'utf8' }).split(/\s+/).filter(Boolean);
  for (const p of signal === 'STOP' ? [...children, pid] : [pid, ...children]) {
    try {
      process.kill(Number(p), `SIG${signal}`);
    } catch {
      // a child that ended meanwhile
    }
  }
}

async function frozen<T>(fn: () => Promise<T>): Promise<T> {
  signalServer('STOP');
  try {
    return await fn();
  } finally {
    signalServer('CONT');
  }
}

beforeAll(async () => {
  ensureBuilt();
  server = await startPgServer();
  await installSchema(server.url);
  const r = await runCli(['create', QUEUE, '--url', server.url]);
  expect(r.code, r.stderr).toBe(0);
  expect((await runCli(['send', QUEUE, '{"n":1}', '--url', server.url])).code).toBe(0);
}, 120_000);

afterAll(() => {
  try {
    signalServer('CONT');
  } catch {
    // already stopped
  }
  server?.stop();
});

const oneLine = (stderr: string) => stderr.trimEnd().split('\n');

describe('a call that never answers', () => {
  test('peek and queues give up after the default 10 s when a lock holds the queue table for ever', async () => {
    const holder = new pg.Client({ connectionString: server.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE pgmq.q_${QUEUE} IN ACCESS EXCLUSIVE MODE`);
      const [peek, queues] = await Promise.all([
        runCli(['peek', QUEUE, '--url', server.url], { timeoutMs: 40_000 }),
        runCli(['queues', '--url', server.url], { timeoutMs: 40_000 }),
      ]);
      for (const r of [peek, queues]) {
        expect(r.code, r.stderr).toBe(1);
        expect(oneLine(r.stderr)).toHaveLength(1);
        // The server cancels the statement a little inside --timeout (statement_timeout): it changed nothing.
        expect(r.stderr).toMatch(/^smq: the server cancelled the call after about 10 s \(--timeout\): .*; the call changed nothing/);
        expect(r.stderr).toMatch(/--timeout/);
        // 10 s and the process's own start and exit; never the 40 s kill.
        expect(r.ms).toBeGreaterThan(9_000);
        expect(r.ms).toBeLessThan(20_000);
      }
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  }, 60_000);

  test('a send held by a lock past --timeout is cancelled on the server: it never lands later', async () => {
    const holder = new pg.Client({ connectionString: server.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE pgmq.q_${QUEUE} IN ACCESS EXCLUSIVE MODE`);
      const r = await runCli(['send', QUEUE, '{"orphan": 1}', '--url', server.url, '--timeout', '2s'], { timeoutMs: 30_000 });
      expect(r.code, r.stderr).toBe(1);
      expect(oneLine(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/2 s/);
      expect(r.stderr).toMatch(/the call changed nothing/);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
    // The lock is gone: a statement still waiting behind it would run now.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const check = new pg.Client({ connectionString: server.url });
    await check.connect();
    try {
      const { rows } = await check.query(`SELECT count(*)::int AS n FROM pgmq.q_${QUEUE} WHERE message ? 'orphan'`);
      expect(rows[0].n).toBe(0);
    } finally {
      await check.end();
    }
  }, 60_000);

  test('queues, peek and top --once against a stopped server end within --timeout 2s', async () => {
    const results = await frozen(() =>
      Promise.all([
        runCli(['queues', '--url', server.url, '--timeout', '2s'], { timeoutMs: 30_000 }),
        runCli(['peek', QUEUE, '--url', server.url, '--timeout', '2s'], { timeoutMs: 30_000 }),
        runCli(['top', '--once', '--url', server.url, '--timeout', '2s'], { timeoutMs: 30_000 }),
      ]),
    );
    for (const r of results) {
      expect(r.code, r.stderr).toBe(1);
      expect(oneLine(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/no answer from .* within 2 s/);
      expect(r.ms).toBeLessThan(2_000 + 8_000);
    }
  }, 60_000);

  test('a command that gave up on a frozen server exits as soon as it has said so', async () => {
    // It printed its line and then waited for the stuck connection for another 2 s.
    const timed = await frozen(
      () =>
        new Promise<{ code: number | null; stderr: string; gapMs: number }>((resolve) => {
          const child = spawn(process.execPath, [BIN, 'queues', '--url', server.url, '--timeout', '1s'], { env: cleanEnv() });
          let stderr = '';
          let saidAt = 0;
          child.stderr.on('data', (d: Buffer) => {
            stderr += d.toString();
            saidAt ||= Date.now();
          });
          child.on('exit', (code) => resolve({ code, stderr, gapMs: Date.now() - saidAt }));
        }),
    );
    expect(timed.code, timed.stderr).toBe(1);
    expect(timed.stderr).toMatch(/no answer from .* within 1 s/);
    expect(timed.gapMs).toBeLessThan(1_000);
  }, 60_000);

  test('--timeout refuses what is not a duration', async () => {
    for (const bad of ['0', 'soon', '-1s']) {
      const r = await runCli(['queues', '--url', server.url, '--timeout', bad]);
      expect(r.code, `${bad}: ${r.stderr}`).toBe(2);
      expect(oneLine(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/--timeout/);
    }
  });

  test('a Backend opened with callTimeoutMs rejects a hung call with a timeout error, on the pool and on the dedicated wire path', async () => {
    for (const dedicated of [false, true]) {
      const backend = await openBackend({ kind: 'pgmq', url: server.url }, { callTimeoutMs: 1_500, dedicated });
      try {
        await backend.queueStats(QUEUE); // connected and warm
        const started = Date.now();
        const error = await frozen(() =>
          backend.receive(QUEUE, { qty: 1, vtSec: 0 }).then(
            () => undefined,
            (e: unknown) => e,
          ),
        );
        expect(isCallTimeout(error), `${dedicated}: ${String(error)}`).toBe(true);
        expect(Date.now() - started).toBeLessThan(1_500 + 3_000);
        // The server answers again: so does the same backend.
        expect((await backend.queueStats(QUEUE)).name).toBe(QUEUE);
      } finally {
        const closing = Date.now();
        await backend.close();
        expect(Date.now() - closing).toBeLessThan(3_000);
      }
    }
  }, 60_000);

  test('close() returns at once while a call hangs', async () => {
    const backend = await openBackend({ kind: 'pgmq', url: server.url }, { callTimeoutMs: 60_000 });
    await backend.queueStats(QUEUE);
    await frozen(async () => {
      const hanging = backend.queueStats(QUEUE).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 200));
      const started = Date.now();
      await backend.close();
      expect(Date.now() - started).toBeLessThan(3_000);
      // The call in flight is not left pending for ever either.
      expect(await hanging).toBeInstanceOf(Error);
    });
  }, 30_000);
});

test('SQLite: a file locked by another program holds a call no longer than --timeout', async () => {
  const tmp = makeTempDir();
  const file = join(tmp.dir, 'mq.db');
  try {
    expect((await runCli(['init', '--sqlite', file])).code).toBe(0);
    expect((await runCli(['create', 'q', '--sqlite', file])).code).toBe(0);
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const r = await runCli(['send', 'q', 'x', '--sqlite', file, '--timeout', '1s']);
      expect(r.code, r.stderr).toBe(1);
      expect(oneLine(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/stayed locked by another connection for over 1 s/);
      expect(r.ms).toBeLessThan(1_000 + 4_000);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  } finally {
    tmp.cleanup();
  }
});

describe.skipIf(!tmuxAvailable())('smq top on a hung server', () => {
  test('shows the unreachable banner within the timeout, and q ends the process', async () => {
    // Wide enough for the whole banner line.
    const session = TmuxSession.start({
      command: [process.execPath, BIN, 'top', '--url', server.url, '--interval', '0.5', '--timeout', '2s'],
      width: 250,
    });
    try {
      await session.waitFor(new RegExp(`${QUEUE}\\s+1\\s`), 20_000);
      await frozen(async () => {
        const froze = Date.now();
        await session.waitFor('DATABASE UNREACHABLE', 2_000 + 10_000);
        expect(Date.now() - froze).toBeLessThan(2_000 + 10_000);
        await session.waitFor(/no answer from .* within 2 s/);
        session.keys('q');
        // Ends while the server is still stopped, with its calls in flight.
        expect(await session.waitForExit(5_000)).toBe(0);
      });
    } finally {
      session.kill();
    }
  }, 60_000);

  test('Ctrl-C ends it as well while a refresh is waiting for an answer', async () => {
    const session = TmuxSession.start({
      command: [process.execPath, BIN, 'top', '--url', server.url, '--interval', '0.5', '--timeout', '60s'],
    });
    try {
      await session.waitFor(new RegExp(`${QUEUE}\\s+1\\s`), 20_000);
      await frozen(async () => {
        // A refresh is due every 0.5 s: after 1.5 s one is in flight, and will wait 60 s.
        await new Promise((r) => setTimeout(r, 1_500));
        session.keys('C-c');
        expect(await session.waitForExit(5_000)).toBe(0);
      });
    } finally {
      session.kill();
    }
  }, 60_000);
});
