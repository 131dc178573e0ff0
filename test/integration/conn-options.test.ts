// How smq reads a connection besides the URL's user part: libpq's service file
// (PGSERVICE, PGSERVICEFILE, ?service=), sslmode (prefer/allow fall back to plain TCP,
// require fails in one line), and options given twice. Against the suite's real Postgres
// (which does not offer TLS) through the real CLI.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { ensureBuilt, runCli, type CliResult } from '../helpers/run-cli.js';

let dir: string;
let base: URL;
let password: string;
const oneLine = (r: CliResult) => r.stderr.trimEnd().split('\n');

beforeAll(() => {
  ensureBuilt();
  base = new URL(inject('pgUrl'));
  password = decodeURIComponent(base.password);
  dir = mkdtempSync(join(tmpdir(), 'smq-conn-'));
  // A service file as libpq reads it: sections, key=value, comments, blank lines, spaces.
  writeFileSync(
    join(dir, 'services.conf'),
    [
      '# smq test services',
      '[suite]',
      `host=${base.hostname}`,
      `port = ${base.port}`,
      `user=${decodeURIComponent(base.username)}`,
      `password=${password}`,
      'dbname=smq_test',
      '',
      '[nodb]',
      `host=${base.hostname}`,
      `port=${base.port}`,
      `user=${decodeURIComponent(base.username)}`,
      `password=${password}`,
      'dbname=smq_no_such_db',
    ].join('\n') + '\n',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('service file', () => {
  test('PGSERVICE + PGSERVICEFILE: connects where the service says, shows it without the password', async () => {
    const r = await runCli(['init', '--json'], { env: { PGSERVICE: 'suite', PGSERVICEFILE: join(dir, 'services.conf') } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).location).toBe(`postgres://${base.username}:***@${base.hostname}:${base.port}/smq_test`);
    expect(r.stdout + r.stderr).not.toContain(password);
  });

  test('?service= in the URL, and the URL wins over the service', async () => {
    const env = { PGSERVICEFILE: join(dir, 'services.conf') };
    const ok = await runCli(['queues', '--json', '--url', 'postgres:///smq_test?service=nodb'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    const bad = await runCli(['queues', '--json'], { env: { ...env, PGSERVICE: 'nodb' } });
    expect(bad.code).toBe(1);
    expect(oneLine(bad)).toHaveLength(1);
    expect(bad.stderr).toContain('smq_no_such_db');
    expect(bad.stderr).not.toContain(password);
  });

  test('~/.pg_service.conf when PGSERVICEFILE is not set, then PGSYSCONFDIR/pg_service.conf', async () => {
    const home = join(dir, 'home');
    const sys = join(dir, 'sys');
    for (const d of [home, sys]) rmSync(d, { recursive: true, force: true });
    await import('node:fs').then((fs) => {
      fs.mkdirSync(home);
      fs.mkdirSync(sys);
      fs.copyFileSync(join(dir, 'services.conf'), join(sys, 'pg_service.conf'));
      fs.writeFileSync(join(home, '.pg_service.conf'), '[other]\nhost=nowhere.invalid\n');
    });
    const r = await runCli(['queues', '--json'], { env: { HOME: home, PGSERVICE: 'suite', PGSYSCONFDIR: sys } });
    expect(r.code, r.stderr).toBe(0);
  });

  test('an unknown service is an error in one line, as libpq says it', async () => {
    const r = await runCli(['queues'], { env: { PGSERVICE: 'nope', PGSERVICEFILE: join(dir, 'services.conf'), PGSYSCONFDIR: dir } });
    expect(r.code).toBe(2);
    expect(oneLine(r)).toEqual([
      'smq: definition of service "nope" not found: check PGSERVICE or ?service= and the service file (PGSERVICEFILE, ~/.pg_service.conf)',
    ]);
  });
});

describe('password file', () => {
  test('PGPASSFILE: smq reads it as libpq does (escapes, *), connects, shows ***, never the password', async () => {
    const file = join(dir, 'pgpass');
    const user = decodeURIComponent(base.username);
    const escaped = password.replace(/[\\:]/g, (c) => `\\${c}`);
    writeFileSync(file, `# comment\nother:1:*:*:nope\n${base.hostname}:${base.port}:*:${user}:${escaped}\n`, { mode: 0o600 });
    const url = `postgres://${base.username}@${base.hostname}:${base.port}`;
    const ok = await runCli(['init', '--json', '--url', `${url}/smq_test`], { env: { PGPASSFILE: file } });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).location).toBe(`postgres://${base.username}:***@${base.hostname}:${base.port}/smq_test`);
    const bad = await runCli(['queues', '--url', `${url}/smq_no_such_db`], { env: { PGPASSFILE: file, SMQ_DEBUG: '1' } });
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).not.toContain(password);
  });
});

describe('sslmode', () => {
  const url = (mode: string) => `${base.toString()}?sslmode=${mode}`;

  test.each(['prefer', 'allow', 'disable'])('sslmode=%s on a server without TLS connects over plain TCP, silently', async (mode) => {
    const r = await runCli(['queues', '--json', '--url', url(mode)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });

  test('PGSSLMODE=prefer the same', async () => {
    const r = await runCli(['queues', '--json', '--url', base.toString()], { env: { PGSSLMODE: 'prefer' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });

  test.each(['require', 'verify-full'])('sslmode=%s on a server without TLS fails in one line, no SECURITY WARNING', async (mode) => {
    const r = await runCli(['queues', '--url', url(mode)]);
    expect(r.code).toBe(1);
    expect(oneLine(r)).toHaveLength(1);
    expect(r.stderr).not.toMatch(/SECURITY WARNING|DeprecationWarning|Warning/);
    expect(r.stderr).toMatch(/does not offer TLS|does not support SSL/);
    expect(r.stderr).not.toContain(password);
  });

  test('an unknown sslmode is a usage error', async () => {
    const r = await runCli(['queues', '--url', url('sometimes')]);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toHaveLength(1);
    expect(r.stderr).toContain('sslmode');
  });
});

describe('options given twice, odd ids, init on an empty file', () => {
  test.each([
    [['queues', '--url', 'postgres://a/db', '--url', 'postgres://b/db']],
    [['queues', '--sqlite', 'a.db', '--sqlite', 'b.db']],
    [['queues', '--url=postgres://u:hunter2@a/db', '--url=postgres://b/db']],
  ])('%j: one usage line, exit 2', async (args) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toHaveLength(1);
    expect(r.stderr).toMatch(/given (twice|more than once)/);
    expect(r.stderr).not.toContain('hunter2');
    expect(r.stderr).not.toContain('startsWith');
  });

  test.each([' 1', '1 ', '\t1', '1\n'])('message id %j is refused', async (id) => {
    const file = join(dir, `ids-${randomBytes(3).toString('hex')}.db`);
    expect((await runCli(['init', '--sqlite', file])).code).toBe(0);
    expect((await runCli(['create', 'q', '--sqlite', file])).code).toBe(0);
    for (const args of [
      ['delete', 'q', id, '--yes'],
      ['peek', 'q', '--id', id],
    ]) {
      const r = await runCli([...args, '--sqlite', file]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/invalid (message id|--id)/);
    }
  });

  test('smq init --sqlite on a zero-byte file reports created: true', async () => {
    const file = join(dir, 'empty.db');
    writeFileSync(file, '');
    const r = await runCli(['init', '--json', '--sqlite', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ created: true });
    const db = new Database(file, { readonly: true });
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'queues'").get()).toEqual({ n: 1 });
    db.close();
    const again = await runCli(['init', '--json', '--sqlite', file]);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: false });
  });
});
