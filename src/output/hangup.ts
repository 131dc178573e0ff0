// The terminal can go away under a running smq (the window closed, the SSH session dropped,
// tmux kill-session): SIGHUP, then every write to it fails with EIO. Nothing can be shown
// any more, but the work in progress still has to end properly (a report to a file, a queue
// to drop), so those errors are not fatal. And Node itself must not exit normally then: at
// exit it resets the terminal's modes, and on a terminal that hung up that fails and aborts
// the process (an assertion in node::ResetStdio, nodejs/node#51519, fixed after Node 20):
// a core dump instead of a clean exit. smq leaves by SIGHUP's own default action instead,
// which the shell reports as 129 like any death by SIGHUP.
import { isatty } from 'node:tty';

const STDIO = [0, 1, 2] as const;
const ttyAtStart = STDIO.map((fd) => isatty(fd));

/** A standard stream that was a terminal when smq started no longer is (it hung up). */
export function terminalHungUp(): boolean {
  return STDIO.some((fd, i) => ttyAtStart[i] && !isatty(fd));
}

/** Write errors of a terminal that hung up are dropped; true when the error was one. */
export function isDeadTerminalError(e: unknown): boolean {
  return (e as NodeJS.ErrnoException | undefined)?.code === 'EIO';
}

/**
 * Ends the process with `code`; after a hangup, by SIGHUP's default action (status 129),
 * since a normal exit would abort while resetting the dead terminal.
 */
export function leaveProcess(code: number): never {
  if (terminalHungUp()) {
    process.removeAllListeners('SIGHUP');
    process.kill(process.pid, 'SIGHUP');
  }
  process.exit(code);
}
