// What every command shares: the global options, the streams, the output format, and
// withBackend(), which opens the store a command names and always closes it again.
// smq tester and smq top reuse these; keep them general.
import { existsSync } from 'node:fs';
import type { Argv } from 'yargs';
import { DEFAULT_CALL_TIMEOUT_MS } from '../backends/deadline.js';
import { openBackend, type Backend, type OpenOptions } from '../backends/index.js';
import { validateQueueName } from '../backends/names.js';
import { resolveTarget, type Target } from '../backends/target.js';
import { SmqError, usageError } from '../errors.js';
import { processIo, type Io } from '../output/io.js';
import { defaultFormat, OUTPUT_FORMATS, Printer, type OutputFormat } from '../output/printer.js';
import { parseMilliseconds } from '../text/duration.js';

/** Options every command accepts (declared once in cli.ts with globalOptions()). */
export interface GlobalArgs {
  readonly url?: string | undefined;
  readonly sqlite?: string | undefined;
  readonly tenant?: number | undefined;
  readonly output?: OutputFormat | undefined;
  readonly json?: boolean | undefined;
  readonly yes?: boolean | undefined;
  readonly readOnly?: boolean | undefined;
  /** --timeout: a duration (10s, 500ms, 1m); see callTimeoutOf(). */
  readonly timeout?: string | undefined;
  /** Passed by main() through yargs' parse context; absent when a handler runs elsewhere. */
  readonly smqIo?: Io | undefined;
  readonly smqExit?: ExitHolder | undefined;
}

/** Where a handler leaves an exit code other than 0 that is not an error (e.g. a tester verdict). */
export interface ExitHolder {
  code: number;
}

export function setExitCode(argv: GlobalArgs, code: number): void {
  if (argv.smqExit) argv.smqExit.code = code;
}

/** Connect timeout for every command: an unreachable server fails within this. */
export const CONNECT_TIMEOUT_MS = 5000;

/** The options globalOptions() declares, in its order (subcommand help lists them last). */
export const GLOBAL_OPTION_NAMES = ['url', 'sqlite', 'tenant', 'output', 'json', 'yes', 'read-only', 'timeout'] as const;

export function globalOptions<T>(y: Argv<T>) {
  return y
    .option('url', {
      type: 'string',
      requiresArg: true,
      global: true,
      describe:
        'postgres://user:pass@host/db (pgmq; several servers as libpq takes them: h1:5432,h2:5433/db?target_session_attrs=read-write) ' +
        'or sqlite:PATH; default $DATABASE_URL or PG* variables',
    })
    .option('sqlite', { type: 'string', requiresArg: true, global: true, describe: 'a SmoothMQ SQLite file' })
    .option('tenant', { type: 'number', requiresArg: true, global: true, describe: 'SmoothMQ tenant id [default: 1]' })
    .option('output', {
      alias: 'o',
      choices: OUTPUT_FORMATS,
      requiresArg: true,
      global: true,
      describe: 'output format [default: table on a terminal, ndjson when piped]',
    })
    .option('json', { type: 'boolean', global: true, describe: 'short for --output json' })
    .option('yes', { alias: 'y', type: 'boolean', global: true, describe: 'skip confirmation of destructive commands' })
    .option('read-only', { type: 'boolean', global: true, describe: 'open the store read-only; refuse commands that change it' })
    .option('timeout', {
      type: 'string',
      requiresArg: true,
      global: true,
      describe: 'give up on any call to the database that gets no answer within this (e.g. 30s, 500ms, 2m) [default: 10s]',
    });
}

/**
 * The deadline of every call to the store (--timeout, default 10 s): connecting, each query,
 * top's refreshes. A call past it fails with one line naming it (kind 'timeout', exit 1).
 */
export function callTimeoutOf(argv: GlobalArgs): number {
  if (argv.timeout === undefined) return DEFAULT_CALL_TIMEOUT_MS;
  const text = String(argv.timeout);
  const ms = parseMilliseconds('timeout', argv.timeout);
  if (ms < 1 || ms > 2_147_483_647) {
    throw usageError(`--timeout must be more than 0 and less than 24 days, not ${JSON.stringify(text)}`, 'for example --timeout 30s');
  }
  return ms;
}

export function ioOf(argv: GlobalArgs): Io {
  return argv.smqIo ?? processIo();
}

export function outputFormatOf(argv: GlobalArgs): OutputFormat {
  if (argv.json) {
    if (argv.output !== undefined && argv.output !== 'json') {
      throw usageError(`--json and --output ${argv.output} contradict each other`, 'pass only one of them');
    }
    return 'json';
  }
  return argv.output ?? defaultFormat(ioOf(argv));
}

export function printerOf(argv: GlobalArgs): Printer {
  return new Printer(ioOf(argv), outputFormatOf(argv));
}

export const NO_DATABASE_MESSAGE = 'no database given: pass --url postgres://… or --sqlite PATH';

/** The store the global options (or DATABASE_URL / PG* variables) name; undefined when none does. */
export function targetOf(argv: GlobalArgs): Target | undefined {
  return resolveTarget({ url: argv.url, sqlite: argv.sqlite, env: ioOf(argv).env });
}

export function tenantOf(argv: GlobalArgs, target: Target): number {
  if (argv.tenant === undefined) return 1;
  if (target.kind !== 'sqlite') throw usageError('--tenant is for SmoothMQ files', 'drop --tenant with pgmq');
  if (!Number.isSafeInteger(argv.tenant) || argv.tenant < 1) {
    throw usageError(`--tenant must be a positive integer, not ${String(argv.tenant)}`);
  }
  return argv.tenant;
}

export interface Session {
  readonly target: Target;
  readonly io: Io;
}

export interface WithBackendOptions {
  /** SQLite: create the file with SmoothMQ's DDL when missing (smq init). */
  readonly create?: boolean;
  /** The command changes the store: refused under --read-only before connecting. */
  readonly writes?: string;
  /** Queue names to validate before connecting. */
  readonly queues?: readonly string[];
  /** Those names are of queues to create (pgmq: the stricter byte limit, see names.ts). */
  readonly createsQueues?: boolean;
  /** Used when no connection is given (the tester's embedded SQLite file); otherwise that is a usage error. */
  readonly fallbackTarget?: () => Target | Promise<Target>;
  /** Checks that need the target but must run before connecting (e.g. backend-specific flags). */
  readonly beforeConnect?: (target: Target) => void;
  readonly open?: Omit<OpenOptions, 'create' | 'readOnly' | 'tenant'>;
}

/** Resolves and checks the target, without connecting. */
export async function prepareTarget(argv: GlobalArgs, options: WithBackendOptions = {}): Promise<Target> {
  let target = targetOf(argv);
  if (target === undefined) {
    if (!options.fallbackTarget) throw usageError(NO_DATABASE_MESSAGE);
    target = await options.fallbackTarget();
  }
  // A command that contradicts --read-only is bad usage (exit 2), refused before connecting;
  // kind 'read-only' (exit 1) is the store's own refusal (a standby, a file smq may not write).
  if (options.writes !== undefined && argv.readOnly) {
    throw usageError(`${options.writes} changes the store and --read-only was given`, 'run it without --read-only');
  }
  for (const q of options.queues ?? []) validateQueueName(target.kind, q, options.createsQueues ? 'create' : 'use');
  tenantOf(argv, target);
  options.beforeConnect?.(target);
  if (target.kind === 'sqlite' && !options.create && !existsSync(target.path)) {
    throw new SmqError('connection', `SQLite file ${JSON.stringify(target.path)} does not exist`, {
      hint: `create it with 'smq init --sqlite ${target.path}', or check the path`,
    });
  }
  return target;
}

/** Opens the store, runs fn, and always closes the store (also when fn throws). */
export async function withBackend<T>(
  argv: GlobalArgs,
  fn: (backend: Backend, session: Session) => Promise<T>,
  options: WithBackendOptions = {},
): Promise<T> {
  const target = await prepareTarget(argv, options);
  const backend = await openBackend(target, {
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    callTimeoutMs: callTimeoutOf(argv),
    ...options.open,
    create: options.create ?? false,
    readOnly: argv.readOnly ?? false,
    tenant: tenantOf(argv, target),
  });
  let result: T;
  try {
    result = await fn(backend, { target, io: ioOf(argv) });
  } catch (e) {
    // The command's own error is the one to report; a failing close must not hide it.
    await backend.close().catch(() => undefined);
    throw e;
  }
  await backend.close();
  return result;
}
