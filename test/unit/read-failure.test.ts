// A file smq cannot read is said in words, with Node's code at the end for scripts: never a
// bare "(ENOENT)". Real files: missing, a directory, a path through a file, no permission.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { readReportFile } from '../../src/commands/report-file.js';
import { readContextsFile } from '../../src/config/contexts-file.js';
import { pgConnection } from '../../src/backends/pgmq/connection.js';
import { serviceParams } from '../../src/backends/pgmq/service-file.js';
import { tlsAttempts } from '../../src/backends/pgmq/tls.js';

const dir = mkdtempSync(join(tmpdir(), 'smq-read-failure-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'plain'), '{}');
mkdirSync(join(dir, 'sub'));

const failure = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('read');
};

describe('why a file cannot be read', () => {
  test('a report file: no such file, a path through a file', () => {
    expect(failure(() => readReportFile(join(dir, 'missing.json'), 'missing.json', 1000))).toBe(
      'cannot read missing.json: no such file (ENOENT)',
    );
    expect(failure(() => readReportFile(join(dir, 'plain', 'x.json'), 'plain/x.json', 1000))).toBe(
      'cannot read plain/x.json: a part of its path is a file, not a directory (ENOTDIR)',
    );
  });

  test.skipIf(process.getuid?.() === 0)('no permission (not as root, who reads anything)', () => {
    const locked = join(dir, 'locked.json');
    writeFileSync(locked, '{}');
    chmodSync(locked, 0);
    expect(failure(() => readReportFile(locked, 'locked.json', 1000))).toBe('cannot read locked.json: permission denied (EACCES)');
  });

  test('a contexts file that is a path through a file', () => {
    expect(failure(() => readContextsFile(join(dir, 'plain', 'contexts'), {}))).toBe(
      `cannot read contexts file ${JSON.stringify(join(dir, 'plain', 'contexts'))}: a part of its path is a file, not a directory (ENOTDIR)`,
    );
  });
});

// A FIFO with no writer (or an endless device) named as a contexts file, a service file or a
// TLS file: refused at once by what it is, never waited on or read without end.
describe.skipIf(process.platform === 'win32')('not a regular file', () => {
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);

  test.each([fifo, '/dev/zero'])('%s: refused at once', (path) => {
    const started = Date.now();
    expect(failure(() => readContextsFile(path, {}))).toBe(
      `cannot read contexts file ${JSON.stringify(path)}: it is not a regular file (a FIFO, a device or a socket)`,
    );
    expect(failure(() => serviceParams('x', { PGSERVICEFILE: path }, new Set(['host'])))).toMatch(
      /: it is not a regular file \(a FIFO, a device or a socket\)$/,
    );
    expect(
      failure(() => tlsAttempts(pgConnection(`postgres://u@h/db?sslmode=verify-full&sslrootcert=${encodeURIComponent(path)}`), {})),
    ).toMatch(/^cannot read sslrootcert file .*: it is not a regular file \(a FIFO, a device or a socket\)$/);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
