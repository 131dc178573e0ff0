// The tester's progress lines on a SQLite file another process locks (BEGIN EXCLUSIVE, from a
// child node process with its own better-sqlite3 connection): every sender and receiver thread
// blocks in its call (the driver answers synchronously) and reports nothing. The lines must say
// so with rates of 0, not the last rates seen before the lock; and the backlog must not grow
// on old seconds while the drain says nothing is left.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { BIN, REPO, cleanEnv, ensureBuilt, runCli } from '../helpers/run-cli.js';

ensureBuilt();
const dir = mkdtempSync(join(tmpdir(), 'smq-live-locked-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Another process holds an exclusive lock on `file` for `ms`; resolves once it holds it. */
function holdLock(file: string, ms: number): Promise<ChildProcess> {
  const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
  const script = `const D = require(${JSON.stringify(sqlite)}); const db = new D(${JSON.stringify(file)}, { timeout: 10000 });
db.exec('BEGIN EXCLUSIVE'); process.stdout.write('locked\\n');
setTimeout(() => { db.exec('COMMIT'); db.close(); process.exit(0); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => d.includes('locked') && resolve(child));
    child.on('exit', (code) => reject(new Error(`the lock holder exited (${code}) before it held the lock`)));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the progress lines while the SQLite file is locked by another process', () => {
  test('all blocked: the rates are 0, the backlog agrees with the drain', async () => {
    const file = join(dir, 'lk.db');
    expect((await runCli(['init', '--sqlite', file])).code).toBe(0);
    const tester = spawn(process.execPath, [BIN, 'tester', '--sqlite', file, '--duration', '9s', '--rate', '100', '--vt', '3s'], {
      cwd: REPO,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(tester);
    let stderr = '';
    tester.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    tester.stdout.resume();
    const exited = new Promise<number | null>((resolve) => tester.on('close', resolve));
    // Two seconds of 100/s first, then the lock for 6 s (longer than the 5-s busy timeout).
    for (let i = 0; i < 100 && !/^\[2\.\d+s\]/m.test(stderr); i++) await sleep(100);
    await holdLock(file, 6000);
    expect(await exited).toBe(0);
    const lines = stderr.split('\n').filter((l) => l.startsWith('['));
    const blocked = lines.filter((l) => /all blocked \(store locked\?\)/.test(l));
    expect(blocked.length, stderr).toBeGreaterThanOrEqual(2);
    for (const l of blocked) expect(l).toMatch(/ 0\/s out 0\/s in /);
    for (const l of lines.filter((x) => /draining: 0 to go/.test(x))) expect(l).not.toMatch(/backlog [1-9][\d,]* \(growing\)/);
  }, 90_000);
});
