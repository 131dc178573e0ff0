// Runs the interactive smq top on the real terminal: the alternate screen while it runs,
// and one cleanup path that puts the terminal back (screen, cursor, raw mode) however it
// ends: q, Ctrl-C, SIGTERM/SIGHUP, -n reached, or a crash.
import { render, type Instance } from 'ink';
import type { Backend } from '../backends/types.js';
import { ExitCode } from '../errors.js';
import { TopApp } from './components/TopApp.js';
import { ContextsTop } from './components/ContextsTop.js';
import type { ContextsSetup } from './model/contexts.js';
import { ENTER_ALT_SCREEN, LEAVE_ALT_SCREEN, PASTE_MODE_OFF, PASTE_MODE_ON, SHOW_CURSOR } from './terminal-modes.js';

export interface InteractiveOptions {
  readonly backend: Backend;
  readonly backendForTenant?: ((tenant: number) => Promise<Backend>) | undefined;
  readonly connection: string;
  readonly intervalMs: number;
  readonly readOnly: boolean;
  /** Why actions are off (shown in the header and when an action is asked for). */
  readonly readOnlyReason?: string | undefined;
  readonly exactThreshold?: number | undefined;
  readonly maxRefreshes?: number | undefined;
  readonly tenantFilter?: string | undefined;
  /** Several stores: the one above is `contexts.current`, `:` switches (components/ContextsTop). */
  readonly contexts?: ContextsSetup | undefined;
  readonly stdout?: NodeJS.WriteStream;
  readonly stdin?: NodeJS.ReadStream;
  readonly stderr?: NodeJS.WriteStream;
}

/** Resolves with the exit code when top has quit and the terminal is restored. */
export async function runInteractive(options: InteractiveOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stdin = options.stdin ?? process.stdin;
  const stderr = options.stderr ?? process.stderr;

  let restored = false;
  const restoreTerminal = () => {
    if (restored) return;
    restored = true;
    try {
      if (stdin.isTTY) stdin.setRawMode(false);
    } catch {
      // stdin already closed: nothing to restore there
    }
    stdout.write(PASTE_MODE_OFF + SHOW_CURSOR + LEAVE_ALT_SCREEN);
  };

  let instance: Instance | undefined;
  let code: number = ExitCode.ok;
  let failCrash: (e: unknown) => void = () => undefined;
  const crashed = new Promise<never>((_, reject) => {
    failCrash = reject;
  });
  const onCrash = (e: unknown) => failCrash(e);
  const onSignal = (signal: NodeJS.Signals) => {
    code = signal === 'SIGTERM' ? ExitCode.terminated : signal === 'SIGHUP' ? ExitCode.hangup : ExitCode.failure;
    instance?.unmount();
  };
  // Last resort: whoever calls process.exit, the screen comes back.
  const onExit = () => restoreTerminal();

  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  process.on('exit', onExit);
  stdout.write(ENTER_ALT_SCREEN + PASTE_MODE_ON);
  try {
    const store = {
      backend: options.backend,
      backendForTenant: options.backendForTenant,
      connection: options.connection,
      readOnly: options.readOnly,
      readOnlyReason: options.readOnlyReason,
      tenantFilter: options.tenantFilter,
    };
    const common = { intervalMs: options.intervalMs, exactThreshold: options.exactThreshold, maxRefreshes: options.maxRefreshes };
    instance = render(
      options.contexts ? <ContextsTop setup={options.contexts} first={store} {...common} /> : <TopApp {...store} {...common} />,
      // Ctrl-C is TopApp's, so it leaves through the same path as q.
      { stdout, stdin, stderr, exitOnCtrlC: false, patchConsole: true },
    );
    await Promise.race([instance.waitUntilExit(), crashed]);
  } finally {
    try {
      instance?.unmount();
      instance?.cleanup();
    } catch {
      // already unmounted
    }
    restoreTerminal();
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    process.off('exit', onExit);
  }
  return code;
}
