// A real pseudo-terminal for end-to-end tests of smq top: a tmux server on its own socket
// runs the command in a detached session of a fixed size; tests send keys and poll the
// screen (capture-pane) until what they expect shows up or a deadline passes. No sleeps
// of a fixed length: every wait is for something on screen.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

const EXIT_WORD = 'smq-test-exit=';
const EXIT_MARK = /smq-test-exit=(\d+)/;

export function tmuxAvailable(): boolean {
  return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
}

export interface TmuxStartOptions {
  /** argv of the program (run by sh, which reports its exit status afterwards). */
  readonly command: readonly string[];
  readonly cwd?: string;
  /** The program's whole environment (CI and friends left out unless given here). */
  readonly env?: Readonly<Record<string, string>>;
  readonly width?: number;
  readonly height?: number;
}

export class TmuxSession {
  readonly socket: string;
  private readonly dir: string;
  private readonly target = 'smq:0.0';

  private constructor(socket: string, dir: string) {
    this.socket = socket;
    this.dir = dir;
  }

  /** Starts a tmux server on a socket of its own (-L smq-test-<random>) running `command`. */
  static start(options: TmuxStartOptions): TmuxSession {
    const socket = `smq-test-${randomBytes(6).toString('hex')}`;
    const dir = mkdtempSync(join(tmpdir(), 'smq-tmux-'));
    const conf = join(dir, 'tmux.conf');
    // remain-on-exit: the pane stays after the program ends, so a test can read its exit
    // status and the screen it left behind.
    writeFileSync(conf, 'set -g remain-on-exit on\nset -g status off\nset -g history-limit 100\n');
    const session = new TmuxSession(socket, dir);
    const env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: process.env['HOME'] ?? dir,
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      ...options.env,
    };
    const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    session.tmux(
      'new-session',
      '-d',
      '-s',
      'smq',
      '-x',
      String(options.width ?? 120),
      '-y',
      String(options.height ?? 40),
      ...(options.cwd ? ['-c', options.cwd] : []),
      '--',
      'env',
      '-i',
      ...envArgs,
      'sh',
      '-c',
      `"$0" "$@"; echo "${EXIT_WORD}$?"`,
      ...options.command,
    );
    return session;
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-u', '-L', this.socket, '-f', join(this.dir, 'tmux.conf'), ...args], {
      encoding: 'utf8',
      env: { ...process.env, LANG: 'C.UTF-8' },
    });
  }

  /** The visible screen as text. */
  capture(): string {
    return this.tmux('capture-pane', '-p', '-t', this.target);
  }

  /** The visible screen with its attributes as escape sequences (colours, bold, inverse). */
  captureWithEscapes(): string {
    return this.tmux('capture-pane', '-p', '-e', '-t', this.target);
  }

  /** tmux key names (Enter, Escape, Up, PageDown, C-c) or single characters. */
  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', this.target, ...keys);
  }

  /** Literal text, typed as is. */
  /** Pastes `text` as a terminal does: bracketed (markers around it) when the program asked for it (mode 2004). */
  paste(text: string): void {
    this.tmux('set-buffer', '-b', 'smqtest', '--', text);
    this.tmux('paste-buffer', '-p', '-d', '-b', 'smqtest', '-t', this.target);
  }

  type(text: string): void {
    this.tmux('send-keys', '-t', this.target, '-l', text);
  }

  resize(width: number, height: number): void {
    this.tmux('resize-window', '-t', 'smq', '-x', String(width), '-y', String(height));
  }

  /** The screen and its scrollback. */
  captureAll(): string {
    return this.tmux('capture-pane', '-p', '-S', '-', '-t', this.target);
  }

  /**
   * Exit status once the program has ended; undefined while it runs. The program runs
   * under sh, which prints the status when it ends (tmux's own pane_dead_status is not
   * always filled in).
   */
  exitStatus(): number | undefined {
    const m = EXIT_MARK.exec(this.captureAll());
    return m ? Number(m[1]) : undefined;
  }

  /** The pid of the program (a child of the wrapping sh). */
  pid(): number {
    const sh = this.tmux('display-message', '-p', '-t', this.target, '#{pane_pid}').trim();
    return Number(execFileSync('ps', ['-o', 'pid=', '--ppid', sh], { encoding: 'utf8' }).trim().split(/\s+/)[0]);
  }

  /**
   * Polls the screen until `expected` is on it (a string, a regex, or a predicate), and
   * returns that screen; fails with the last screen after `timeoutMs`. withHistory also
   * searches the scrollback (what a program printed after leaving the alternate screen
   * may have scrolled there).
   */
  async waitFor(
    expected: string | RegExp | ((screen: string) => boolean),
    timeoutMs = 15_000,
    options: { readonly withHistory?: boolean } = {},
  ): Promise<string> {
    const test =
      typeof expected === 'string'
        ? (s: string) => s.includes(expected)
        : expected instanceof RegExp
          ? (s: string) => expected.test(s)
          : expected;
    const deadline = Date.now() + timeoutMs;
    let screen = '';
    for (;;) {
      screen = options.withHistory ? this.captureAll() : this.capture();
      if (test(screen)) return screen;
      if (Date.now() > deadline) {
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(expected)}; the screen was:\n${screen}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Waits until the program has ended and returns its exit status. */
  async waitForExit(timeoutMs = 15_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = this.exitStatus();
      if (status !== undefined) return status;
      if (Date.now() > deadline) throw new Error(`the program did not end within ${timeoutMs} ms:\n${this.capture()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Kills the tmux server of this socket (and with it the program) and removes its files. */
  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { encoding: 'utf8' });
    rmSync(this.dir, { recursive: true, force: true });
  }
}
