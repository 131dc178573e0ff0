// smq top: the live queue browser. On a terminal it runs the Ink UI; with --once, --json,
// or when stdout is not a terminal it prints snapshots of the queue list and exits.
import type { CommandModule } from 'yargs';
import { openBackend, type Backend } from '../backends/index.js';
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
import {
  callTimeoutOf,
  CONNECT_TIMEOUT_MS,
  ioOf,
  outputFormatOf,
  prepareTarget,
  setExitCode,
  tenantOf,
  type GlobalArgs,
} from './context.js';

export interface TopArgs extends GlobalArgs {
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
  // --tenant is checked below: on pgmq it filters SmoothMQ pgmq-driver queues.
  const target = await prepareTarget({ ...argv, tenant: undefined });
  // Without --tenant a SmoothMQ file shows every tenant's queues. On pgmq, --tenant picks
  // the queues SmoothMQ's pgmq driver keeps for that tenant (tnt_<hex>_<name>).
  let tenant: number | undefined;
  let tenantFilter: string | undefined;
  if (argv.tenant !== undefined) {
    if (target.kind === 'sqlite') tenant = tenantOf(argv, target);
    else if (Number.isSafeInteger(argv.tenant) && argv.tenant >= 1) tenantFilter = String(argv.tenant);
    else throw usageError(`--tenant must be a positive integer, not ${String(argv.tenant)}`);
  }
  const location = describeTarget(target, io.env);
  const open = (t: number | undefined) =>
    openBackend(target, {
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      // Every refresh, peek and action: a hung database shows as unreachable (the banner).
      callTimeoutMs,
      readOnly: options.readOnly,
      ...(t === undefined ? {} : { tenant: t }),
    });
  const backend = await open(tenant);
  const others = new Map<number, Promise<Backend>>();
  try {
    const interactive =
      !options.once && !options.formatGiven && io.stdout.isTTY === true && io.stdin.isTTY === true && io.stdout === process.stdout;
    if (!interactive) {
      await printSnapshots(backend, io, options, location, tenantFilter);
      return 0;
    }
    // SmoothMQ acts on one tenant per connection; the others are opened when first needed.
    const mainTenant = tenant ?? 1;
    const backendForTenant = async (t: number): Promise<Backend> => {
      if (t === mainTenant) return backend;
      let b = others.get(t);
      if (!b) {
        b = open(t);
        others.set(t, b);
        b.catch(() => others.delete(t));
      }
      return b;
    };
    // A role or file that may only read: top starts read-only and says why.
    const cannotWrite = options.readOnly ? undefined : await backend.cannotWrite?.().catch(() => undefined);
    const { runInteractive } = await loadTopScreen();
    return await runInteractive({
      backend,
      backendForTenant: backend.capabilities.tenants ? backendForTenant : undefined,
      connection: location,
      intervalMs: options.intervalMs,
      readOnly: options.readOnly || cannotWrite !== undefined,
      readOnlyReason: cannotWrite ?? 'top was started with --read-only',
      exactThreshold: options.exactThreshold,
      maxRefreshes: options.refreshes,
      tenantFilter,
    });
  } finally {
    const all = [backend, ...(await Promise.allSettled(others.values())).flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))];
    await Promise.allSettled([...new Set(all)].map((b) => b.close()));
  }
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
      .option('once', { type: 'boolean', describe: 'print one snapshot of the queue list and exit' })
      .option('n', { type: 'number', requiresArg: true, describe: 'exit after N refreshes' })
      .option('exact-threshold', {
        type: 'number',
        requiresArg: true,
        describe: 'queues with more rows than this show estimated counts, marked ~',
      })
      .example('$0 top --url postgres://app@db/app', 'browse pgmq queues')
      .example('$0 top --sqlite ./smoothmq.db --read-only', 'look without being able to change anything')
      .example('$0 top --once --json --url postgres://…', 'one snapshot as JSON'),
  handler: async (argv) => {
    setExitCode(argv, await runTop(argv));
  },
};
