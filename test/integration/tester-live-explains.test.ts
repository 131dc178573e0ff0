// The live view explains itself on a real terminal (tmux) at 80 and 120 columns: time elapsed
// and left, the backlog and its trend, the senders' waits under --max-backlog; every line fits
// the width (nothing is wrapped into the middle of a word). A receiver stalled from outside
// (its server process stopped with SIGSTOP between two calls) is named as lagging.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, test } from 'vitest';
import { queryOnce } from '../helpers/replica.js';
import { BIN, REPO, ensureBuilt } from '../helpers/run-cli.js';
import { TmuxSession, tmuxAvailable } from '../helpers/tmux.js';

ensureBuilt();
const dir = mkdtempSync(join(tmpdir(), 'smq-live-x-'));
const sessions: TmuxSession[] = [];
afterAll(() => {
  for (const s of sessions) s.kill();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The live view's lines: from the top of the screen to the first blank line after it. */
function liveLines(screen: string): string[] {
  const lines = screen.split('\n');
  const start = lines.findIndex((l) => l.startsWith('smq tester'));
  const out: string[] = [];
  for (const l of lines.slice(Math.max(0, start))) {
    if (l.trim() === '' && out.length > 0) break;
    out.push(l);
  }
  return out;
}

describe.skipIf(!tmuxAvailable())('the live view explains itself', () => {
  for (const width of [80, 120]) {
    test(`at ${width} columns: time of the duration, backlog and trend, senders waiting; no line too wide`, async () => {
      const out = join(dir, `report-${width}.txt`);
      const session = TmuxSession.start({
        command: [
          'sh',
          '-c',
          `"$0" "$1" tester --duration 6s --max-backlog 300 --senders 2 --receivers 2 > "$2"`,
          process.execPath,
          BIN,
          out,
        ],
        cwd: REPO,
        width,
        height: 40,
      });
      sessions.push(session);
      let mid = '';
      for (let i = 0; i < 80 && !/[2-4]\.\d s of 6 s/.test(mid); i++) {
        await sleep(100);
        mid = session.capture();
      }
      const lines = liveLines(mid);
      const text = lines.join('\n');
      expect(text).toMatch(/\d\.\d s of 6 s · \d\.\d s left · sending/);
      expect(text).toMatch(/backlog [\d,]+ \((growing|shrinking|steady)\)/);
      expect(text).toMatch(/senders waiting \d+% of the time \(--max-backlog 300\)/);
      for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(width);
      expect(await session.waitForExit(60_000)).toBe(0);
      const final = liveLines(session.captureAll());
      expect(final.join('\n')).toMatch(/· done/);
      for (const l of final) expect(l.length, l).toBeLessThanOrEqual(width);
    }, 90_000);
  }
});

/** A receiver's server process of the run between two calls (idle, its last statement a read or an ack). */
async function idleReceiverBackend(url: string): Promise<number | undefined> {
  const rows = await queryOnce<{ pid: number }>(
    url,
    `SELECT pid FROM pg_stat_activity
      WHERE application_name LIKE 'smq-tester-%' AND state = 'idle'
        AND (query LIKE '%pgmq.read(%' OR query LIKE '%pgmq.delete(%' OR query LIKE '%pgmq.archive(%')
      LIMIT 1`,
  );
  return rows[0]?.pid;
}

describe.skipIf(!tmuxAvailable())('a stalled receiver in the live view', () => {
  test('at 80 columns: the receiver whose server process is stopped is named with 0/s beside the others', async () => {
    const url = inject('pgUrl');
    const session = TmuxSession.start({
      command: [
        'sh',
        '-c',
        `"$0" "$1" tester --url "$2" --duration 14s --senders 1 --receivers 3 --rate 600 --vt 3s > /dev/null`,
        process.execPath,
        BIN,
        url,
      ],
      cwd: REPO,
      width: 80,
      height: 40,
    });
    sessions.push(session);
    // Let the receivers get going (every one has a rate of its own over 2 s).
    let screen = '';
    for (let i = 0; i < 100 && !/[3-9]\.\d s of 14 s/.test(screen); i++) {
      await sleep(100);
      screen = session.capture();
    }
    let pid: number | undefined;
    for (let i = 0; i < 200 && pid === undefined; i++) pid = await idleReceiverBackend(url);
    expect(pid, 'an idle receiver connection').toBeDefined();
    process.kill(pid!, 'SIGSTOP');
    let lagging = '';
    try {
      // Named as soon as it falls below a quarter of the others (its 2-s rate), at 0/s once stalled 2 s
      // (8.5 s allowed on a loaded machine, under the 10 s call deadline that ends the stall).
      for (let i = 0; i < 85 && !/ lags: 0\//.test(lagging); i++) {
        await sleep(100);
        lagging = liveLines(session.capture()).find((l) => / lags: /.test(l)) ?? lagging;
      }
    } finally {
      process.kill(pid!, 'SIGCONT');
    }
    expect(lagging).toMatch(/^receiver [0-2] lags: 0\/s, the other receivers [\d,]+\/s$/);
    expect(lagging.length).toBeLessThanOrEqual(80);
    expect(await session.waitForExit(60_000)).toBe(0);
  }, 90_000);
});
