// The tester's live view on a real terminal (tmux): when the run ends, the frame left on the
// screen above the report is the final one (everything sent, received and acknowledged,
// phase done), not whatever frame was drawn last while the run was going.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { BIN, REPO, ensureBuilt } from '../helpers/run-cli.js';
import { TmuxSession, tmuxAvailable } from '../helpers/tmux.js';

ensureBuilt();
const dir = mkdtempSync(join(tmpdir(), 'smq-live-'));
let session: TmuxSession | undefined;
afterAll(() => {
  session?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!tmuxAvailable())('the live view when the run ends', () => {
  test('a short run leaves its final frame: 100% sent, all received and acknowledged, done', async () => {
    const out = join(dir, 'report.txt');
    // A short run on an embedded SQLite file (2 senders × 1,000), the report to a file.
    session = TmuxSession.start({
      command: ['sh', '-c', `"$0" "$1" tester > "$2"`, process.execPath, BIN, out],
      cwd: REPO,
      width: 120,
      height: 40,
    });
    expect(await session.waitForExit(60_000)).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/received +2,000/);
    const screen = session.captureAll();
    expect(screen).toMatch(/100% sent 2,000\/2,000/);
    expect(screen).toMatch(/received 2,000 · acked 2,000/);
    expect(screen).toMatch(/· done/);
    expect(screen).not.toMatch(/ 0% sent 0\/2,000/);
    expect(screen).not.toMatch(/draining:/);
  }, 90_000);
});
