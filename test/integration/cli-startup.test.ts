// What a command loads before it does anything: a script that calls `smq send` in a loop pays
// for every module at every start. The tester's engine, Ink and React are loaded only by the
// commands that run them. Loading them for every command cost, on the idle 2-core host
// (2026-12-06, median of 10 starts): `smq --version` 0.29 against 0.24 s, `smq send` on SQLite
// 0.36 against 0.32 s (Node alone starts in 0.09 s).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO, ensureBuilt, runCli } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'smq-startup-'));
beforeAll(() => ensureBuilt());
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
async function loaded(args: string[]): Promise<string[]> {
  const trace = join(dir, `trace-${n++}.txt`);
  const hook = join(REPO, 'test', 'helpers', 'module-trace.mjs');
  await runCli(args, { env: { NODE_OPTIONS: `--import=${hook}`, SMQ_TEST_MODULE_TRACE: trace } });
  return [...new Set(readFileSync(trace, 'utf8').split('\n').filter(Boolean))].map((u) => u.replace(`file://${REPO}/`, ''));
}

describe('what a command loads', () => {
  const heavy = (mods: string[]) =>
    mods.filter((m) =>
      /^dist\/tester\/(engine|pool|collector|checker|report|html\/)|^dist\/ui\/components\/|node_modules\/(ink|react|hdr-histogram-js)\//.test(
        m,
      ),
    );

  test('the trace sees the modules (the hook works)', async () => {
    const mods = await loaded(['--version']);
    expect(mods).toContain('dist/cli.js');
  });

  test.each([
    '--version',
    'queues --sqlite /nonexistent/smq.db',
    'send q {} --sqlite /nonexistent/smq.db',
    'peek q --sqlite /nonexistent/smq.db',
    'tester --help',
  ])('smq %s: no tester engine, no Ink, no React', async (args) => {
    expect(heavy(await loaded(args.split(' ')))).toEqual([]);
  });

  // Each command's module (and what only it needs) is loaded when that command runs: `smq peek`
  // does not compile send's, top's or the tester's option tables and handlers.
  test.each([
    ['peek q --sqlite /nonexistent/smq.db', 'peek'],
    ['send q {} --sqlite /nonexistent/smq.db', 'send'],
    ['queues --sqlite /nonexistent/smq.db', 'queues'],
    ['tester --sqlite /nonexistent/smq.db', 'tester'],
  ])('smq %s: loads its own command module and no other', async (args, own) => {
    const commands = (await loaded(args.split(' ')))
      .map((m) => /^dist\/commands\/([a-z]+)\.js$/.exec(m)?.[1])
      .filter((name) => name !== undefined && !['index', 'args', 'context', 'operands'].includes(name));
    expect(commands).toEqual([own]);
  });

  // Words that name a command but are an option's value (`--url peek`), or a mistyped command
  // before one (`sned … peek`): what yargs says then comes from every command, as before
  // commands were loaded on demand (a helper's differential run of both builds found these).
  test.each(['--help', '--help --url peek', '--url ls --help'])('smq %s lists every command', async (args) => {
    const help = (await runCli(args.split(' '))).stdout;
    for (const name of [
      'queues',
      'create',
      'drop',
      'purge',
      'send',
      'receive',
      'delete',
      'peek',
      'groups',
      'topics',
      'bind',
      'unbind',
      'notify',
      'init',
      'top',
      'tester',
    ]) {
      expect(help).toMatch(new RegExp(`^  smq ${name}\\b`, 'm'));
    }
  });

  test.each([
    ['sned dt_a peek', "smq: unknown command: did you mean send?: see 'smq peek --help'\n"],
    ['sned top', "smq: unknown command: did you mean send?: see 'smq top --help'\n"],
  ])('smq %s: the suggestion comes from every command', async (args, line) => {
    const r = await runCli(args.split(' '));
    expect(r.stderr).toBe(line);
    expect(r.code).toBe(2);
  });

  test('smq tester does load its engine (the check above would see it)', async () => {
    const mods = await loaded(['tester', '--messages', '20']);
    expect(heavy(mods)).toContain('dist/tester/engine.js');
  });
});
