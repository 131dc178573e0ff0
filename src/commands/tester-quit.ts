// smq tester's second Ctrl-C (or signal): "quit now". What can be cleaned up at once is, and
// synchronously: the temporary folder of an embedded SQLite run. A queue the run created on a
// store, which it has no time to drop, is named on stderr with the command that removes it
// (never with the password: "the same --url").
import { rmSync } from 'node:fs';
import type { Target } from '../backends/target.js';
import type { LeftQueue } from '../tester/run-queue.js';
import { escapeControl } from '../text/escape.js';

/** A word as a shell reads it: as it is when plain, else in single quotes. */
function shellWord(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** One line per queue left behind, saying how to remove it. */
export function leftBehindLines(
  queues: readonly LeftQueue[],
  target: Target,
  given: { url: boolean; tenant?: number | undefined },
): string[] {
  return queues.map(({ name: q, maybe }) => {
    const drop = `smq drop ${shellWord(q)}`;
    const how =
      target.kind === 'sqlite'
        ? `'${drop} --sqlite ${shellWord(target.path)}${given.tenant !== undefined ? ` --tenant ${given.tenant}` : ''} --yes'`
        : `'${drop} --yes' and the same ${given.url ? '--url' : 'connection (DATABASE_URL, SMQ_URL or PG* variables)'}`;
    // Its drop was under way when the process left: it may or may not have ended.
    const left = maybe ? `may have left queue ${q} behind (its drop was under way): if so,` : `left queue ${q} behind:`;
    return escapeControl(`smq tester: ${left} remove it with ${how}`);
  });
}

/** Before the process leaves on a second signal: the temporary folder removed, what is left said. */
export function quitNow(
  stderr: { write(text: string): unknown },
  x: {
    tempDir: string | undefined;
    keep: boolean;
    leftBehind: readonly LeftQueue[];
    target: Target;
    url: boolean;
    tenant?: number | undefined;
  },
): void {
  if (x.tempDir !== undefined && !x.keep) {
    // The queue is in the folder: nothing else is left.
    rmSync(x.tempDir, { recursive: true, force: true });
    return;
  }
  for (const line of leftBehindLines(x.leftBehind, x.target, x)) stderr.write(line + '\n');
}
