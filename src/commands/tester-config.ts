// smq tester's command line read into a TesterConfig: its arguments, durations and counts
// checked (usage errors name the flag), the --fault specs and the test hooks.
import { redactSecrets, secretsFor, type Target } from '../backends/target.js';
import { usageError } from '../errors.js';
import { validateConfig, type TesterConfig } from '../tester/config.js';
import { parseFaultSpec } from '../tester/fault-spec.js';
import type { Faults } from '../tester/protocol.js';
import { parseDuration, parseMilliseconds } from '../text/duration.js';
import { throttleMsOf } from './args.js';
import { CONNECT_TIMEOUT_MS, callTimeoutOf, ioOf, tenantOf, type GlobalArgs } from './context.js';

export interface TesterArgs extends GlobalArgs {
  readonly senders: number;
  readonly receivers: number;
  readonly messages?: number | undefined;
  readonly duration?: string | undefined;
  readonly size: number;
  readonly batch: number;
  readonly vt: string;
  readonly rate: number;
  readonly maxBacklog?: number | undefined;
  readonly warmup: string;
  readonly queue?: string | undefined;
  readonly keep?: boolean | undefined;
  readonly ack: string;
  readonly drainTimeout: string;
  readonly settle?: string | undefined;
  readonly allowForeign?: boolean | undefined;
  readonly runId?: string | undefined;
  readonly outageTimeout: string;
  readonly hdrLog?: string | undefined;
  readonly html?: string | undefined;
  readonly baseline?: string | undefined;
  readonly maxP99?: string | undefined;
  readonly isolation?: string | undefined;
  readonly dequeue: string;
  readonly naivePauseMs?: string | undefined;
  readonly threads?: number | undefined;
  readonly groups?: number | undefined;
  readonly read?: string | undefined;
  readonly poll?: string | undefined;
  readonly ackDelay?: string | undefined;
  readonly listen?: boolean | undefined;
  readonly listenThrottle?: string | undefined;
  readonly fault?: string | string[] | undefined;
  readonly topic?: string | string[] | undefined;
  readonly bind?: string | string[] | undefined;
}

/** Test hooks, never documented in --help: SMQ_TESTER_FAULTS (JSON) and SMQ_TESTER_RUN_ID (as --run-id). */
function faultsFrom(env: NodeJS.ProcessEnv): Faults | undefined {
  const raw = env['SMQ_TESTER_FAULTS'];
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as Faults;
  } catch {
    throw usageError('SMQ_TESTER_FAULTS is not valid JSON');
  }
}

/**
 * --fault, each parsed; a command or its output may hold the connection's password, so the
 * report shows the spec (and the command) with it scrubbed, and scrubs the output too.
 */
function faultsOf(argv: TesterArgs, env: NodeJS.ProcessEnv): Pick<TesterConfig, 'faultSpecs' | 'secrets'> {
  if (argv.fault === undefined) return {};
  const secrets = secretsFor(argv.url === undefined ? [] : ['--url', String(argv.url)], env);
  const faultSpecs = [argv.fault].flat().map((f) => {
    const spec = parseFaultSpec(String(f));
    return { ...spec, text: redactSecrets(spec.text, secrets) };
  });
  return { faultSpecs, secrets };
}

const num = (name: string, v: unknown): number => {
  if (typeof v !== 'number' || Number.isNaN(v)) {
    // yargs turns a word given to a number option into NaN: the word itself is gone.
    throw usageError(
      typeof v === 'number' || v === undefined ? `--${name} must be a number` : `--${name} must be a number, not ${JSON.stringify(v)}`,
    );
  }
  return v;
};

/** --topic KEY (repeatable) and --bind PATTERN=QUEUE (repeatable); undefined when neither is given. */
function fanoutOf(argv: TesterArgs): TesterConfig['fanout'] {
  if (argv.topic === undefined && argv.bind === undefined) return undefined;
  const keys = [argv.topic ?? []].flat().map(String);
  const binds = [argv.bind ?? []].flat().map((text) => {
    const m = /^([^=]+)=([^=]+)$/.exec(String(text));
    if (!m) throw usageError(`--bind takes PATTERN=QUEUE, not ${JSON.stringify(String(text))}`, 'for example --bind orders.*=q1');
    return { pattern: m[1]!, queue: m[2]! };
  });
  return { keys, binds };
}

/** The command line as a TesterConfig (without the target); usage errors name the flag. */
/** The most a timer holds (2^31 - 1 ms, about 24.8 days); a longer wait would end at once or never. */
const MAX_TIMER_MS = 2_147_483_647;

/** A duration the run waits with a timer: in milliseconds, refused past MAX_TIMER_MS. */
function timerMs(flag: string, value: unknown): number {
  const ms = parseMilliseconds(flag, value);
  if (ms > MAX_TIMER_MS) throw usageError(`--${flag} must be less than 24 days, not ${String(value)}`, `for example --${flag} 1h`);
  return ms;
}

export function testerConfigFrom(argv: TesterArgs, target: Target, embedded: boolean): TesterConfig {
  if (argv.messages !== undefined && argv.duration !== undefined) {
    throw usageError('--messages and --duration both given', 'a run is either a number of messages per sender or a time');
  }
  const senders = num('senders', argv.senders);
  const hasAmount = argv.messages !== undefined || argv.duration !== undefined;
  const env = ioOf(argv).env;
  const isolation = argv.isolation as TesterConfig['isolation'];
  const config: TesterConfig = {
    target,
    createSqlite: embedded,
    tenant: target.kind === 'sqlite' ? tenantOf(argv, target) : undefined,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    callTimeoutMs: callTimeoutOf(argv),
    senders,
    receivers: num('receivers', argv.receivers),
    threads: argv.threads === undefined ? undefined : num('threads', argv.threads),
    // Neither given: a short default run, so `npx smq tester` shows something at once.
    messagesPerSender: argv.messages !== undefined ? num('messages', argv.messages) : hasAmount || senders === 0 ? undefined : 1000,
    durationMs: argv.duration !== undefined ? timerMs('duration', argv.duration) : undefined,
    sizeBytes: num('size', argv.size),
    batch: num('batch', argv.batch),
    vtSec: parseDuration('vt', argv.vt, { unit: 's' }),
    ratePerSec: num('rate', argv.rate),
    maxBacklog: argv.maxBacklog === undefined ? undefined : num('max-backlog', argv.maxBacklog),
    warmupMs: timerMs('warmup', argv.warmup),
    queue: argv.queue,
    keep: argv.keep === true,
    ack: argv.ack as TesterConfig['ack'],
    drainTimeoutMs: timerMs('drain-timeout', argv.drainTimeout),
    settleMs: argv.settle === undefined ? undefined : timerMs('settle', argv.settle),
    allowForeign: argv.allowForeign === true,
    outageTimeoutMs: timerMs('outage-timeout', argv.outageTimeout),
    isolation,
    dequeue: argv.dequeue as TesterConfig['dequeue'],
    ...(argv.naivePauseMs !== undefined ? { naivePauseMs: parseDuration('naive-pause-ms', argv.naivePauseMs, { bare: 'ms' }) } : {}),
    groups: argv.groups === undefined ? undefined : num('groups', argv.groups),
    read: argv.read as TesterConfig['read'],
    pollSec: argv.poll === undefined ? undefined : parseDuration('poll', argv.poll, { unit: 's' }),
    listen: argv.listen === true,
    ...(argv.listenThrottle !== undefined ? { listenThrottleMs: throttleMsOf(argv.listenThrottle, 'listen-throttle') } : {}),
    ackDelayMs: argv.ackDelay === undefined ? undefined : timerMs('ack-delay', argv.ackDelay),
    fanout: fanoutOf(argv),
    hdrLogPath: argv.hdrLog,
    // A bare number meant milliseconds before durations: a unit is required, so that an old
    // `--max-p99 50` is refused instead of silently becoming 50 seconds.
    maxP99Ms: argv.maxP99 === undefined ? undefined : parseDuration('max-p99', argv.maxP99, { bare: null }),
    runId: argv.runId ?? (env['SMQ_TESTER_RUN_ID'] || undefined),
    faults: faultsFrom(env) ?? {},
    ...faultsOf(argv, env),
  };
  validateConfig(config);
  return config;
}
