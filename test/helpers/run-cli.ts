// Runs the built smq binary (node bin/smq.js) as a child process, the way a user or a
// script does, and collects its exit code and output.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync, utimesSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(REPO, 'bin', 'smq.js');

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time of the whole process, start to exit. */
  readonly ms: number;
}

export interface RunOptions {
  /** Written to stdin, which is then closed (stdin is always a pipe: never a terminal). */
  readonly input?: string;
  /** Added to a clean environment without DATABASE_URL, SMQ_URL or PG* variables. */
  readonly env?: Record<string, string | undefined>;
  /** Kill the process after this long (default 20 s). */
  readonly timeoutMs?: number;
}

/** The parent's environment minus everything that could point smq at a database. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^PG/.test(k) || k === 'DATABASE_URL' || k === 'SMQ_URL' || k === 'SMQ_DEBUG') continue;
    env[k] = v;
  }
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: REPO,
      env: cleanEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
    child.stdin.on('error', () => undefined); // the command may exit before reading stdin
    child.stdin.end(options.input ?? '');
  });
}

/** The NDJSON records of stdout. */
export function ndjson(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function newestMtime(dir: string, exts: RegExp): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p, exts));
    else if (exts.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function isStale(): boolean {
  const cli = join(REPO, 'dist', 'cli.js');
  if (!existsSync(cli)) return true;
  return newestMtime(join(REPO, 'src'), /\.tsx?$/) > statSync(cli).mtimeMs;
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * `npm test` builds before vitest runs; when a test file runs on its own, build dist/
 * here if any source is newer. Test files run in parallel, so one builds under a lock
 * (an atomic mkdir) and the others wait for it.
 */
export function ensureBuilt(): void {
  // Under `npm test` the build has just run; rebuilding while other test files spawn the
  // binary would let them import a half-written dist/.
  if (process.env['npm_lifecycle_event'] === 'test' && existsSync(join(REPO, 'dist', 'cli.js'))) return;
  if (!isStale()) return;
  const lock = join(tmpdir(), `smq-build-${createHash('sha1').update(REPO).digest('hex').slice(0, 12)}.lock`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a killed run: builds take seconds, so an old one is abandoned.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 180_000) rmdirSync(lock);
      } catch {
        // released meanwhile
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the build lock ${lock}`);
      sleepSync(200);
    }
  }
  try {
    if (!isStale()) return;
    const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    try {
      execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: REPO, stdio: 'pipe' });
    } catch {
      // Type errors still emit JavaScript (noEmitOnError is off); what matters is dist/cli.js.
    }
    // Sources that emit nothing new must not make every later run rebuild: mark the build time.
    const cli = join(REPO, 'dist', 'cli.js');
    if (!existsSync(cli)) throw new Error(`build failed: ${relative(REPO, cli)} is missing`);
    const now = new Date();
    utimesSync(cli, now, now);
  } finally {
    rmdirSync(lock);
  }
}
