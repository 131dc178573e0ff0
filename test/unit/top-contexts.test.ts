// Which stores smq top can switch between: --url / --sqlite given more than once (mixed), or
// the contexts file (--context NAME picks one); one store as before otherwise.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { topContextsOf } from '../../src/commands/top-contexts.js';
import { SmqError } from '../../src/errors.js';

const home = mkdtempSync(join(tmpdir(), 'smq-top-contexts-'));
const withFile = mkdtempSync(join(tmpdir(), 'smq-top-contexts-xdg-'));
mkdirSync(join(withFile, 'smq'));
writeFileSync(
  join(withFile, 'smq', 'contexts.ini'),
  '[prod]\nurl = postgres://ops@db1/app\nread-only = yes\n[local]\nsqlite = /tmp/local.db\n',
);
const FILE_ENV = { HOME: home, XDG_CONFIG_HOME: withFile };
const NO_FILE_ENV = { HOME: home, XDG_CONFIG_HOME: join(home, 'nothing') };

function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SmqError);
    expect((e as SmqError).exitCode).toBe(2);
    return (e as SmqError).line();
  }
  throw new Error('no error');
}

describe('topContextsOf', () => {
  test('--url and --sqlite given more than once, mixed: each a context named after its host or file, URLs first', () => {
    const found = topContextsOf({ url: ['postgres://a:pw@h1/db1', 'postgres://a@h2:5433/db2'], sqlite: '/x/s.db' }, NO_FILE_ENV);
    expect(found!.contexts.map((c) => [c.name, c.target.kind, c.readOnly])).toEqual([
      ['h1:5432/db1', 'pgmq', false],
      ['h2:5433/db2', 'pgmq', false],
      ['s.db', 'sqlite', false],
    ]);
    expect(found!.start).toBe(0);
    expect(JSON.stringify(found)).not.toContain(':pw@h1:5432');
  });

  test('one --url and one --sqlite are two contexts; --read-only makes every context read-only', () => {
    const found = topContextsOf({ url: 'postgres://h1/db1', sqlite: 's.db', readOnly: true }, NO_FILE_ENV);
    expect(found!.contexts.map((c) => [c.name, c.readOnly])).toEqual([
      ['h1:5432/db1', true],
      ['s.db', true],
    ]);
  });

  test('two stores with the same name are told apart', () => {
    const found = topContextsOf({ sqlite: ['/a/q.db', '/b/q.db'] }, NO_FILE_ENV);
    expect(found!.contexts.map((c) => c.name)).toEqual(['q.db', 'q.db (2)']);
  });

  test('one store, or one from the environment, is top as before (no contexts)', () => {
    expect(topContextsOf({ url: 'postgres://h/db' }, FILE_ENV)).toBeUndefined();
    expect(topContextsOf({ sqlite: 'a.db' }, FILE_ENV)).toBeUndefined();
    expect(topContextsOf({}, { ...FILE_ENV, DATABASE_URL: 'postgres://h/db' })).toBeUndefined();
    expect(topContextsOf({}, { ...FILE_ENV, PGHOST: 'h' })).toBeUndefined();
    expect(topContextsOf({}, NO_FILE_ENV)).toBeUndefined();
  });

  test('nothing else given: the file, starting with its first context', () => {
    const found = topContextsOf({}, FILE_ENV);
    expect(found!.contexts.map((c) => [c.name, c.readOnly])).toEqual([
      ['prod', true],
      ['local', false],
    ]);
    expect(found!.start).toBe(0);
    expect(found!.file).toBe(join(withFile, 'smq', 'contexts.ini'));
  });

  test('--context NAME starts there (also when DATABASE_URL is set); --read-only still wins', () => {
    const found = topContextsOf({ context: 'local', readOnly: true }, { ...FILE_ENV, DATABASE_URL: 'postgres://h/db' });
    expect(found!.start).toBe(1);
    expect(found!.contexts.every((c) => c.readOnly)).toBe(true);
  });

  test('--context: unknown name, no file, or with --url: one line, exit 2', () => {
    expect(usage(() => topContextsOf({ context: 'nope' }, FILE_ENV))).toMatch(/no context "nope" in .*contexts\.ini: it has prod, local/);
    expect(usage(() => topContextsOf({ context: 'prod' }, NO_FILE_ENV))).toMatch(
      /--context prod: there is no contexts file .*nothing\/smq\/contexts\.ini/,
    );
    expect(usage(() => topContextsOf({ context: 'prod', url: 'postgres://h/db' }, FILE_ENV))).toMatch(
      /--context picks a store from the contexts file; --url and --sqlite name stores themselves/,
    );
  });

  test('a bad URL among several is refused without showing it', () => {
    const line = usage(() => topContextsOf({ url: ['postgres://h/db', 'postgres://u:se#cret@h/db'] }, NO_FILE_ENV));
    expect(line).toMatch(/malformed URL/);
    expect(line).not.toContain('se#cret');
    expect(usage(() => topContextsOf({ sqlite: ['a.db', ''] }, NO_FILE_ENV))).toMatch(/--sqlite needs a file path/);
  });
});
