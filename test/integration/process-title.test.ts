// `ps -ef` shows every process's command line to every local user. smq's shows its
// arguments with the password starred, for as long as it runs (a `smq top` runs for hours).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { BIN, cleanEnv, ensureBuilt } from '../helpers/run-cli.js';

beforeAll(() => ensureBuilt());
const children: ReturnType<typeof spawn>[] = [];
afterAll(() => children.forEach((c) => c.kill('SIGKILL')));

test("the password given in --url is not in the process's command line", async () => {
  const url = new URL(inject('pgUrl'));
  const password = decodeURIComponent(url.password);
  expect(password.length).toBeGreaterThan(3);
  url.password = encodeURIComponent(`${password}`);
  // A send from stdin waits for its input: the process sits there while we look at it.
  const child = spawn(process.execPath, [BIN, '--url', url.toString(), 'send', 'title_q'], {
    env: cleanEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  const cmdline = () => readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').replace(/\0+$/, '').replace(/\0/g, ' ');
  const deadline = Date.now() + 10_000;
  while (!cmdline().startsWith('smq ') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const shown = cmdline();
  expect(shown).toMatch(/^smq --url postgres:\/\/\S+:\*\*\*@\S+ send title_q$/);
  for (const form of [password, encodeURIComponent(password)]) expect(shown).not.toContain(form);
  child.stdin!.end();
  await new Promise((r) => child.on('exit', r));
});

test('the password leaves the command line before smq loads its modules, not after', async () => {
  const url = new URL(inject('pgUrl'));
  const password = decodeURIComponent(url.password);
  const child = spawn(process.execPath, [BIN, '--url', url.toString(), 'send', 'title_q'], {
    env: cleanEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  const path = `/proc/${child.pid}/cmdline`;
  // Every command line seen, read as fast as this thread can, until the full title shows.
  const seen: string[] = [];
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8').replace(/\0+$/, '').replace(/\0/g, ' ');
    } catch {
      continue; // not there yet
    }
    if (seen.at(-1) !== text) seen.push(text);
    if (text.startsWith('smq --url')) break;
  }
  // Node's own start shows the command line as given; smq's first statement sets a bare title,
  // then (once its modules are loaded, about 150 ms here) the arguments with the password starred.
  expect(seen.at(-1)).toMatch(/^smq --url /);
  expect(seen, JSON.stringify(seen.map((s) => s.replace(password, '<password>')))).toContain('smq');
  expect(seen.indexOf('smq')).toBeLessThan(seen.length - 1);
  child.stdin!.end();
  await new Promise((r) => child.on('exit', r));
});
