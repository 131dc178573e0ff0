// smq top in a real terminal for the screen tests (issue 18): the built `smq top` in tmux,
// and its queue list narrowed to a test's queues. One session at a time per test file.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TmuxSession } from './tmux.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'smq.js');
const BUILT = join(ROOT, 'dist', 'commands', 'top.js');

export function requireBuild(): void {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run 'npm run build' first (npm test does)`);
}

export interface StartOptions {
  readonly width?: number;
  readonly height?: number;
  readonly env?: Record<string, string>;
  /** The folder top runs in (export's default file goes there). */
  readonly cwd?: string;
}

let session: TmuxSession | undefined;

/** Ends the session started last (afterEach). */
export function killTop(): void {
  session?.kill();
  session = undefined;
}

export function startTop(args: readonly string[], options: StartOptions = {}): TmuxSession {
  killTop();
  session = TmuxSession.start({ command: [process.execPath, BIN, 'top', ...args], ...options });
  return session;
}

export const lastLine = (screen: string) => screen.trimEnd().split('\n').at(-1) ?? '';

/** top on the suite's Postgres, its list narrowed to queues whose names start with `prefix`. */
export async function topOn(url: string, prefix: string, options: StartOptions & { args?: readonly string[] } = {}): Promise<TmuxSession> {
  const t = startTop(['--url', url, '--interval', '1', ...(options.args ?? [])], options);
  await t.waitFor(/\d+ of \d+ queues?/);
  t.keys('/');
  await t.waitFor('filter (regex): /');
  t.type(`^${prefix}`);
  await t.waitFor(`filter (regex): /^${prefix}`);
  t.keys('Enter');
  // A narrow NAME column may cut the names: their first 12 characters are enough.
  await t.waitFor((s) => !s.includes('filter (regex)') && s.includes(`› ${prefix.slice(0, 12)}`));
  return t;
}
