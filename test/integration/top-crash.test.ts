// A crash inside the running TUI (an exception nobody catches) must still give the
// terminal back: raw mode off, alternate screen left, and the error reported. The built
// runner is driven with a backend that throws from a timer after its first answer.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { TmuxSession, tmuxAvailable } from '../helpers/tmux.js';

const RUN = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'ui', 'run.js')).href;

const SCRIPT = `
import { runInteractive } from ${JSON.stringify(RUN)};
const caps = { archive: true, headers: true, attributes: false, tenants: false, maxRetries: false,
  failedState: false, unlogged: true, jsonBodies: true, receiveByRunId: false };
let calls = 0;
const backend = {
  kind: 'pgmq',
  capabilities: caps,
  info: async () => ({ backend: 'pgmq', serverVersion: 'PostgreSQL test', schema: 'none', location: 'nowhere' }),
  listQueues: async () => {
    if (++calls === 1) setTimeout(() => { throw new Error('simulated crash'); }, 300);
    return [{ name: 'crashq', ready: 1, inFlight: 0, delayed: 0, total: 1, oldestAgeSec: 1, newestAgeSec: 1, estimated: false }];
  },
  close: async () => {},
};
try {
  process.exitCode = await runInteractive({ backend, connection: 'test', intervalMs: 5000, readOnly: false });
} catch (e) {
  process.stderr.write('top crashed: ' + e.message + '\\n');
  process.exitCode = 1;
}
`;

describe.skipIf(!tmuxAvailable())('smq top crashing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'smq-top-crash-'));
  const script = join(dir, 'crash.mjs');
  writeFileSync(script, SCRIPT);
  let session: TmuxSession | undefined;
  afterAll(() => {
    session?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  test('an uncaught exception restores the terminal and reports the error', async () => {
    const modes = 'stty -a | tr -s " ;" "\\n\\n" | grep -E "^-?(icanon|echo)$" | tr "\\n" " "; echo "<- modes"';
    session = TmuxSession.start({
      command: ['sh', '-c', `"$0" "$@"; code=$?; ${modes}; exit $code`, process.execPath, script],
    });
    const t = session;
    await t.waitFor('crashq');
    expect(await t.waitForExit()).toBe(1);
    const all = await t.waitFor('<- modes', 15_000, { withHistory: true });
    expect(all).toContain('top crashed: simulated crash');
    const shown = /(\S.*)<- modes/.exec(all)?.[1]?.trim().split(/\s+/) ?? [];
    expect(shown.sort()).toEqual(['echo', 'icanon']);
    expect(t.captureAll()).not.toContain('smq top pgmq');
  });
});
