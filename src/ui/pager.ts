// Shows a text in the user's pager ($PAGER; without one, less, then more) while top steps
// aside (issue 18). The pager runs synchronously: while it has the terminal, top's event loop
// stops, so nothing of top (a refresh, a redraw, a key read) touches the screen or the
// keyboard. Before it: raw mode off (the pager sets its own), the cursor shown, the alternate
// screen left; after it: all three back, the screen cleared and redrawn by the caller.
// The text goes through a temporary file (mode 600) as the pager's stdin; its stdout and
// stderr are the terminal (`more` reads its keys from stderr).
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { escapeControl } from '../text/escape.js';

import {
  CLEAR_HOME,
  ENTER_ALT_SCREEN,
  HIDE_CURSOR,
  LEAVE_ALT_SCREEN,
  PASTE_MODE_OFF,
  PASTE_MODE_ON,
  SHOW_CURSOR,
} from './terminal-modes.js';

export interface PagerTerminal {
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly env: NodeJS.ProcessEnv;
  /** Draws the whole screen again (Ink's output, from the top). */
  readonly redraw: () => void;
}

export type PagerResult = { readonly ok: true } | { readonly ok: false; readonly problem: string };

/** The commands to try, run by sh as git runs $PAGER (it may hold arguments: `less -S`). */
export function pagerCommands(env: NodeJS.ProcessEnv): { readonly commands: readonly string[]; readonly fromEnv: boolean } {
  const chosen = env['PAGER']?.trim();
  return chosen ? { commands: [chosen], fromEnv: true } : { commands: ['less', 'more'], fromEnv: false };
}

/** Why a pager did not work, in one line; undefined when it ended well. */
export function pagerProblem(command: string, status: number | null, signal: NodeJS.Signals | null, error?: Error): string | undefined {
  const name = `pager ${JSON.stringify(escapeControl(command))}`;
  if (error) return `${name} did not start: ${escapeControl(error.message)}`;
  // Ctrl-C in the pager ends some (more): that is closing it.
  if (signal === 'SIGINT' || (status === 0 && signal === null)) return undefined;
  if (signal) return `${name} ended by ${signal}`;
  if (status === 127) return `${name} not found (set PAGER to a pager that is installed)`;
  if (status === 126) return `${name} cannot be run (not executable)`;
  return `${name} ended with exit status ${status}`;
}

export function runPager(text: string, term: PagerTerminal): PagerResult {
  const { commands, fromEnv } = pagerCommands(term.env);
  const dir = mkdtempSync(join(tmpdir(), 'smq-pager-'));
  const file = join(dir, 'message.txt');
  const ignore = () => undefined;
  const raw = term.stdin.isTTY === true && term.stdin.isRaw;
  let problem: string | undefined;
  let fd: number | undefined;
  // With raw mode off, Ctrl-C in the pager signals top too: top stays.
  process.on('SIGINT', ignore);
  try {
    writeFileSync(file, text, { mode: 0o600 });
    fd = openSync(file, 'r');
    if (raw) term.stdin.setRawMode(false);
    term.stdout.write(PASTE_MODE_OFF + SHOW_CURSOR + LEAVE_ALT_SCREEN);
    for (const [i, command] of commands.entries()) {
      const r = spawnSync('/bin/sh', ['-c', command], { stdio: [fd, 'inherit', 'inherit'], env: term.env });
      // Without $PAGER, a missing less gives way to more.
      if (!fromEnv && r.status === 127 && i < commands.length - 1) continue;
      problem =
        !fromEnv && r.status === 127
          ? 'no pager found: less and more are not installed (set PAGER)'
          : pagerProblem(command, r.status, r.signal, r.error);
      break;
    }
  } catch (e) {
    problem = `cannot open the pager: ${escapeControl(e instanceof Error ? e.message : String(e))}`;
  } finally {
    if (fd !== undefined) closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
    term.stdout.write(ENTER_ALT_SCREEN + CLEAR_HOME + HIDE_CURSOR + PASTE_MODE_ON);
    if (raw) term.stdin.setRawMode(true);
    term.redraw();
    // A Ctrl-C typed in the pager is delivered once the loop runs again: keep ignoring it until then.
    setTimeout(() => process.off('SIGINT', ignore), 500).unref();
  }
  return problem === undefined ? { ok: true } : { ok: false, problem };
}
