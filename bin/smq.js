#!/usr/bin/env node
import { readFileSync } from 'node:fs';
// First, before anything loads: `ps` shows the command line as given (a password in --url
// too) until the title changes, and loading smq's modules takes about 150 ms. A bare title
// now; the arguments, passwords starred, once the code that finds passwords is loaded (below).
// The arguments' bytes as given, read before that (see src/text/argv-bytes.ts); Linux only.
const rawArgs = (() => {
  try {
    return readFileSync('/proc/self/cmdline');
  } catch {
    return undefined;
  }
})();
process.title = 'smq';
// smq's entry: run the command, and turn whatever it throws into one line on stderr and
// an exit code (0 done, 1 runtime failure, 2 bad usage or input, 3 not found).
// React (under Ink) picks its build from NODE_ENV when it is first loaded. The development
// build keeps debugging data for every render: a long `smq top` grew by megabytes a minute
// until Node ran out of heap. NODE_ENV in a user's shell is about their own application,
// not about this tool, so smq always runs React's production build.
process.env.NODE_ENV = 'production';
// NO_COLOR (no-color.org): set and not empty, smq writes no colour codes. Ink styles text
// through chalk, which reads FORCE_COLOR once, when it is first loaded (below).
if (process.env.NO_COLOR) process.env.FORCE_COLOR = '0';
let cli;
try {
  cli = await import('../dist/cli.js');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/cli.js')) throw err;
  process.stderr.write("smq: the build is missing (dist/cli.js): run 'npm run build'\n");
  process.exit(1);
}
const {
  escapeControl,
  firstNonUtf8Argument,
  isDeadTerminalError,
  isSmqError,
  leaveProcess,
  main,
  redactSecrets,
  secretsFor,
  stdoutGoneWhileChanging,
  terminalHungUp,
} = cli;

const argv = process.argv.slice(2);
const secrets = secretsFor(argv, process.env);
// Anything that may carry a connection string goes through here.
const say = (text) => process.stderr.write(escapeControl(redactSecrets(String(text), secrets)) + '\n');
// `ps` shows every process's command line to every local user: smq's shows its arguments with
// the passwords starred (Node rewrites the command line's own memory, which `ps` reads).
process.title = ['smq', ...argv.map((a) => redactSecrets(a, secrets))].join(' ');
const notUtf8 = firstNonUtf8Argument(rawArgs, argv.length);
rawArgs?.fill(0); // it holds the arguments as given, passwords too
if (notUtf8 !== undefined) {
  say(
    `smq: argument ${notUtf8 + 1} is not valid UTF-8: give every argument as UTF-8 text (is the terminal or the script in another encoding?)`,
  );
  leaveProcess(2);
}

// `smq peek q | head -1`: the reader went away; that is not an error worth a stack. A send
// from stdin goes on to store every line first (src/output/closed-output.ts).
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') {
    if (stdoutGoneWhileChanging()) return;
    leaveProcess(process.exitCode ?? 0);
  }
  if (isDeadTerminalError(err)) return; // the terminal hung up: the command still finishes its work
  throw err;
});
process.stderr.on('error', (err) => {
  if (isDeadTerminalError(err) || err.code === 'EPIPE') return;
  throw err;
});

let code;
try {
  code = await main(argv);
} catch (err) {
  if (isSmqError(err)) {
    say(`smq: ${err.line()}`);
    code = err.exitCode;
  } else if (err instanceof Error && err.name === 'YError') {
    say(`smq: ${err.message.replace(/\s*\n\s*/g, ' ')}`);
    code = 2;
  } else {
    say(`smq: ${(err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, ' ')}`);
    code = 1;
  }
  if (process.env.SMQ_DEBUG === '1' && err instanceof Error && err.stack) {
    for (const line of err.stack.split('\n').slice(1)) say(line);
  }
}
process.exitCode = code;
// The terminal hung up: leave now (see src/output/hangup.ts; stdout to a file or pipe is written synchronously).
if (terminalHungUp()) leaveProcess(code);
// The command is done (its connections closed, or given up on when the server does not
// answer): leave once stdout and stderr have taken what was written, not later when a stuck
// connection would let go. A reader that never reads gets 2 s.
const written = (stream) => new Promise((resolve) => (stream.writableLength > 0 ? stream.write('', () => resolve()) : resolve()));
await Promise.race([Promise.all([written(process.stdout), written(process.stderr)]), new Promise((r) => setTimeout(r, 2000).unref())]);
leaveProcess(code);
