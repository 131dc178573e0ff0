// SIGHUP: the terminal closed or the SSH session dropped. smq treats it like SIGTERM: the
// terminal is given back (if it is still there), the tester prints its partial report and
// drops the queue it created, and the exit status is 129. The real thing is a tmux session
// killed under a running smq (the pseudo-terminal hangs up: every write to it fails with EIO
// and Node cannot reset it at exit); the plain signal is `kill -HUP` with pipes.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, test } from 'vitest';
import type { TesterReport } from '../../src/tester/index.js';
import { BIN, REPO, cleanEnv, ensureBuilt } from '../helpers/run-cli.js';
import { TmuxSession, tmuxAvailable } from '../helpers/tmux.js';

ensureBuilt();
const dir = mkdtempSync(join(tmpdir(), 'smq-hangup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function queueExists(name: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: inject('pgUrl') });
  await c.connect();
  try {
    return (await c.query('SELECT 1 FROM pgmq.list_queues() WHERE queue_name = $1', [name])).rowCount === 1;
  } finally {
    await c.end();
  }
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

async function waitForFile(path: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(path)) {
      const text = readFileSync(path, 'utf8');
      if (text.endsWith('\n')) return text;
    }
    if (Date.now() > deadline) throw new Error(`${path} was not written within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Runs `smq ARGS` in a tmux pane under bash, which outlives the hangup (its trap only runs
 * after smq ended) and writes smq's exit status to a file. stdout and stderr as given.
 */
function inTmux(name: string, args: readonly string[], redirect: string): { session: TmuxSession; rcFile: string } {
  const rcFile = join(dir, `${name}.rc`);
  const line = `trap ':' HUP; ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')} ${redirect}; echo $? > ${quote(rcFile)}`;
  const session = TmuxSession.start({ command: ['bash', '-c', line], cwd: REPO, width: 120, height: 30 });
  return { session, rcFile };
}

describe.skipIf(!tmuxAvailable())('the terminal closes under smq (tmux session killed)', () => {
  test('tester: partial report on stdout, its fresh queue dropped, exit 129, no crash', async () => {
    const out = join(dir, 'tester.json');
    // The live view on the terminal (stderr), the report to a file, as a user would.
    const { session, rcFile } = inTmux(
      'tester',
      ['tester', '--url', inject('pgUrl'), '--duration', '60s', '--rate', '200', '--json'],
      `> ${quote(out)}`,
    );
    try {
      await session.waitFor(/sent [1-9]/, 20_000);
    } finally {
      session.kill();
    }
    const rc = Number((await waitForFile(rcFile, 15_000)).trim());
    expect(rc).toBe(129);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as TesterReport;
    expect(doc.interrupted).toBe(true);
    expect(doc.interruptedBy).toBe('SIGHUP');
    expect(doc.counts.sent).toBeGreaterThan(0);
    expect(doc.queue.created).toBe(true);
    expect(doc.queue.dropped).toBe(true);
    expect(await queueExists(doc.queue.name)).toBe(false);
  }, 60_000);

  test('top: exits 129, no segfault, no assertion, nothing on stderr', async () => {
    const err = join(dir, 'top.err');
    const { session, rcFile } = inTmux('top', ['top', '--url', inject('pgUrl')], `2> ${quote(err)}`);
    try {
      await session.waitFor('smq top', 20_000);
    } finally {
      session.kill();
    }
    const rc = Number((await waitForFile(rcFile, 15_000)).trim());
    const stderr = readFileSync(err, 'utf8');
    expect(stderr).not.toMatch(/Assertion|EIO|Error/);
    expect(rc).toBe(129);
  }, 60_000);
});

describe('SIGHUP with the terminal still there (kill -HUP)', () => {
  test.skipIf(!tmuxAvailable())(
    'top: the terminal given back (echo, line editing, no alternate screen), exit 129',
    async () => {
      const modes = 'stty -a | tr -s " ;" "\\n\\n" | grep -E "^-?(icanon|echo)$" | tr "\\n" " "; echo "<- modes"';
      const session = TmuxSession.start({
        command: ['sh', '-c', `"$0" "$@"; code=$?; ${modes}; exit $code`, process.execPath, BIN, 'top', '--url', inject('pgUrl')],
        cwd: REPO,
      });
      try {
        await session.waitFor('smq top', 20_000);
        // session.pid() is the sh that runs top and then stty: top is its child.
        const top = Number(
          execFileSync('ps', ['-o', 'pid=', '--ppid', String(session.pid())], { encoding: 'utf8' })
            .trim()
            .split(/\s+/)[0],
        );
        process.kill(top, 'SIGHUP');
        expect(await session.waitForExit(15_000)).toBe(129);
        const all = await session.waitFor('<- modes', 15_000, { withHistory: true });
        const shown = /(\S.*)<- modes/.exec(all)?.[1]?.trim().split(/\s+/) ?? [];
        expect(shown.sort()).toEqual(['echo', 'icanon']);
        expect(session.capture()).not.toContain('smq top pgmq');
      } finally {
        session.kill();
      }
    },
    60_000,
  );

  test('tester: like SIGTERM, the partial report, the fresh queue dropped, exit 129', async () => {
    const child = spawn(process.execPath, [BIN, 'tester', '--url', inject('pgUrl'), '--duration', '60s', '--rate', '200', '--json'], {
      cwd: REPO,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let sentAt = 0;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (!sentAt && /sent [1-9][\d,]*.* received [1-9]/.test(stderr)) {
        sentAt = Date.now();
        child.kill('SIGHUP');
      }
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (c, s) => resolve([c, s])),
    );
    clearTimeout(killer);
    expect(signal).toBeNull();
    expect(code).toBe(129);
    expect(Date.now() - sentAt).toBeLessThan(4000);
    expect(stderr).toMatch(/smq tester: hung up: stopping senders/);
    const doc = JSON.parse(stdout) as TesterReport;
    expect(doc.interruptedBy).toBe('SIGHUP');
    expect(doc.queue.dropped).toBe(true);
    expect(await queueExists(doc.queue.name)).toBe(false);
  }, 40_000);
});
