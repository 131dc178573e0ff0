// The contexts file of smq top ($XDG_CONFIG_HOME/smq/contexts.ini): what it may say, and
// one line naming the file (and the line) for everything it may not.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { contextsFilePath, parseContextsFile, readContextsFile } from '../../src/config/contexts-file.js';
import { SmqError } from '../../src/errors.js';

const FILE = '/home/ops/.config/smq/contexts.ini';

function problem(text: string): SmqError {
  try {
    parseContextsFile(text, FILE);
  } catch (e) {
    expect(e).toBeInstanceOf(SmqError);
    return e as SmqError;
  }
  throw new Error('parsed without a problem');
}

describe('contextsFilePath', () => {
  test('XDG_CONFIG_HOME, else ~/.config; a relative XDG_CONFIG_HOME is ignored (XDG spec)', () => {
    expect(contextsFilePath({ XDG_CONFIG_HOME: '/x/conf', HOME: '/home/a' })).toBe('/x/conf/smq/contexts.ini');
    expect(contextsFilePath({ HOME: '/home/a' })).toBe('/home/a/.config/smq/contexts.ini');
    expect(contextsFilePath({ XDG_CONFIG_HOME: '', HOME: '/home/a' })).toBe('/home/a/.config/smq/contexts.ini');
    expect(contextsFilePath({ XDG_CONFIG_HOME: 'rel/conf', HOME: '/home/a' })).toBe('/home/a/.config/smq/contexts.ini');
  });
});

describe('parseContextsFile', () => {
  test('sections name contexts, in the order written; read-only per context', () => {
    const text = [
      '# operators',
      '[prod]',
      'url = postgres://ops@db1:5433/app',
      'read-only = true',
      '',
      '; staging',
      '[staging]',
      'url=postgres://ops@db2/app',
      '[local]',
      'sqlite = /var/lib/smoothmq.db',
      '[file-url]',
      'url = sqlite:/tmp/x.db',
    ].join('\n');
    const contexts = parseContextsFile(text, FILE);
    expect(contexts.map((c) => [c.name, c.target, c.readOnly])).toEqual([
      ['prod', { kind: 'pgmq', url: 'postgres://ops@db1:5433/app' }, true],
      ['staging', { kind: 'pgmq', url: 'postgres://ops@db2/app' }, false],
      ['local', { kind: 'sqlite', path: '/var/lib/smoothmq.db' }, false],
      ['file-url', { kind: 'sqlite', path: '/tmp/x.db' }, false],
    ]);
  });

  test('a relative SQLite path is relative to the file, ~/ to the home folder', () => {
    const contexts = parseContextsFile('[a]\nsqlite = data/a.db\n[b]\nsqlite = ~/b.db\n', FILE, { HOME: '/home/ops' });
    expect(contexts.map((c) => c.target)).toEqual([
      { kind: 'sqlite', path: '/home/ops/.config/smq/data/a.db' },
      { kind: 'sqlite', path: '/home/ops/b.db' },
    ]);
  });

  test('read-only takes true/false/yes/no/on/off/1/0', () => {
    const text = ['yes', 'no', 'on', 'off', '1', '0', 'TRUE'].map((v, i) => `[c${i}]\nsqlite = a${i}.db\nread-only = ${v}`).join('\n');
    expect(parseContextsFile(text, FILE).map((c) => c.readOnly)).toEqual([true, false, true, false, true, false, true]);
  });

  test('a percent-encoded password with @#/?: is read, and CRLF lines too', () => {
    const [c] = parseContextsFile('[p]\r\nurl = postgres://ops:p%40ss%23w%2Frd%3F%3A@db/app\r\n', FILE);
    expect(c!.target).toEqual({ kind: 'pgmq', url: 'postgres://ops:p%40ss%23w%2Frd%3F%3A@db/app' });
  });

  test.each([
    ['', /names no context/],
    ['# only a comment\n', /names no context/],
    ['url = postgres://h/db\n', /line 1: "url" before the first \[context\]/],
    ['[a]\nurl = postgres://h/db\n[a]\nsqlite = x.db\n', /line 3: context "a" is named twice/],
    ['[a]\n', /context "a" \(line 1\) has neither url nor sqlite/],
    ['[a]\nurl = postgres://h/db\nsqlite = x.db\n', /context "a" \(line 1\) has both url and sqlite/],
    ['[a]\nurl = postgres://h/db\nurl = postgres://h/db2\n', /line 3: "url" given twice in context "a"/],
    ['[a]\npasswd = hunter2\n', /line 2: unknown key "passwd"/],
    ['[a]\nthis line has no equals\n', /line 2: not key = value/],
    ['[]\nurl = postgres://h/db\n', /line 1: a context needs a name/],
    ['[a\nurl = postgres://h/db\n', /line 1: a context needs a name/],
    ['[a b\u0007]\nurl = postgres://h/db\n', /line 1: a context name may not hold control characters/],
    ['[a]\nurl = mysql://h/db\n', /line 2 \(context "a"\): unsupported URL scheme "mysql:"/],
    ['[a]\nurl = postgres://h:port/db\n', /line 2 \(context "a"\): malformed URL/],
    ['[a]\nsqlite =\n', /line 2 \(context "a"\): sqlite needs a file path/],
    ['[a]\nurl = postgres://h/db\nread-only = maybe\n', /line 3: read-only must be true or false, not "maybe"/],
  ])('%j: one line naming the file and the problem, exit 2', (text, expected) => {
    const e = problem(text);
    expect(e.exitCode).toBe(2);
    expect(e.line()).toContain(`contexts file ${JSON.stringify(FILE)}`);
    expect(e.line()).toMatch(expected);
    expect(e.line()).not.toContain('\n');
  });

  test('a URL it cannot read never shows its password', () => {
    const e = problem('[a]\nurl = postgres://ops:hunter#2@db/app\n');
    expect(e.line()).toMatch(/line 2 \(context "a"\): malformed URL/);
    expect(e.line()).not.toContain('hunter');
    const e2 = problem('[a]\nhunter2secret\n');
    expect(e2.line()).not.toContain('hunter2secret');
  });
});

describe('readContextsFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'smq-contexts-'));

  test('undefined when the file does not exist', () => {
    expect(readContextsFile(join(dir, 'none.ini'), {})).toBeUndefined();
  });

  test('a password in a file others can read is refused, without the password', () => {
    const file = join(dir, 'open.ini');
    writeFileSync(file, '[a]\nurl = postgres://ops:hunter2@db/app\n');
    chmodSync(file, 0o644);
    expect(() => readContextsFile(file, {})).toThrow(/holds a password and other users can read it \(mode 644\)/);
    try {
      readContextsFile(file, {});
    } catch (e) {
      expect((e as SmqError).exitCode).toBe(2);
      expect((e as SmqError).line()).toMatch(/: chmod 600 /);
      expect((e as SmqError).line()).not.toContain('hunter2');
    }
    chmodSync(file, 0o600);
    expect(readContextsFile(file, {})!.map((c) => c.name)).toEqual(['a']);
  });

  test('without a password the file may be readable by others', () => {
    const file = join(dir, 'nopass.ini');
    writeFileSync(file, '[a]\nurl = postgres://ops@db/app\n');
    chmodSync(file, 0o644);
    expect(readContextsFile(file, {})!.map((c) => c.name)).toEqual(['a']);
  });

  test('a folder where the file should be is one line, exit 2', () => {
    expect(() => readContextsFile(dir, {})).toThrow(/cannot read contexts file/);
  });
});
