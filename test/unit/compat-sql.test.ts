// The compat schema's files: one script in name order, ending with the version row that
// install.ts expects.
import { readdirSync, readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { COMPAT_SQL_DIR, COMPAT_VERSION, compareVersions, compatSql } from '../../src/backends/pgmq/install.js';

test('the script is the parts in name order, the version row last, at COMPAT_VERSION', () => {
  const parts = readdirSync(COMPAT_SQL_DIR).filter((f) => f.endsWith('.sql'));
  expect(parts.length).toBeGreaterThan(1);
  const script = compatSql();
  const at = [...parts].sort().map((f) => script.indexOf(readFileSync(new URL(f, COMPAT_SQL_DIR), 'utf8')));
  expect(at.every((i) => i >= 0)).toBe(true);
  expect([...at].sort((a, b) => a - b)).toEqual(at);
  expect(script.startsWith("-- smq's pgmq-compatible schema, part 1")).toBe(true);
  const tail = script.slice(script.lastIndexOf('UPDATE pgmq.smq_compat'));
  expect(tail).toContain(`SET version = '${COMPAT_VERSION}'`);
  expect(tail).toContain(`SELECT '${COMPAT_VERSION}' WHERE NOT EXISTS`);
});

test('versions compare number by number', () => {
  expect(compareVersions('1.10.0', '1.13.0')).toBeLessThan(0);
  expect(compareVersions('1.9.0', '1.10.0')).toBeLessThan(0);
  expect(compareVersions('1.13.0', '1.13.0')).toBe(0);
  expect(compareVersions('1.13.1', '1.13')).toBeGreaterThan(0);
});
