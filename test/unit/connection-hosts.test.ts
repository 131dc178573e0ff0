// Multi-host targets as libpq takes them: a URL's h1:5432,h2:5433, PGHOST/PGPORT lists (one
// port for every host, or one per host), target_session_attrs and PGTARGETSESSIONATTRS, the
// password file per host and port, and the shown form, which never holds a password.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { connectionSecrets, pgConnection } from '../../src/backends/pgmq/connection.js';
import { suits, TARGET_SESSION_ATTRS } from '../../src/backends/pgmq/hosts.js';
import { SmqError } from '../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'smq-hosts-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The usage error (exit 2, one line) a connection gives. */
function refusal(url: string | undefined, env: NodeJS.ProcessEnv = {}): SmqError {
  try {
    pgConnection(url, env);
  } catch (e) {
    expect(e).toBeInstanceOf(SmqError);
    expect((e as SmqError).exitCode).toBe(2);
    expect((e as SmqError).line()).not.toContain('\n');
    return e as SmqError;
  }
  throw new Error('accepted');
}

describe('host lists in a URL', () => {
  test('each host with its own port, target_session_attrs in the query', () => {
    const c = pgConnection('postgres://app:pw@h1:5432,h2:5433/db?target_session_attrs=read-write', {});
    expect(c.hosts).toEqual([
      { host: 'h1', port: 5432, password: 'pw' },
      { host: 'h2', port: 5433, password: 'pw' },
    ]);
    expect(c).toMatchObject({ host: 'h1', port: 5432, user: 'app', database: 'db', targetSessionAttrs: 'read-write' });
    expect(c.display).toBe('postgres://app:***@h1:5432,h2:5433/db?target_session_attrs=read-write');
  });

  test('a host without a port gets the default; IPv6 in brackets', () => {
    expect(pgConnection('postgres://u@h1,h2:6000/db', {}).hosts.map((h) => [h.host, h.port])).toEqual([
      ['h1', 5432],
      ['h2', 6000],
    ]);
    const v6 = pgConnection('postgres://u@[::1]:5432,[fe80::2]:5433/db', {});
    expect(v6.hosts.map((h) => [h.host, h.port])).toEqual([
      ['::1', 5432],
      ['fe80::2', 5433],
    ]);
    expect(v6.display).toBe('postgres://u@[::1]:5432,[fe80::2]:5433/db');
  });

  test('one host: as before, and the attribute is kept', () => {
    const c = pgConnection('postgres://u@h/db', {});
    expect(c.hosts).toEqual([{ host: 'h', port: 5432, password: undefined }]);
    expect(c.targetSessionAttrs).toBe('any');
    expect(c.display).toBe('postgres://u@h:5432/db');
    expect(pgConnection('postgres://u@h/db?target_session_attrs=primary', {}).display).toBe(
      'postgres://u@h:5432/db?target_session_attrs=primary',
    );
  });

  test('a raw password with a comma is not a host list', () => {
    const c = pgConnection('postgres://u:a,b:1@h1:5432,h2/db', {});
    expect(c.password).toBe('a,b:1');
    expect(c.hosts.map((h) => h.host)).toEqual(['h1', 'h2']);
  });

  test.each([
    ['postgres://u:SeCr3tPw@h1:54x2,h2/db', /port/],
    ['postgres://u:SeCr3tPw@h1:5432,h2:x/db', /port/],
    ['postgres://u:SeCr3tPw@h1:5432,[::1/db', /host/],
    ['postgres://u:SeCr3tPw@h1:99999,h2/db', /port/],
  ])('%s is refused in one line that does not show the password', (url, problem) => {
    const e = refusal(url);
    expect(e.line()).toMatch(problem);
    expect(e.line()).not.toContain('SeCr3tPw');
    expect(connectionSecrets(url, {})).toContain('SeCr3tPw');
  });
});

describe('PGHOST and PGPORT lists', () => {
  test('one port per host', () => {
    const c = pgConnection(undefined, { PGHOST: 'a,b', PGPORT: '5432,5433', PGDATABASE: 'db', PGUSER: 'u' });
    expect(c.hosts.map((h) => `${h.host}:${h.port}`)).toEqual(['a:5432', 'b:5433']);
    expect(c.display).toBe('postgres://u@a:5432,b:5433/db');
  });

  test('one port for every host; an empty entry is the default', () => {
    expect(pgConnection(undefined, { PGHOST: 'a,b', PGPORT: '6000', PGUSER: 'u' }).hosts.map((h) => h.port)).toEqual([6000, 6000]);
    expect(pgConnection(undefined, { PGHOST: 'a,b', PGPORT: '6000,', PGUSER: 'u' }).hosts.map((h) => h.port)).toEqual([6000, 5432]);
    expect(pgConnection(undefined, { PGHOST: 'a,,b', PGUSER: 'u' }).hosts.map((h) => h.host)).toEqual(['a', 'localhost', 'b']);
    expect(pgConnection('postgres://u@a,,b:6000/db', {}).hosts.map((h) => `${h.host}:${h.port}`)).toEqual([
      'a:5432',
      'localhost:5432',
      'b:6000',
    ]);
  });

  test('a count of ports that matches neither one nor the hosts: one usage line', () => {
    const e = refusal(undefined, { PGHOST: 'a,b,c', PGPORT: '1,2', PGUSER: 'u' });
    expect(e.line()).toBe(
      'could not match 2 port numbers to 3 hosts: give one port for every host, or one per host (--url, PGPORT or the service)',
    );
  });

  test('the URL wins over the variables, as for one host', () => {
    const env = { PGHOST: 'a,b', PGPORT: '1,2', PGTARGETSESSIONATTRS: 'standby' };
    const c = pgConnection('postgres://u@h1:7000,h2:7001/db', env);
    expect(c.hosts.map((h) => `${h.host}:${h.port}`)).toEqual(['h1:7000', 'h2:7001']);
    expect(c.targetSessionAttrs).toBe('standby');
    expect(pgConnection('postgres://u@h/db?target_session_attrs=any', { ...env, PGPORT: '6000' }).targetSessionAttrs).toBe('any');
    // As libpq: one host from the URL and two ports from PGPORT do not match.
    expect(refusal('postgres://u@h/db', env).line()).toMatch(/^could not match 2 port numbers to 1 hosts/);
  });
});

describe('target_session_attrs', () => {
  test.each(TARGET_SESSION_ATTRS)('%s is accepted', (attrs) => {
    expect(pgConnection(`postgres://u@h1,h2/db?target_session_attrs=${attrs}`, {}).targetSessionAttrs).toBe(attrs);
  });

  test('anything else is one usage line naming the values', () => {
    expect(refusal('postgres://u@h1,h2/db?target_session_attrs=master').line()).toBe(
      'invalid target_session_attrs "master": use one of any, read-write, read-only, primary, standby, prefer-standby',
    );
    expect(refusal(undefined, { PGHOST: 'h', PGTARGETSESSIONATTRS: 'READ-WRITE' }).line()).toMatch(/invalid target_session_attrs/);
    // A value that could be a piece of a password is not shown.
    const e = refusal('postgres://u@h1/db?target_session_attrs=x%20y@z');
    expect(e.line()).toMatch(/^invalid target_session_attrs \(not shown\)/);
  });

  test("libpq's meanings", () => {
    const primary = { inRecovery: false, readOnly: false };
    const readOnlyPrimary = { inRecovery: false, readOnly: true };
    const standby = { inRecovery: true, readOnly: true };
    const table = TARGET_SESSION_ATTRS.map((a) => [a, suits(a, primary), suits(a, readOnlyPrimary), suits(a, standby)]);
    expect(table).toEqual([
      ['any', true, true, true],
      ['read-write', true, false, false],
      ['read-only', false, true, true],
      ['primary', true, true, false],
      ['standby', false, false, true],
      // Its first pass; the second takes any server (see connector.ts).
      ['prefer-standby', false, false, true],
    ]);
  });
});

describe('load_balance_hosts', () => {
  test('random or disable; anything else is one usage line', () => {
    expect(pgConnection('postgres://u@h1,h2/db?load_balance_hosts=random', {}).loadBalance).toBe(true);
    expect(pgConnection('postgres://u@h1,h2/db?load_balance_hosts=disable', {}).loadBalance).toBe(false);
    expect(pgConnection('postgres://u@h1,h2/db', {}).loadBalance).toBe(false);
    expect(refusal('postgres://u@h1,h2/db?load_balance_hosts=sometimes').line()).toBe(
      'invalid load_balance_hosts "sometimes": use disable or random',
    );
  });
});

describe('passwords', () => {
  test('the password file per host and port; a given password for every host', () => {
    const file = join(dir, 'pgpass');
    writeFileSync(file, 'h1:5432:db:u:first\nh2:5433:db:u:second\n', { mode: 0o600 });
    const c = pgConnection('postgres://u@h1:5432,h2:5433,h3:5434/db', { PGPASSFILE: file });
    expect(c.hosts.map((h) => h.password)).toEqual(['first', 'second', undefined]);
    expect(c.secrets).toEqual(expect.arrayContaining(['first', 'second']));
    expect(c.display).toBe('postgres://u:***@h1:5432,h2:5433,h3:5434/db');
    const given = pgConnection('postgres://u:given@h1:5432,h2:5433/db', { PGPASSFILE: file });
    expect(given.hosts.map((h) => h.password)).toEqual(['given', 'given']);
  });
});
