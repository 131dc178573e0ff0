// The files `smq tester` writes (--html, --hdr-log), through the built binary: a path that
// would destroy something or cannot take a report is refused before the run (one line, exit 2,
// nothing written, the store as it was).
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { BIN, cleanEnv, ensureBuilt, runCli } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'smq-tester-outputs-'));
const store = join(dir, 'store.db');
const otherDb = join(dir, 'other.db');
const baseline = join(dir, 'base.json');

beforeAll(async () => {
  ensureBuilt();
  const init = await runCli(['init', '--sqlite', store]);
  expect(init.code, init.stderr).toBe(0);
  const other = new Database(otherDb);
  other.exec("CREATE TABLE notes (body text); INSERT INTO notes VALUES ('keep me')");
  other.close();
  writeFileSync(baseline, '{"not": "read before the refusal"}\n');
  symlinkSync(store, join(dir, 'link-to-store.db'));
  execFileSync('mkfifo', [join(dir, 'fifo')]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every file of the folder with its bytes (the fifo as a name only). */
function contents(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) out[name] = name === 'fifo' ? 'fifo' : readFileSync(join(dir, name)).toString('base64');
  return out;
}

const run = ['tester', '--sqlite', store, '--messages', '5'];

describe('smq tester: report files refused before the run', () => {
  test.each([
    ['--html the store itself', ['--html', store], /^smq: --html \S+store\.db is the SQLite store under test: /],
    ['--hdr-log the store itself', ['--hdr-log', store], /^smq: --hdr-log \S+store\.db is the SQLite store under test: /],
    [
      '--html the store by another path',
      ['--html', join(dir, '..', dir.split('/').at(-1)!, '.', 'store.db')],
      /is the SQLite store under test/,
    ],
    ['--html a symlink to the store', ['--html', join(dir, 'link-to-store.db')], /is the SQLite store under test/],
    ["--html the store's -wal", ['--html', `${store}-wal`], /^smq: --html \S+store\.db-wal is the SQLite store's write-ahead log: /],
    ["--hdr-log the store's -shm", ['--hdr-log', `${store}-shm`], /is the SQLite store's shared-memory file/],
    ["--html the store's -journal", ['--html', `${store}-journal`], /is the SQLite store's rollback journal/],
    [
      '--html and --hdr-log the same file',
      ['--html', join(dir, 'out'), '--hdr-log', join(dir, '.', 'out')],
      /^smq: --html and --hdr-log name the same file \S+out: give each its own file$/m,
    ],
    ['--html the --baseline file', ['--html', baseline, '--baseline', baseline], /^smq: --html \S+base\.json is the --baseline file: /],
    ['--html another SQLite database', ['--html', otherDb], /^smq: --html \S+other\.db is an SQLite database: /],
    ["--html ''", ['--html', ''], /^smq: --html was given an empty file name: /],
    ["--hdr-log ''", ['--hdr-log', ''], /^smq: --hdr-log was given an empty file name: /],
    ['--html /dev/full', ['--html', '/dev/full'], /^smq: --html \/dev\/full is a character device, not a regular file: /],
    ['--hdr-log /dev/null', ['--hdr-log', '/dev/null'], /^smq: --hdr-log \/dev\/null is a character device, not a regular file/],
    ['--html /proc/version', ['--html', '/proc/version'], /^smq: --html \/proc\/version is a file of the kernel's proc filesystem/],
    [
      '--html a new file in /proc',
      ['--html', '/proc/smq-report.html'],
      /^smq: --html \/proc\/smq-report\.html is a file of the kernel's proc/,
    ],
    ['--hdr-log a fifo', ['--hdr-log', join(dir, 'fifo')], /^smq: --hdr-log \S+fifo is a FIFO, not a regular file/],
    ['--html a folder', ['--html', dir], /^smq: --html \S+ is a folder: /],
  ])('%s: one line, exit 2, nothing written', async (_name, args, says) => {
    const before = contents();
    const r = await runCli([...run, ...args]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n'), 'one line on stderr').toHaveLength(1);
    expect(r.stderr).toMatch(says);
    expect(contents()).toEqual(before);
  });

  test('--html to the file stdout is redirected to: refused (the HTML would replace the text report)', async () => {
    const out = join(dir, 'stdout.txt');
    const fd = openSync(out, 'w');
    try {
      const r = execFileSync(process.execPath, [BIN, ...run, '--html', out], {
        env: cleanEnv(),
        stdio: ['ignore', fd, 'pipe'],
        encoding: 'utf8',
      });
      expect.unreachable(`exit 0: ${r}`);
    } catch (e) {
      const err = e as { status?: number; stderr?: string };
      expect(err.status).toBe(2);
      expect(err.stderr).toMatch(/^smq: --html \S+stdout\.txt is the file stdout goes to: /);
    } finally {
      closeSync(fd);
      rmSync(out, { force: true });
    }
  });

  test('a new file next to the store, and an existing report file, are still written', async () => {
    const html = join(dir, 'new.html');
    const hdr = join(dir, 'old.hlog');
    writeFileSync(hdr, 'an earlier log\n');
    const r = await runCli([...run, '--html', html, '--hdr-log', hdr], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(html, 'utf8')).toMatch(/^<!doctype html>/i);
    expect(readFileSync(hdr, 'utf8')).toMatch(/^#\[Histogram log format version/);
    expect(existsSync(store)).toBe(true);
    rmSync(html);
    rmSync(hdr);
  });
});

/**
 * A run whose --html folder is removed while it runs (at its first progress line): the HTML
 * report cannot be written at the end, whatever the checks before the run found.
 */
function runLosingHtmlFolder(extra: string[]): Promise<{ code: number | null; stdout: string; stderr: string; html: string; hdr: string }> {
  const gone = mkdtempSync(join(dir, 'gone-'));
  const html = join(gone, 'run.html');
  const hdr = join(dir, `kept-${Math.random().toString(36).slice(2)}.hlog`);
  const args = [BIN, 'tester', '--sqlite', store, '--duration', '2s', '--rate', '50', '--html', html, '--hdr-log', hdr, ...extra];
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (/sending/.test(stderr) && existsSync(gone)) rmSync(gone, { recursive: true });
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, html, hdr });
    });
  });
}

describe('smq tester: a report file that cannot be written after the run', () => {
  test('a clean run: one line naming the report, the file, the flag and the reason; the other reports kept; exit 1', async () => {
    const r = await runLosingHtmlFolder([]);
    expect(r.stdout).toMatch(/verdict +clean/);
    expect(r.stderr).toContain(`smq tester: could not write the HTML report to ${r.html} (--html): no such file or directory\n`);
    expect(r.stderr).not.toMatch(/ENOENT|the HTML report is in/);
    expect(readFileSync(r.hdr, 'utf8')).toMatch(/^#\[Histogram log format version/);
    expect(r.code).toBe(1);
  }, 90_000);

  test('a run with its own verdict code (--max-p99 missed: 5) keeps it, and says what was not written', async () => {
    const r = await runLosingHtmlFolder(['--max-p99', '0.001ms', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ verdict: 'clean', maxP99: { missed: true } });
    expect(r.stderr).toContain(`smq tester: could not write the HTML report to ${r.html} (--html): no such file or directory\n`);
    expect(r.code).toBe(5);
  }, 90_000);
});

describe('smq tester: an HdrHistogram log the disk stops taking during the run', () => {
  // A file-size limit of 1 KiB (ulimit -f; Node ignores SIGXFSZ, so the write fails with EFBIG)
  // lets the log's header through and refuses its first intervals. On PostgreSQL: the run itself
  // writes no other file.
  test('the report does not name the log as written; one line says why; the verdict stands', async () => {
    const hdr = join(dir, `limited-${Math.random().toString(36).slice(2)}.hlog`);
    const q = `hdr_${Math.random().toString(36).slice(2, 8)}`;
    const args = [BIN, 'tester', '--url', inject('pgUrl'), '--queue', q, '--duration', '3s', '--rate', '200', '--hdr-log', hdr, '--json'];
    const quoted = args.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
      const child = spawn('bash', ['-c', `ulimit -f 1; exec '${process.execPath}' ${quoted}`], {
        env: cleanEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', fail);
      child.on('close', (code) => {
        clearTimeout(timer);
        done({ code, stdout, stderr });
      });
    });
    expect(r.stderr).toContain(`smq tester: could not write the HdrHistogram log to ${hdr} (--hdr-log): `);
    const report = JSON.parse(r.stdout) as { verdict: string; hdrLog: string | null };
    expect(report.verdict).toBe('clean');
    expect(report.hdrLog).toBeNull();
    expect(r.code).toBe(1);
  }, 90_000);
});

describe('HdrLog: a write the disk takes only part of', () => {
  // The write that crosses the limit is cut short (writeSync returns fewer bytes and no error);
  // the log stops at that write, so the cut is the last thing written, and the failure must
  // still be seen. Real file, real limit: a child Node under `ulimit -f 1`.
  test('a short last write is a failure, not a log that ends mid-line', () => {
    const path = join(dir, `short-${Math.random().toString(36).slice(2)}.hlog`);
    const dist = join(BIN, '..', '..', 'dist', 'tester');
    const script = `
      import { statSync } from 'node:fs';
      import { HdrLog } from ${JSON.stringify(join(dist, 'hdr-log.js'))};
      import { newMergedHistogram, recordUs } from ${JSON.stringify(join(dist, 'histograms.js'))};
      const path = ${JSON.stringify(path)};
      const log = HdrLog.open(path);
      log.start(Date.now());
      for (let s = 0; statSync(path).size < 1024 && s < 1000; s++) {
        const h = newMergedHistogram();
        for (let i = 1; i < 200; i++) recordUs(h, i * 997 * (s + 1));
        log.interval(h, s);
      }
      log.close();
      process.stdout.write(JSON.stringify({ size: statSync(path).size, failure: log.failure?.code ?? null }));`;
    const out = execFileSync('bash', ['-c', `ulimit -f 1; exec '${process.execPath}' --input-type=module -e "$SCRIPT"`], {
      env: { ...cleanEnv(), SCRIPT: script },
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual({ size: 1024, failure: 'EFBIG' });
  });
});
