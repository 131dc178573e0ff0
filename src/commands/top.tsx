// smq top: the live queue browser. On a terminal it runs the Ink UI; with --once, --json,
// or when stdout is not a terminal it prints snapshots of the queue list and exits.
import type { CommandModule } from 'yargs';
import type { Backend } from '../backends/index.js';
import { describeTarget } from '../backends/target.js';
import { usageError } from '../errors.js';
import type { Io } from '../output/io.js';
import { toJsonDocument, toJsonLine } from '../output/json.js';
import { INITIAL_MONITOR, refreshSucceeded, type MonitorState } from '../ui/model/monitor.js';
import { sortRows, DEFAULT_SORT } from '../ui/model/sort.js';
import { snapshotJson, snapshotTable } from '../ui/model/snapshot.js';
import { MIN_INTERVAL_MS } from '../ui/model/interval.js';
import { loadTopScreen } from '../ui/ink-caches.js';
import { parseDuration } from '../text/duration.js';
import { nonNegativeInt, positiveInt } from './args.js';
import { contextsFilePath } from '../config/contexts-file.js';
import {
  callTimeoutOf,
  ioOf,
  NO_DATABASE_MESSAGE,
  outputFormatOf,
  prepareTarget,
  setExitCode,
  targetOf,
  type GlobalArgs,
} from './context.js';
import { topContextsOf, type TopContexts } from './top-contexts.js';
import { openTopSession, sessionError, type TopSession, type TopSessionOptions } from './top-session.js';

/** --url and --sqlite given more than once (yargs makes them arrays) are top's contexts. */
export interface TopArgs extends GlobalArgs {
  /** A context of the contexts file ($XDG_CONFIG_HOME/smq/contexts.ini). */
  readonly context?: string | undefined;
  readonly interval?: string | undefined;
  readonly once?: boolean | undefined;
  readonly n?: number | undefined;
  readonly exactThreshold?: number | undefined;
}

export interface TopOptions {
  readonly intervalMs: number;
  readonly once: boolean;
  readonly refreshes: number | undefined;
  readonly exactThreshold: number | undefined;
  readonly readOnly: boolean;
  /** table, or json / ndjson when asked for explicitly. */
  readonly format: 'table' | 'json' | 'ndjson';
  /** Whether --json / --output was given (then never interactive). */
  readonly formatGiven: boolean;
}

/** Checks and converts the command line; every failure is a usage error (exit 2). */
export function topOptions(argv: TopArgs): TopOptions {
  const ms = argv.interval === undefined ? 2000 : parseDuration('interval', argv.interval);
  if (ms < MIN_INTERVAL_MS) {
    throw usageError(
      `--interval must be at least ${MIN_INTERVAL_MS / 1000}s, not ${JSON.stringify(String(argv.interval))}`,
      'for example --interval 2s',
    );
  }
  const formatGiven = argv.json === true || argv.output !== undefined;
  const format = formatGiven ? outputFormatOf(argv) : 'table';
  return {
    intervalMs: Math.round(ms),
    once: argv.once === true,
    refreshes: argv.n === undefined ? undefined : positiveInt('n', argv.n, '5'),
    exactThreshold: argv.exactThreshold === undefined ? undefined : nonNegativeInt('exact-threshold', argv.exactThreshold, '100000'),
    readOnly: argv.readOnly === true,
    format,
    formatGiven,
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Snapshots without a terminal: one (or -n N, an interval apart), as an aligned table,
 * one JSON document (an array when N > 1), or one NDJSON line per refresh.
 */
export async function printSnapshots(
  backend: Backend,
  io: Io,
  options: TopOptions,
  location: string,
  tenantFilter?: string,
): Promise<void> {
  const count = options.once ? 1 : (options.refreshes ?? 1);
  const info = await backend.info().catch(() => undefined);
  let state: MonitorState = INITIAL_MONITOR;
  const docs: unknown[] = [];
  for (let i = 0; i < count; i++) {
    if (i > 0) await sleep(options.intervalMs);
    const threshold = options.exactThreshold;
    const queues = await backend.listQueues(threshold === undefined ? {} : { exactThreshold: threshold });
    const at = Date.now();
    state = refreshSucceeded(state, queues, at);
    const shown = tenantFilter === undefined ? state.rows.rows : state.rows.rows.filter((r) => r.tenant === tenantFilter);
    const rows = sortRows(shown, DEFAULT_SORT);
    if (options.format === 'table') {
      if (count > 1) io.stdout.write(`${i > 0 ? '\n' : ''}# ${new Date(at).toISOString()} · refresh ${i + 1} of ${count}\n`);
      io.stdout.write(snapshotTable(rows, backend.capabilities));
      continue;
    }
    const doc = snapshotJson(rows, { at, info, backend: backend.kind, location });
    if (options.format === 'ndjson') io.stdout.write(toJsonLine(doc));
    else docs.push(doc);
  }
  if (options.format === 'json') io.stdout.write(toJsonDocument(count === 1 ? docs[0] : docs));
}

export async function runTop(argv: TopArgs): Promise<number> {
  const options = topOptions(argv);
  const callTimeoutMs = callTimeoutOf(argv);
  const io = ioOf(argv);
  const found = topContextsOf(argv, io.env);
  const interactive =
    !options.once && !options.formatGiven && io.stdout.isTTY === true && io.stdin.isTTY === true && io.stdout === process.stdout;
  const sessionOptions = (readOnly: boolean, readOnlyReason?: string): TopSessionOptions => ({
    callTimeoutMs,
    readOnly,
    readOnlyReason,
    tenant: argv.tenant,
    checkWrites: interactive,
    env: io.env,
  });
  const opened: TopSession[] = [];
  try {
    if (found) return await runContexts(found, { options, io, interactive, opened, sessionOptions });
    if (targetOf(argv) === undefined) throw usageError(NO_DATABASE_MESSAGE, `or name stores in ${contextsFilePath(io.env)}`);
    // --tenant is checked by openTopSession: on pgmq it filters SmoothMQ pgmq-driver queues.
    const target = await prepareTarget({ ...argv, tenant: undefined });
    const session = await openTopSession(target, sessionOptions(options.readOnly));
    opened.push(session);
    if (!interactive) {
      await printSnapshots(session.backend, io, options, session.connection, session.tenantFilter);
      return 0;
    }
    const { runInteractive } = await loadTopScreen();
    return await runInteractive({ ...session, ...interactiveOptions(options) });
  } finally {
    await Promise.allSettled(opened.map((s) => s.close()));
  }
}

const interactiveOptions = (options: TopOptions) => ({
  intervalMs: options.intervalMs,
  exactThreshold: options.exactThreshold,
  maxRefreshes: options.refreshes,
});

interface ContextRun {
  readonly options: TopOptions;
  readonly io: Io;
  readonly interactive: boolean;
  /** Every session opened, closed by runTop. */
  readonly opened: TopSession[];
  readonly sessionOptions: (readOnly: boolean, readOnlyReason?: string) => TopSessionOptions;
}

/**
 * Top over several stores: it starts on the chosen one; when that one cannot connect,
 * interactive top says so and starts on the next that can (snapshots fail instead: a script
 * must not get another store's queues). Each context is opened once, when first used.
 */
async function runContexts(found: TopContexts, run: ContextRun): Promise<number> {
  const { io, options } = run;
  const byName = new Map(found.contexts.map((c) => [c.name, c]));
  const sessions = new Map<string, Promise<TopSession>>();
  const open = (name: string): Promise<TopSession> => {
    const known = sessions.get(name);
    if (known) return known;
    const c = byName.get(name)!;
    const reason = options.readOnly ? undefined : 'read-only in the contexts file';
    const opening = openTopSession(c.target, run.sessionOptions(c.readOnly, reason)).then(
      (s) => {
        run.opened.push(s);
        return s;
      },
      (e: unknown) => {
        sessions.delete(name);
        throw sessionError(e, c.target, io.env);
      },
    );
    sessions.set(name, opening);
    return opening;
  };
  const order = [...found.contexts.slice(found.start), ...found.contexts.slice(0, found.start)].map((c) => c.name);
  const failures = new Map<string, unknown>();
  let first: { name: string; session: TopSession } | undefined;
  for (const name of run.interactive ? order : order.slice(0, 1)) {
    try {
      first = { name, session: await open(name) };
      break;
    } catch (e) {
      failures.set(name, e);
    }
  }
  if (!first) throw failures.get(order[0]!);
  if (!run.interactive) {
    await printSnapshots(first.session.backend, io, options, first.session.connection, first.session.tenantFilter);
    return 0;
  }
  const { runInteractive } = await loadTopScreen();
  return await runInteractive({
    ...first.session,
    ...interactiveOptions(options),
    contexts: {
      entries: found.contexts.map((c) => ({
        name: c.name,
        kind: c.target.kind,
        location: describeTarget(c.target, io.env),
        readOnly: c.readOnly,
      })),
      current: first.name,
      failures: [...failures].map(([name, e]) => ({ name, error: e })),
      open,
    },
  });
}

export const topCommand: CommandModule<GlobalArgs, TopArgs> = {
  command: 'top',
  describe: 'live queue browser: counts, rates, messages, actions',
  builder: (y) =>
    y
      .option('interval', {
        type: 'string',
        requiresArg: true,
        describe:
          'time between refreshes, e.g. 2s or 500ms; a bare number is seconds (0.5s minimum; + and - change it while running) [default: 2s]',
      })
      .option('context', {
        type: 'string',
        requiresArg: true,
        describe:
          'start on this context of the contexts file ($XDG_CONFIG_HOME/smq/contexts.ini, else ~/.config/smq/contexts.ini: ' +
          '[name] sections with url or sqlite, and read-only); : in top switches context',
      })
      .option('once', { type: 'boolean', describe: 'print one snapshot of the queue list and exit' })
      .option('n', { type: 'number', requiresArg: true, describe: 'exit after N refreshes' })
      .option('exact-threshold', {
        type: 'number',
        requiresArg: true,
        describe: 'queues with more rows than this show estimated counts, marked ~',
      })
      .example('$0 top --url postgres://app@db/app', 'browse pgmq queues')
      .example('$0 top --sqlite ./smoothmq.db --read-only', 'look without being able to change anything')
      .example('$0 top --once --json --url postgres://…', 'one snapshot as JSON')
      .example('$0 top --url postgres://db1/app --sqlite q.db', 'two stores (contexts); : switches')
      .example('$0 top --context prod', 'start on [prod] of ~/.config/smq/contexts.ini'),
  handler: async (argv) => {
    setExitCode(argv, await runTop(argv));
  },
};
