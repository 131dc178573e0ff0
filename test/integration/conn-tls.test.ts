// sslmode against a server that offers TLS (a throwaway PostgreSQL with a self-signed
// certificate made here by openssl), with pg_hba.conf allowing only TLS, then only plain
// TCP: allow and prefer must find the one the server takes, in libpq's order; require,
// verify-ca and verify-full must do what libpq's do; every failure is one line.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { ensureBuilt, runCli, type CliResult } from '../helpers/run-cli.js';
import { startPgServer, type PgServer } from '../helpers/pg-server.js';

const haveOpenssl = spawnSync('openssl', ['version']).status === 0;

let server: PgServer;
let certDir: string;
let cert: string;
let otherCa: string;

function makeCert(dir: string, name: string): { crt: string; key: string } {
  const crt = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      crt,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'pipe' },
  );
  return { crt, key };
}

/** Rewrites pg_hba.conf's TCP lines to `kind` (hostssl or hostnossl) and reloads. */
function onlyAllow(kind: 'hostssl' | 'hostnossl'): void {
  const hba = join(server.dataDir, 'pg_hba.conf');
  const text = readFileSync(hba, 'utf8').replace(/^(host|hostssl|hostnossl)(\s)/gm, `${kind}$2`);
  writeFileSync(hba, text);
  server.pgCtl('reload');
}

const url = (mode: string, extra = '') => `${server.url}?sslmode=${mode}${extra}`;
const oneLine = (r: CliResult) => r.stderr.trimEnd().split('\n');

async function expectConnects(mode: string, extra = ''): Promise<void> {
  const r = await runCli(['queues', '--json', '--url', url(mode, extra)]);
  expect(r.code, `sslmode=${mode}${extra}: ${r.stderr}`).toBe(0);
  expect(r.stderr).toBe('');
}

async function expectRefused(mode: string, says: RegExp, extra = ''): Promise<void> {
  const r = await runCli(['queues', '--json', '--url', url(mode, extra)]);
  expect(r.code, `sslmode=${mode}${extra}: ${r.stdout}`).toBe(1);
  expect(oneLine(r), r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(says);
  expect(r.stderr).not.toMatch(/SECURITY WARNING|Warning/);
}

beforeAll(async () => {
  if (!haveOpenssl) return;
  ensureBuilt();
  certDir = mkdtempSync(join(tmpdir(), 'smq-tls-'));
  const own = makeCert(certDir, 'server');
  otherCa = makeCert(certDir, 'other').crt;
  cert = own.crt;
  if (process.getuid?.() === 0) {
    // The server runs as postgres and insists that its key is its own and private.
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    for (const f of [certDir, own.crt, own.key]) chownSync(f, uid, gid);
  }
  chmodSync(certDir, 0o755);
  chmodSync(own.key, 0o600);
  server = await startPgServer({
    settings: { ssl: 'on', ssl_cert_file: own.crt, ssl_key_file: own.key, max_connections: 20, shared_buffers: '32MB' },
  });
  execFileSync(process.execPath, ['bin/smq.js', 'init', '--url', server.url], {
    stdio: 'pipe',
    cwd: join(import.meta.dirname, '..', '..'),
  });
}, 120_000);

afterAll(() => {
  server?.stop();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

describe.skipIf(!haveOpenssl)('sslmode against a server that offers TLS', () => {
  test('pg_hba allows TLS only: allow falls back to TLS, prefer and require use it, disable is refused', async () => {
    onlyAllow('hostssl');
    await expectConnects('allow');
    await expectConnects('prefer');
    await expectConnects('require');
    await expectRefused('disable', /no pg_hba.conf entry|no encryption/);
  }, 60_000);

  test('pg_hba allows plain TCP only: prefer falls back to it, require is refused in one line', async () => {
    onlyAllow('hostnossl');
    await expectConnects('prefer');
    await expectConnects('allow');
    await expectRefused('require', /no pg_hba.conf entry|SSL encryption/);
    onlyAllow('hostssl');
  }, 60_000);

  test('certificates: verify-ca and verify-full against sslrootcert; refused without it, or with another CA', async () => {
    onlyAllow('hostssl');
    await expectConnects('verify-ca', `&sslrootcert=${encodeURIComponent(cert)}`);
    await expectConnects('verify-full', `&sslrootcert=${encodeURIComponent(cert)}`);
    // libpq: require with a root certificate checks the chain.
    await expectRefused('require', /certificate was refused/, `&sslrootcert=${encodeURIComponent(otherCa)}`);
    await expectRefused('verify-full', /certificate was refused/);
    await expectRefused('verify-ca', /certificate was refused/, `&sslrootcert=${encodeURIComponent(otherCa)}`);
  }, 60_000);

  test("a tester worker's dedicated connection (its socket reads into a buffer of its own) speaks TLS when sslmode asks, and plain TCP when it falls back", async () => {
    const { openBackend } = await import('../../src/backends/index.js');
    const { Readable } = await import('node:stream');
    /** Whether the connection used TLS, and whether its reply came through a Readable stream (TLS) or its socket's own buffer (plain). */
    const roundTrip = async (mode: string): Promise<{ tls: boolean; streamed: boolean }> => {
      const applicationName = `smq-tls-${mode}-${process.pid}`;
      const b = await openBackend({ kind: 'pgmq', url: url(mode) }, { dedicated: true, applicationName });
      try {
        const q = `tls_${mode.replace('-', '_')}_${process.pid}`;
        await b.createQueue(q);
        const body = JSON.stringify({ p: 'z'.repeat(100_000) }); // a reply over several TLS records
        const id = await b.send(q, { body });
        const push = vi.spyOn(Readable.prototype, 'push');
        let streamed: boolean;
        let m;
        try {
          [m] = await b.receive(q, { qty: 1, vtSec: 30 });
          streamed = push.mock.calls.some(([chunk]) => chunk !== null);
        } finally {
          push.mockRestore();
        }
        expect(m?.id).toBe(id);
        expect(JSON.parse(m!.body)).toEqual(JSON.parse(body));
        await b.dropQueue(q);
        return { tls: await sslInUse(applicationName), streamed };
      } finally {
        await b.close();
      }
    };
    onlyAllow('hostssl');
    expect(await roundTrip('require')).toEqual({ tls: true, streamed: true });
    expect(await roundTrip('allow')).toEqual({ tls: true, streamed: true }); // plain refused first, then TLS
    onlyAllow('hostnossl');
    expect(await roundTrip('prefer')).toEqual({ tls: false, streamed: false }); // TLS refused first, then plain
    onlyAllow('hostssl');
  }, 60_000);
});

/** Whether the connection of that application name uses TLS, as the server sees it (a connection of the test's own asks). */
async function sslInUse(applicationName: string): Promise<boolean> {
  // Over the Unix socket: pg_hba.conf's local lines stay as they are whatever TCP allows.
  const admin = new pg.Client({ host: server.socketDir, port: server.port, user: server.user, database: 'smq_test' });
  await admin.connect();
  try {
    const r = await admin.query<{ ssl: boolean }>(
      'SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = $1',
      [applicationName],
    );
    expect(r.rows).toHaveLength(1);
    return r.rows[0]!.ssl;
  } finally {
    await admin.end();
  }
}
