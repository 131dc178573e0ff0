// A throwaway PostgreSQL 15 server for the test suite: its own data folder in a temp dir,
// a free port, scram passwords on TCP. It never touches a cluster it did not create.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const PG_BIN = process.env['SMQ_PG_BIN'] ?? '/usr/lib/postgresql/15/bin';
export const TEST_PG_PASSWORD = 'sekret-Pw_42';

export interface PgServer {
  readonly url: string;
  readonly adminUrl: string;
  readonly port: number;
  /** The superuser the URLs name (postgres when the suite runs as root). */
  readonly user: string;
  readonly dataDir: string;
  readonly socketDir: string;
  /** Stops the server for good and removes its folder. */
  stop(): void;
  /** `pg_ctl restart -m fast`; blocks this thread until the server is back. */
  restart(): void;
  /** The same without blocking the event loop (a tester in this thread keeps running). */
  restartAsync(): Promise<void>;
  /** `pg_ctl stop -m fast`, keeping the data: start() brings it back. Does not block. */
  halt(): Promise<void>;
  /** `pg_ctl stop -m immediate` (a crash, as a client sees it), keeping the data. Does not block. */
  kill(): Promise<void>;
  /** Starts a halted server again (same port and settings, `settings` on top for this start). Does not block. */
  start(settings?: Readonly<Record<string, string | number>>): Promise<void>;
  pgCtl(...args: string[]): void;
}

export interface PgServerOptions {
  /** Extra server settings (-c name=value), e.g. { max_connections: 20 }; they override the defaults. */
  readonly settings?: Readonly<Record<string, string | number>>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a server binary, as the postgres user when we are root (initdb refuses root). */
function ownerCommand(bin: string, args: string[]): [string, string[]] {
  const cmd = join(PG_BIN, bin);
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

export function runAsOwner(bin: string, args: string[]): void {
  const [file, argv] = ownerCommand(bin, args);
  const r = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) {
    throw new Error(`${bin} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  }
}

function runAsOwnerAsync(bin: string, args: string[]): Promise<void> {
  const [file, argv] = ownerCommand(bin, args);
  return new Promise((resolve, reject) => {
    execFile(file, argv, { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${bin} ${args.join(' ')} failed: ${stderr || stdout || err.message}`));
      else resolve();
    });
  });
}

/** A temp folder the server's owner may use (0700, chowned to postgres when we are root). */
export function makeOwnedRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'smq-pg-'));
  chownToOwner(root);
  chmodSync(root, 0o700);
  return root;
}

function chownToOwner(path: string): void {
  if (!isRoot()) return;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(path, uid, gid);
}

/** The superuser initdb makes (initdb refuses to run as root, so then it is postgres). */
export const serverUser = (): string => (isRoot() ? 'postgres' : userInfo().username);

const DEFAULT_SETTINGS: Readonly<Record<string, string | number>> = {
  listen_addresses: '127.0.0.1',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_connections: 200,
  shared_buffers: '256MB',
};

export async function startPgServer(options: PgServerOptions = {}): Promise<PgServer> {
  const root = makeOwnedRoot();
  const dataDir = join(root, 'data');
  const pwFile = join(root, 'pw');
  writeFileSync(pwFile, TEST_PG_PASSWORD + '\n');
  chownToOwner(pwFile);
  const user = serverUser();
  runAsOwner('initdb', [
    '-D',
    dataDir,
    '-U',
    user,
    '--pwfile',
    pwFile,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--locale=C.UTF-8',
    '--no-sync',
  ]);
  const server = await launchPgServer({ root, dataDir, settings: options.settings });
  runAsOwner('createdb', ['-h', server.socketDir, '-p', String(server.port), '-U', user, 'smq_test']);
  return server;
}

export interface LaunchOptions {
  /** The folder stop() removes; the socket lives here. */
  readonly root: string;
  /** A data folder ready to start (initdb's, or a base backup's). */
  readonly dataDir: string;
  readonly settings?: Readonly<Record<string, string | number>> | undefined;
}

/** Starts the server of an existing data folder on a free port. */
export async function launchPgServer({ root, dataDir, settings: extra }: LaunchOptions): Promise<PgServer> {
  const socketDir = root;
  const user = serverUser();
  const port = await freePort();
  const settings = { ...DEFAULT_SETTINGS, ...extra };
  const optsOf = (s: Readonly<Record<string, string | number>>) =>
    [`-p ${port}`, `-k ${socketDir}`, ...Object.entries(s).map(([k, v]) => `-c ${k}=${v}`)].join(' ');
  const opts = optsOf(settings);
  const log = join(root, 'server.log');
  const ctlArgs = (...args: string[]) => ['-D', dataDir, '-w', '-t', '60', ...args];
  const pgCtl = (...args: string[]) => runAsOwner('pg_ctl', ctlArgs(...args));
  // -o and -l on every start: a restarted postmaster must not inherit pg_ctl's output pipe
  // (spawnSync would then wait for the server to exit).
  pgCtl('-o', opts, '-l', log, 'start');
  const password = encodeURIComponent(TEST_PG_PASSWORD);
  return {
    url: `postgres://${user}:${password}@127.0.0.1:${port}/smq_test`,
    adminUrl: `postgres://${user}:${password}@127.0.0.1:${port}/postgres`,
    port,
    user,
    dataDir,
    socketDir,
    pgCtl,
    restart: () => pgCtl('-m', 'fast', '-o', opts, '-l', log, 'restart'),
    restartAsync: () => runAsOwnerAsync('pg_ctl', ctlArgs('-m', 'fast', '-o', opts, '-l', log, 'restart')),
    halt: () => runAsOwnerAsync('pg_ctl', ctlArgs('-m', 'fast', 'stop')),
    kill: () => runAsOwnerAsync('pg_ctl', ctlArgs('-m', 'immediate', 'stop')),
    start: (more = {}) => runAsOwnerAsync('pg_ctl', ctlArgs('-o', optsOf({ ...settings, ...more }), '-l', log, 'start')),
    stop() {
      try {
        // A halted server has nothing left to stop.
        if (existsSync(join(dataDir, 'postmaster.pid'))) pgCtl('-m', 'immediate', 'stop');
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
