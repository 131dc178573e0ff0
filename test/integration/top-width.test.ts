// Bodies whose characters take more cells than code points (emoji with skin-tone modifiers,
// ZWJ sequences, flags, Devanagari clusters, combining marks) are cut to the screen's width
// as the terminal draws them: no row wraps, so the header stays on screen. The built
// `smq top` in tmux (which draws 👍🏽 as 4 cells and नमस्ते as 4), real Postgres.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import { openBackend } from '../../src/backends/index.js';
import type { Backend, MessageId } from '../../src/backends/types.js';
import { TmuxSession, tmuxAvailable } from '../helpers/tmux.js';
import { uniqueQueue } from '../helpers/backends.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'smq.js');
const BUILT = join(ROOT, 'dist', 'commands', 'top.js');

let session: TmuxSession | undefined;
afterEach(() => {
  session?.kill();
  session = undefined;
});
beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run 'npm run build' first (npm test does)`);
});

const BODIES = [
  { t: '👍🏽'.repeat(80) }, // emoji + skin-tone modifier
  { t: 'नमस्ते '.repeat(30) }, // Devanagari: a virama joins two letters into one cluster
  { t: '👨‍👩‍👧🇫🇷❤️é'.repeat(20) }, // ZWJ family, flag, VS16, e + combining acute
  { t: 'คิว'.repeat(40) }, // Thai with a combining vowel
  { t: 'plain' },
];

describe.skipIf(!tmuxAvailable())('wide and combining characters in smq top (real terminal, real Postgres)', () => {
  const url = inject('pgUrl');
  const queue = uniqueQueue('width');
  let backend: Backend;
  let ids: MessageId[] = [];

  beforeAll(async () => {
    backend = await openBackend({ kind: 'pgmq', url });
    await backend.createQueue(queue);
    ids = await backend.sendBatch(
      queue,
      BODIES.map((b) => ({ body: JSON.stringify(b) })),
    );
  });
  afterAll(async () => {
    await backend?.dropQueue(queue).catch(() => undefined);
    await backend?.close();
  });

  /** Every message is one row: the id rows follow each other, and the header is line 1. */
  function expectOneLinePerRow(screen: string): void {
    const lines = screen.split('\n');
    expect(lines[0]).toMatch(/^smq top pgmq/);
    const title = lines.findIndex((l) => /^\s+ID STATE/.test(l));
    expect(title).toBeGreaterThan(0);
    const rows = lines.slice(title + 1, title + 1 + ids.length).map((l) => /^[› ] +(\d+) /.exec(l)?.[1]);
    expect(rows).toEqual(ids.map(String));
  }

  test.each([120, 97, 80])('%i columns: the queue view and the message detail keep one line per row', async (width) => {
    const t = (session = TmuxSession.start({ command: [process.execPath, BIN, 'top', '--url', url], width, height: 30 }));
    // The list, not our queue: other test files' queues may fill the screen before it.
    await t.waitFor(/\d+ of \d+ queues?/);
    t.keys('/');
    await t.waitFor('filter (regex): /');
    t.type(`^${queue}$`);
    t.keys('Enter');
    await t.waitFor((s) => !s.includes('filter (regex)') && new RegExp(`› ${queue}\\s`).test(s));
    t.keys('Enter');
    const screen = await t.waitFor(new RegExp(`^ +${ids[ids.length - 1]} `, 'm'));
    expectOneLinePerRow(screen);
    // Each emoji body is cut, with an ellipsis, before the edge.
    expect(screen).toMatch(/👍🏽…/);
    // The detail: every line of the pretty-printed body is cut to the width too.
    t.keys('Enter');
    const detail = await t.waitFor((s) => s.includes(`· message ${ids[0]}`) && /^ {2}"t": "(👍🏽)+/mu.test(s));
    expect(detail.split('\n')[0]).toMatch(/^smq top pgmq/);
    t.keys('Escape', 'Down', 'Enter');
    const second = await t.waitFor((s) => s.includes(`· message ${ids[1]}`) && /^ {2}"t": "नमस्ते/mu.test(s));
    expect(second.split('\n')[0]).toMatch(/^smq top pgmq/);
    t.keys('C-c');
    expect(await t.waitForExit()).toBe(0);
  });
});
