// Destructive commands (drop, purge, delete): on a terminal they ask; in scripts they need --yes.
import { createInterface } from 'node:readline';
import { usageError } from '../errors.js';
import { escapeControl } from '../text/escape.js';
import { ioOf, type GlobalArgs } from './context.js';

function canAsk(argv: GlobalArgs): boolean {
  const io = ioOf(argv);
  return Boolean(io.stdin.isTTY && io.stderr.isTTY);
}

/**
 * Call before connecting: without --yes and without a terminal to ask on, refuse
 * (exit 2) so nothing is touched.
 */
export function checkConfirmable(argv: GlobalArgs, action: string): void {
  if (argv.yes || canAsk(argv)) return;
  throw usageError(`refusing to ${action} without confirmation`, 'pass --yes (no terminal to ask on)');
}

/** Asks on stderr and reads the answer from stdin; anything but y/yes aborts with nothing changed. */
export async function confirm(argv: GlobalArgs, question: string): Promise<void> {
  if (argv.yes) return;
  if (!canAsk(argv)) throw usageError('refusing without confirmation', 'pass --yes');
  const io = ioOf(argv);
  io.stderr.write(`${escapeControl(question)} [y/N] `);
  // The terminal echoes in cooked mode, so readline only needs to split lines off stdin.
  const rl = createInterface({ input: io.stdin, terminal: false });
  const answer = await new Promise<string>((resolve) => {
    rl.once('line', resolve);
    // Ctrl-D / Ctrl-C close the input: that counts as "no".
    rl.once('close', () => resolve(''));
  });
  rl.close();
  io.stdin.pause?.();
  if (!/^\s*y(es)?\s*$/i.test(answer)) throw usageError('aborted', 'nothing was changed');
}
