// pgConnection: how smq reads a postgres connection (URL, service file, PG* variables).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { connectionSecrets, pgConnection } from '../../src/backends/pgmq/connection.js';
import { tlsAttempts } from '../../src/backends/pgmq/tls.js';
import { SmqError } from '../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'smq-conn-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the user part', () => {
  test('the last @ before the host ends it', () => {
    const c = pgConnection('postgres://app3:top@secret99@host/db', {});
    expect(c).toMatchObject({ user: 'app3', password: 'top@secret99', host: 'host', port: 5432, database: 'db' });
    expect(c.display).toBe('postgres://app3:***@host:5432/db');
    expect(c.secrets).toContain('top@secret99');
    expect(c.secrets).toContain('top%40secret99');
  });

  test.each([
    ['p@ss:w/rd%41#?x&y', 'raw, with #'],
    ['12345/abcdef', 'raw, a / after digits (would be read as a port and a database)'],
  ])('%s (%s) is refused without showing it', (password) => {
    const url = `postgres://u:${password}@h:5432/db`;
    let error: unknown;
    try {
      pgConnection(url, {});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SmqError);
    expect((error as SmqError).exitCode).toBe(2);
    expect((error as SmqError).line()).not.toContain(password.slice(0, 4));
    // bin/smq still knows what to scrub.
    expect(connectionSecrets(url, {}).some((s) => s.includes(password.slice(0, 4)))).toBe(true);
  });

  test('percent-encoded, every reserved character', () => {
    const password = 'p@ss:w/rd%41#?x&y= z';
    const c = pgConnection(`postgres://u:${encodeURIComponent(password)}@h/db`, {});
    expect(c.password).toBe(password);
    const q = pgConnection(`postgres://u@h/db?password=${encodeURIComponent(password)}`, {});
    expect(q.password).toBe(password);
    expect(q.display).toBe('postgres://u:***@h:5432/db');
  });

  test('a raw ? in the password: no piece of it is named as an unknown query parameter', () => {
    // The '?' ends the host part, so what follows reads as a query: "ss=x@h:5432/db".
    for (const url of ['postgres://u:pa?ss=x@h:5432/db', 'postgres://u:pa?sslx=y@h/db']) {
      let error: unknown;
      try {
        pgConnection(url, {});
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SmqError);
      expect((error as SmqError).exitCode).toBe(2);
      expect((error as SmqError).line()).not.toMatch(/"ss|"sslx/);
    }
  });

  test('the database name is percent-decoded whole, as libpq does', () => {
    const c = pgConnection('postgres://u@h/a%40b%23c%2Fd%3Fe%25f%20g', {});
    expect(c.database).toBe('a@b#c/d?e%f g');
    expect(c.display).toBe('postgres://u@h:5432/a%40b%23c%2Fd%3Fe%25f%20g');
  });

  test('a port out of range is named as such', () => {
    expect(() => pgConnection('postgres://u@h:99999/db', {})).toThrow(/the port is not a number from 1 to 65535/);
    expect(() => pgConnection('postgres://u@h:0/db', {})).toThrow(/the port is not a number from 1 to 65535/);
  });

  test('a % that starts no escape is a literal %', () => {
    expect(pgConnection('postgres://u:50%_off@h/db', {}).password).toBe('50%_off');
  });
});

describe('precedence: URL, then service, then PG* variables', () => {
  const file = join(dir, 'svc.conf');
  writeFileSync(file, '[s]\nhost = svchost\nport=6000\nuser=svcuser\npassword=svcpw\n[t]\nbad line\n');

  test('each source fills what the ones before it left out', () => {
    const env = { PGSERVICEFILE: file, PGSERVICE: 's', PGHOST: 'envhost', PGDATABASE: 'envdb', PGPASSWORD: 'envpw' };
    const c = pgConnection('postgres://urluser@/urldb', env);
    expect(c).toMatchObject({ user: 'urluser', host: 'svchost', port: 6000, database: 'urldb', password: 'svcpw' });
    expect(c.secrets).toEqual(expect.arrayContaining(['svcpw', 'envpw']));
    expect(pgConnection(undefined, env)).toMatchObject({ host: 'svchost', database: 'envdb' });
  });

  test('service errors, as libpq words them', () => {
    expect(() => pgConnection(undefined, { PGSERVICEFILE: file, PGSERVICE: 'nope', PGSYSCONFDIR: dir })).toThrow(
      'definition of service "nope" not found',
    );
    expect(() => pgConnection(undefined, { PGSERVICEFILE: file, PGSERVICE: 't' })).toThrow(/syntax error in service file .*line 7/);
  });
});

describe('sslmode', () => {
  const modes = (mode: string) => tlsAttempts(pgConnection(`postgres://h/db?sslmode=${mode}`, { HOME: dir }), { HOME: dir });

  test('libpq order of attempts', () => {
    expect(modes('disable')).toEqual([false]);
    expect(modes('allow')).toEqual([false, { rejectUnauthorized: false }]);
    expect(modes('prefer')).toEqual([{ rejectUnauthorized: false }, false]);
    expect(modes('require')).toEqual([{ rejectUnauthorized: false }]);
    expect(modes('verify-full')).toEqual([{}]);
    expect(() => modes('verify-ca')).toThrow(/needs a root certificate/);
    expect(() => modes('sometimes')).toThrow(/invalid sslmode/);
  });
});

describe('password file', () => {
  test('first matching line, * and \\: escapes, ignored unless private', () => {
    const file = join(dir, 'pgpass');
    writeFileSync(file, '# c\nh:5432:db:other:x1\nh:*:*:u:a\\:b\\\\c\nh:5432:db:u:later\n', { mode: 0o600 });
    const c = pgConnection('postgres://u@h/db', { PGPASSFILE: file });
    expect(c.password).toBe('a:b\\c');
    expect(c.display).toBe('postgres://u:***@h:5432/db');
    expect(c.secrets).toContain('a:b\\c');
    // Given elsewhere: the file is not read.
    expect(pgConnection('postgres://u:given@h/db', { PGPASSFILE: file }).password).toBe('given');
    writeFileSync(join(dir, 'open'), 'h:*:*:u:x\n', { mode: 0o644 });
    expect(pgConnection('postgres://u@h/db', { PGPASSFILE: join(dir, 'open') }).password).toBeUndefined();
  });
});

describe('connect_timeout', () => {
  const url = (value: string) => `postgres://u:Pw-secret7@h/db?connect_timeout=${encodeURIComponent(value)}`;
  const refusal = (f: () => unknown): SmqError => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(SmqError);
      return e as SmqError;
    }
    throw new Error('not refused');
  };

  test("whole seconds, as libpq takes them; 0 or less means smq's default", () => {
    expect(pgConnection(url('10'), {}).connectTimeoutMs).toBe(10_000);
    expect(pgConnection(url(' 7 '), {}).connectTimeoutMs).toBe(7_000);
    expect(pgConnection(url('0'), {}).connectTimeoutMs).toBeUndefined();
    expect(pgConnection(url('-3'), {}).connectTimeoutMs).toBeUndefined();
    expect(pgConnection('postgres://u@h/db', {}).connectTimeoutMs).toBeUndefined();
    expect(pgConnection('postgres://u@h/db', { PGCONNECT_TIMEOUT: '3' }).connectTimeoutMs).toBe(3_000);
  });

  test.each(['abc', '1.5', '10s', '', '1e3', '2147484'])('connect_timeout=%j is refused before connecting, exit 2, naming it', (value) => {
    const e = refusal(() => pgConnection(url(value), {}));
    expect(e.exitCode).toBe(2);
    expect(e.line()).toMatch(/connect_timeout/);
    expect(e.line()).not.toContain('Pw-secret7');
    expect(e.line()).not.toContain('\n');
  });

  test('PGCONNECT_TIMEOUT=abc too', () => {
    const e = refusal(() => pgConnection('postgres://u@h/db', { PGCONNECT_TIMEOUT: 'abc' }));
    expect(e.exitCode).toBe(2);
    expect(e.line()).toMatch(/connect_timeout/);
  });
});
