// Hostile message bodies on screen: the built `smq top` in tmux opens a 40 KB body of
// 20,000 nested arrays (SmoothMQ keeps any text; PostgreSQL's jsonb refuses that depth) and
// a 50 MB JSON body on pgmq, stays up, and keeps its memory sane while they are shown.
import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { openBackend } from '../../src/backends/index.js';
import type { MessageId } from '../../src/backends/types.js';
import { TmuxSession, tmuxAvailable } from '../helpers/tmux.js';
import { makeTempDir, uniqueQueue } from '../helpers/backends.js';
import { ensureBuilt } from '../helpers/run-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'smq.js');
const PROBE = join(ROOT, 'test', 'helpers', 'memory-probe.mjs');
const DEEP = '['.repeat(20_000) + ']'.repeat(20_000);

const haveTmux = tmuxAvailable();
const tmp = makeTempDir('smq-top-big-');
let session: TmuxSession | undefined;

beforeAll(() => ensureBuilt());
afterEach(() => {
  session?.kill();
  session = undefined;
});
afterAll(() => tmp.cleanup());

function startTop(args: readonly string[], probeOut?: string): TmuxSession {
  session = TmuxSession.start({
    command: [process.execPath, ...(probeOut ? ['--import', PROBE] : []), BIN, ...args, 'top', '--interval', '0.5'],
    env: probeOut ? { PROBE_OUT: probeOut, PROBE_EVERY_MS: '250' } : {},
    width: 120,
    height: 40,
  });
  return session;
}

/** Largest RSS the probe saw, in MB. */
function peakRssMb(file: string): number {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const rss = text
    .split('\n')
    .filter((l) => /^\d+ \d+ \d+$/.test(l))
    .map((l) => Number(l.split(' ')[2]));
  return Math.max(0, ...rss) / 1e6;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!haveTmux)('hostile bodies in the message view (real terminal)', () => {
  test('20,000 nested arrays (40 KB): shown with capped indentation, top stays up', async () => {
    const file = join(tmp.dir, 'deep.sqlite');
    const b = await openBackend({ kind: 'sqlite', path: file }, { create: true });
    let ids: MessageId[] = [];
    try {
      await b.createQueue('deep');
      ids = await b.sendBatch('deep', [{ body: 'first' }, { body: DEEP }]);
    } finally {
      await b.close();
    }
    // Before: top exited with "Invalid string length" when this message opened.
    const t = startTop(['--sqlite', file]);
    await t.waitFor(/deep\s+2\s/, 20_000);
    t.keys('Enter');
    await t.waitFor(new RegExp(`^› +${ids[0]} `, 'm'), 20_000);
    t.keys('j');
    await t.waitFor(new RegExp(`^› +${ids[1]} `, 'm'), 20_000);
    t.keys('Enter');
    let screen = await t.waitFor('body (JSON), 40,000 bytes:', 20_000);
    // Indentation stops growing at 16 levels (32 columns).
    screen = await t.waitFor((s) => s.includes(`${' '.repeat(32)}[`), 10_000);
    expect(screen).not.toContain(`${' '.repeat(34)}[`);
    t.keys('G');
    screen = await t.waitFor('the rest of the body is not shown here', 20_000);
    // Still refreshing, still alive.
    await sleep(2000);
    expect(t.exitStatus()).toBeUndefined();
    t.keys('C-c');
    expect(await t.waitForExit(20_000)).toBe(0);
  }, 90_000);

  test('a 50 MB JSON body: its first lines on screen, memory stays sane, top stays up', async () => {
    const url = inject('pgUrl');
    const queue = uniqueQueue('topbig');
    const backend = await openBackend({ kind: 'pgmq', url });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await backend.createQueue(queue);
      await backend.send(queue, { body: '{"first":true}' });
      // 400,000 objects of ~127 bytes: 50.7 MB of JSON, made by the server.
      await client.query(
        `SELECT pgmq.send($1, (SELECT jsonb_agg(jsonb_build_object('i', i, 'text', repeat('x', 100))) FROM generate_series(1, 400000) i))`,
        [queue],
      );
      const probe = join(tmp.dir, 'big.log');
      const t = startTop(['--url', url], probe);
      await t.waitFor('queues', 20_000);
      t.keys('/');
      await t.waitFor('filter (regex): /');
      t.type(`^${queue}$`);
      t.keys('Enter');
      await t.waitFor((s) => !s.includes('filter (regex)') && new RegExp(`› ${queue}\\s+2\\s`).test(s), 20_000);
      t.keys('Enter');
      await t.waitFor(/^› +\d+ ready/m, 20_000);
      t.keys('j');
      await t.waitFor(/^› +2 ready/m, 20_000);
      t.keys('Enter');
      const screen = await t.waitFor(/body \(JSON\), 5\d{1}(,\d{3}){2} bytes:/, 60_000);
      expect(screen).toMatch(/"text": "x{20}/);
      // A few refreshes of the message with the body on screen.
      await sleep(5000);
      expect(t.exitStatus()).toBeUndefined();
      await t.waitFor(/body \(JSON\), 5\d{1}(,\d{3}){2} bytes:/, 10_000);
      const peak = peakRssMb(probe);
      console.info(`top-big-body: peak RSS ${peak.toFixed(0)} MB with a 50 MB body on screen`);
      expect(peak).toBeLessThan(700);
      t.keys('C-c');
      expect(await t.waitForExit(20_000)).toBe(0);
    } finally {
      await backend.dropQueue(queue).catch(() => undefined);
      await backend.close();
      await client.end();
    }
  }, 180_000);
});
