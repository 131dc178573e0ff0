// `p` in the message view (issue 18): the message whole in $PAGER, top stepping aside and
// coming back; a pager that is missing or fails is one line. The pager here is a shell
// command writing to a file, so no terminal is needed.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, test } from 'vitest';
import type { Capabilities, Message } from '../../src/backends/types.js';
import { pagerText } from '../../src/ui/model/pager-text.js';
import { pagerCommands, pagerProblem, runPager } from '../../src/ui/pager.js';
import { commandFor } from '../../src/ui/model/keys.js';

const CAPS = { headers: true, attributes: false, maxRetries: false, lastReadAt: true, archive: true } as Capabilities;
const msg = (body: string, headers: Message['headers'] = null): Message => ({
  id: 7n,
  state: 'ready',
  readCount: 1,
  enqueuedAt: new Date(0),
  visibleAt: new Date(0),
  lastReadAt: null,
  body,
  headers,
});
const dir = mkdtempSync(join(tmpdir(), 'smq-pager-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fakeTerminal(env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const stdout = new PassThrough() as unknown as NodeJS.WriteStream;
  stdout.write = ((s: string) => out.push(s) > 0) as NodeJS.WriteStream['write'];
  let redraws = 0;
  const term = { stdin: new PassThrough() as unknown as NodeJS.ReadStream, stdout, env, redraw: () => redraws++ };
  return { term, out, redraws: () => redraws };
}

describe('the text for the pager', () => {
  test('whole lines (no 1,000-character cut), headers as pretty JSON, escapes escaped', () => {
    const long = 'x'.repeat(5000);
    const text = pagerText(
      msg(JSON.stringify({ a: long, red: '\u001b[31mred', rtl: 'שלום 👍🏽' }), { 'x-trace': 'a\u0007b' }),
      CAPS,
      'orders',
      0,
    );
    expect(text).toContain(`"a": "${long}"`);
    expect(text).toContain('"red": "\\u001b[31mred"'); // JSON's own escape, as stored
    expect(text).toContain('"rtl": "שלום 👍🏽"');
    expect(text).toMatch(/headers \(JSON\):\n\{\n {2}"x-trace": "a\\u0007b"\n\}/);
    expect(text).toContain('x-trace: a\\u{7}b');
    expect(text).not.toMatch(/[\u0000-\u0008\u001b]/);
    expect(text.startsWith('orders · message 7\n')).toBe(true);
  });
  test('a text body with a raw ESC and a CR: escaped', () => {
    const text = pagerText(msg('plain \u001b[2J text\r\nline 2'), CAPS, 'q', 0);
    expect(text).toContain('plain \\e[2J text\nline 2');
  });
});

describe('running the pager', () => {
  test('$PAGER if set, else less then more', () => {
    expect(pagerCommands({ PAGER: 'less -S' }).commands).toEqual(['less -S']);
    expect(pagerCommands({ PAGER: ' ' }).commands).toEqual(['less', 'more']);
    expect(pagerCommands({}).commands).toEqual(['less', 'more']);
  });
  test('problems in one line', () => {
    expect(pagerProblem('/nonexistent', 127, null)).toBe('pager "/nonexistent" not found (set PAGER to a pager that is installed)');
    expect(pagerProblem('x', 3, null)).toBe('pager "x" ended with exit status 3');
    expect(pagerProblem('x', null, 'SIGKILL')).toBe('pager "x" ended by SIGKILL');
    expect(pagerProblem('x', null, 'SIGINT')).toBeUndefined();
    expect(pagerProblem('x\u001b[31m', 0, null)).toBeUndefined();
    expect(pagerProblem('x\u001b[31m', 1, null)).toContain('x\\\\e[31m');
  });
  test('the text reaches the pager on stdin; top leaves the alternate screen and comes back, redrawn', () => {
    const file = join(dir, 'seen.txt');
    const f = fakeTerminal({ PATH: process.env['PATH'], PAGER: `cat > '${file}'` });
    const before = pagerDirs();
    expect(runPager('hello\nworld\n', f.term)).toEqual({ ok: true });
    expect(readFileSync(file, 'utf8')).toBe('hello\nworld\n');
    const written = f.out.join('');
    expect(written.indexOf('\u001b[?1049l')).toBeLessThan(written.indexOf('\u001b[?1049h'));
    // Bracketed paste is off while the pager has the terminal, on again after.
    expect(written).toMatch(/^\u001b\[\?2004l/);
    expect(written).toMatch(/\u001b\[\?1049h\u001b\[2J\u001b\[H\u001b\[\?25l\u001b\[\?2004h$/);
    expect(f.redraws()).toBe(1);
    // The temporary file is gone.
    expect(pagerDirs().filter((d) => !before.includes(d))).toEqual([]);
  });
  test('PAGER=/nonexistent: one line, the terminal given back all the same', () => {
    const f = fakeTerminal({ PATH: process.env['PATH'], PAGER: '/nonexistent' });
    expect(runPager('x', f.term)).toEqual({
      ok: false,
      problem: 'pager "/nonexistent" not found (set PAGER to a pager that is installed)',
    });
    expect(f.out.join('')).toContain('\u001b[?1049h');
    expect(f.redraws()).toBe(1);
  });
  test('no PAGER and neither less nor more on PATH: one line', () => {
    const f = fakeTerminal({ PATH: dir });
    const r = runPager('x', f.term);
    expect(r).toEqual({ ok: false, problem: 'no pager found: less and more are not installed (set PAGER)' });
  });
});

test('keys: w wraps, h/l and ←/→ scroll sideways in the detail (← at the edge goes back), p opens the pager', () => {
  expect(commandFor('message', 'w', {})).toEqual({ type: 'wrap' });
  expect(commandFor('message', 'p', {})).toEqual({ type: 'pager' });
  expect(commandFor('queue', 'p', {})).toEqual({ type: 'pager' });
  expect(commandFor('message', '', { leftArrow: true })).toEqual({ type: 'hscroll', direction: -1, orBack: true });
  expect(commandFor('message', '', { rightArrow: true })).toEqual({ type: 'hscroll', direction: 1 });
  expect(commandFor('message', 'l', {})).toEqual({ type: 'hscroll', direction: 1 });
  expect(commandFor('queue', 'h', {})).toEqual({ type: 'hscroll', direction: -1 });
  // The queue view keeps ← back and → open.
  expect(commandFor('queue', '', { leftArrow: true })).toEqual({ type: 'back' });
  expect(commandFor('queue', '', { rightArrow: true })).toEqual({ type: 'open' });
});

function pagerDirs(): string[] {
  return readdirSync(tmpdir()).filter((d) => d.startsWith('smq-pager-') && !d.startsWith('smq-pager-test-'));
}
