// smq top's contexts (issue 18) from the outside: the contexts file's problems are one line
// naming the file (exit 2) and never show a password; --once takes the context it starts on;
// --url and --sqlite given more than once, mixed, are switched with `:` in a real terminal,
// and a first store that is down leaves top on the next one, saying so.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import { openBackend } from '../../src/backends/index.js';
import { makeTempDir, uniqueQueue } from '../helpers/backends.js';
import { freePort } from '../helpers/pg-server.js';
import { runCli } from '../helpers/run-cli.js';
import { tmuxAvailable } from '../helpers/tmux.js';
import { killTop, requireBuild, startTop } from '../helpers/top-screen.js';

afterEach(killTop);
beforeAll(requireBuild);

const tmp = makeTempDir('smq-top-contexts-');
const sqlitePath = join(tmp.dir, 'smooth.db');
const queue = uniqueQueue('ctx');
afterAll(() => tmp.cleanup());

beforeAll(async () => {
  const b = await openBackend({ kind: 'sqlite', path: sqlitePath }, { create: true });
  await b.createQueue(queue);
  await b.send(queue, { body: 'hello' });
  await b.close();
});

/** A config folder whose contexts.ini says `text` (mode 600). */
function configWith(name: string, text: string): string {
  const dir = join(tmp.dir, name);
  mkdirSync(join(dir, 'smq'), { recursive: true });
  const file = join(dir, 'smq', 'contexts.ini');
  writeFileSync(file, text);
  chmodSync(file, 0o600);
  return dir;
}

describe('smq top: the contexts file from the command line', () => {
  test('a bad file: one line naming the file and the line, exit 2, the password not shown', async () => {
    const dir = configWith('bad', '[prod]\nurl = postgres://ops:hunter#2secret@db/app\n');
    const r = await runCli(['top', '--once'], { env: { XDG_CONFIG_HOME: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`contexts file "${join(dir, 'smq', 'contexts.ini')}": line 2 (context "prod"): malformed URL`);
    expect(r.stderr).not.toContain('hunter');
    expect(r.stdout).toBe('');
  });

  test('--context: an unknown name and a missing file are one line each, exit 2', async () => {
    const dir = configWith('two', `[a]\nsqlite = ${sqlitePath}\n[b]\nsqlite = ${sqlitePath}\n`);
    let r = await runCli(['top', '--once', '--context', 'c'], { env: { XDG_CONFIG_HOME: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^smq: no context "c" in .*contexts\.ini: it has a, b\n$/);
    r = await runCli(['top', '--once', '--context', 'a'], { env: { XDG_CONFIG_HOME: join(tmp.dir, 'none') } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^smq: --context a: there is no contexts file .*none\/smq\/contexts\.ini/);
  });

  test('--once prints the context it starts on; a down one is an error there (exit 1), not another store', async () => {
    const port = await freePort();
    const dir = configWith('once', `[down]\nurl = postgres://nobody@127.0.0.1:${port}/x\n[smooth]\nsqlite = ${sqlitePath}\n`);
    let r = await runCli(['top', '--once', '--context', 'smooth'], { env: { XDG_CONFIG_HOME: dir } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(queue);
    r = await runCli(['top', '--once'], { env: { XDG_CONFIG_HOME: dir } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });

  test('no store and no file: the one line names the contexts file too', async () => {
    const r = await runCli(['top', '--once'], { env: { XDG_CONFIG_HOME: join(tmp.dir, 'none') } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `smq: no database given: pass --url postgres://… or --sqlite PATH: or name stores in ${join(tmp.dir, 'none', 'smq', 'contexts.ini')}\n`,
    );
  });

  test('other commands still take one --url', async () => {
    const r = await runCli(['queues', '--url', 'postgres://a/b', '--url', 'postgres://c/d']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--url given more than once');
  });
});

describe.skipIf(!tmuxAvailable())('smq top: --url and --sqlite mixed, switched with : (real terminal)', () => {
  test('a first store that is down: one line, top starts on the next; : switches to the SQLite file and back', async () => {
    const url = inject('pgUrl');
    const down = `postgres://nobody@127.0.0.1:${await freePort()}/x`;
    const t = startTop(['--url', down, '--url', url, '--sqlite', sqlitePath, '--interval', '1'], { width: 120, height: 24 });
    let screen = await t.waitFor(/started on 127\.0\.0\.1:\d+\/smq_test · context 127\.0\.0\.1:\d+\/x: cannot connect/);
    expect(screen).toMatch(/smq top \[127\.0\.0\.1:\d+\/smq_test\] pgmq/);
    expect(screen).toContain(':***@127.0.0.1');
    expect(t.captureAll()).not.toContain(new URL(url).password);
    t.keys(':');
    screen = await t.waitFor('contexts · 3 stores');
    expect(screen).toMatch(/127\.0\.0\.1:\d+\/x +pgmq .* cannot connect/);
    t.keys('3');
    await t.waitFor(/smq top \[smooth\.db\] sqlite/);
    // The header changes first; the list says "loading…" until the file's first listing.
    screen = await t.waitFor(queue);
    expect(screen).toMatch(/smq top \[smooth\.db\] sqlite/);
    t.keys(':', 'Up', 'Enter');
    await t.waitFor(/smq top \[127\.0\.0\.1:\d+\/smq_test\] pgmq/);
    t.keys('q');
    expect(await t.waitForExit()).toBe(0);
  });
});
