// A throwaway PostgreSQL 15 server for the test suite: its own data folder in a temp dir,
// a free port, scram passwords on TCP. It never touches a cluster it did not create.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const PG_BIN = process.env['SMQ_PG_BIN'] ?? '/usr/lib/postgresql/15/bin';
export const TEST_PG_PASSWORD = 'sekret-Pw_42';

export interface PgServer {
  readonly url: string;
  readonly adminUrl: string;
  readonly port: number;
  readonly dataDir: string;
  readonly socketDir: string;
  stop(): void;
  restart(): void;
  pgCtl(...args: string[]): void;
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
function runAsOwner(bin: string, args: string[]): void {
  const cmd = join(PG_BIN, bin);
  const [file, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  const r = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) {
    throw new Error(`${bin} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  }
}

export async function startPgServer(): Promise<PgServer> {
  const root = mkdtempSync(join(tmpdir(), 'smq-pg-'));
  const dataDir = join(root, 'data');
  const socketDir = root;
  const pwFile = join(root, 'pw');
  writeFileSync(pwFile, TEST_PG_PASSWORD + '\n');
  if (isRoot()) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(root, uid, gid);
    chownSync(pwFile, uid, gid);
  }
  chmodSync(root, 0o700);
  const user = isRoot() ? 'postgres' : userInfo().username;
  runAsOwner('initdb', [
    '-D', dataDir, '-U', user, '--pwfile', pwFile, '--auth-local=trust', '--auth-host=scram-sha-256',
    '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync',
  ]);
  const port = await freePort();
  const opts = [
    `-p ${port}`, `-k ${socketDir}`, "-c listen_addresses=127.0.0.1", '-c fsync=off',
    '-c synchronous_commit=off', '-c full_page_writes=off', '-c max_connections=200', '-c shared_buffers=256MB',
  ].join(' ');
  const pgCtl = (...args: string[]) => runAsOwner('pg_ctl', ['-D', dataDir, '-w', '-t', '60', ...args]);
  pgCtl('-o', opts, '-l', join(root, 'server.log'), 'start');
  const adminUrl = `postgres://${user}:${encodeURIComponent(TEST_PG_PASSWORD)}@127.0.0.1:${port}/postgres`;
  const url = `postgres://${user}:${encodeURIComponent(TEST_PG_PASSWORD)}@127.0.0.1:${port}/smq_test`;
  runAsOwner('createdb', ['-h', socketDir, '-p', String(port), '-U', user, 'smq_test']);
  return {
    url,
    adminUrl,
    port,
    dataDir,
    socketDir,
    pgCtl,
    restart: () => pgCtl('-m', 'fast', 'restart'),
    stop() {
      try {
        pgCtl('-m', 'immediate', 'stop');
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
