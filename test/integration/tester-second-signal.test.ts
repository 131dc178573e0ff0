// A second Ctrl-C ("quit now") during `smq tester`: the built binary gets two real SIGINTs
// while it runs. The temporary folder of an embedded SQLite run is removed before the
// process leaves; a queue the run created on a store (pgmq, a --sqlite file) that it has no
// time to drop is named on stderr with the command that removes it, without the password.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { BIN, REPO, cleanEnv, ensureBuilt, runCli } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'smq-second-signal-'));

beforeAll(() => ensureBuilt());
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Stopped {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `smq tester …` with one slow receiver (a backlog: the drain after the first SIGINT
 * lasts its full half second); once messages are sent, SIGINT, and 50 ms later SIGINT again.
 */
function interruptTwice(args: readonly string[], env: Record<string, string>): Promise<Stopped> {
  const slow = ['--receivers', '1', '--ack-delay', '200ms'];
  const child = spawn(process.execPath, [BIN, 'tester', ...args, ...slow], {
    cwd: REPO,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let signalled = false;
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    if (!signalled && /sent [1-9]/.test(stderr)) {
      signalled = true;
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGINT'), 50);
    }
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 40_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('a second Ctrl-C quits at once', () => {
  test('an embedded SQLite run: its temporary folder ("removed afterwards") is removed all the same', async () => {
    const tmp = mkdtempSync(join(dir, 'tmp-'));
    const r = await interruptTwice(['--duration', '60s', '--json'], { TMPDIR: tmp });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/removed afterwards/);
    expect(r.stdout).toBe(''); // it left before the report: the second signal ended it
    expect(readdirSync(tmp)).toEqual([]);
  }, 60_000);

  test('pgmq: the queue it could not drop is named on stderr with the command that removes it, no password', async () => {
    const url = inject('pgUrl');
    const runId = `second_${randomBytes(4).toString('hex')}`;
    const queue = `smq_tester_${runId}`;
    try {
      const r = await interruptTwice(['--url', url, '--duration', '60s', '--rate', '500', '--json'], { SMQ_TESTER_RUN_ID: runId });
      expect(r.code).toBe(130);
      expect(r.stdout).toBe('');
      const lines = r.stderr.split('\n').filter((l) => l.includes('behind'));
      expect(lines).toEqual([`smq tester: left queue ${queue} behind: remove it with 'smq drop ${queue} --yes' and the same --url`]);
      expect(r.stderr).not.toContain(new URL(url).password);
      // It is there, as said.
      const queues = await runCli(['queues', '--url', url, '--json']);
      expect(queues.stdout).toContain(queue);
    } finally {
      await runCli(['drop', queue, '--url', url, '--yes']);
    }
  }, 60_000);

  test('a --sqlite file: the queue left in it is named with the file', async () => {
    const file = join(dir, 'store.sqlite');
    expect((await runCli(['init', '--sqlite', file])).code).toBe(0);
    const runId = `second_${randomBytes(4).toString('hex')}`;
    const queue = `smq_tester_${runId}`;
    const r = await interruptTwice(['--sqlite', file, '--duration', '60s', '--json'], { SMQ_TESTER_RUN_ID: runId });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain(`smq tester: left queue ${queue} behind: remove it with 'smq drop ${queue} --sqlite ${file} --yes'`);
    expect(existsSync(file)).toBe(true);
    expect((await runCli(['drop', queue, '--sqlite', file, '--yes'])).code).toBe(0);
  }, 60_000);
});
