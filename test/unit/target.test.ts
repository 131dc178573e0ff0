import { describe, expect, test } from 'vitest';
import { parseUrl, redactSecrets, resolveTarget } from '../../src/backends/target.js';
import { SmqError } from '../../src/errors.js';

describe('redactSecrets', () => {
  test('removes every occurrence', () => {
    expect(redactSecrets('pw hunter2 and hunter2', ['hunter2', undefined])).toBe('pw *** and ***');
  });
});

describe('resolveTarget', () => {
  test('--sqlite and sqlite: URLs select SQLite', () => {
    expect(resolveTarget({ sqlite: 'a.db', env: {} })).toEqual({ kind: 'sqlite', path: 'a.db' });
    expect(resolveTarget({ url: 'sqlite:a.db', env: {} })).toEqual({ kind: 'sqlite', path: 'a.db' });
    expect(resolveTarget({ url: 'sqlite:///abs/a.db', env: {} })).toEqual({ kind: 'sqlite', path: '/abs/a.db' });
  });
  test('postgres URL, DATABASE_URL and PG* variables select pgmq', () => {
    expect(resolveTarget({ url: 'postgres://h/db', env: {} })).toEqual({ kind: 'pgmq', url: 'postgres://h/db' });
    expect(resolveTarget({ env: { DATABASE_URL: 'postgres://h/db' } })).toEqual({ kind: 'pgmq', url: 'postgres://h/db' });
    expect(resolveTarget({ env: { PGHOST: 'h' } })).toEqual({ kind: 'pgmq', url: undefined });
    expect(resolveTarget({ env: {} })).toBeUndefined();
  });
  test.each(['mysql://h/db', 'postgres://h:port/db', 'sqlite:', 'nonsense'])('%s is a usage error that hides passwords', (url) => {
    expect(() => parseUrl(url)).toThrow(SmqError);
    try {
      parseUrl(url);
    } catch (e) {
      expect((e as SmqError).exitCode).toBe(2);
    }
  });
  test('a malformed URL error does not show its password', () => {
    try {
      parseUrl('postgres://u:topsecret@h:notaport/db');
      expect.unreachable();
    } catch (e) {
      expect((e as SmqError).line()).not.toContain('topsecret');
    }
  });
});
