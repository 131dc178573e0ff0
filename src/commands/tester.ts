// smq tester: a load test with a delivery-correctness verdict. The handler converts the
// command line into a TesterConfig and calls runTester(); the engine lives in src/tester,
// the live view in src/ui/tester.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { ExitCode, SmqError, usageError } from '../errors.js';
import { escapeControl, escapeControlKeepNewlines } from '../text/escape.js';
import { ACK_MODES, DEQUEUE_STRATEGIES, ISOLATIONS, READ_MODES } from '../tester/config.js';
import type { FaultRecord, TesterReport } from '../tester/index.js';
import { leaveProcess } from '../output/hangup.js';
import { toJsonDocument, toJsonLine } from '../output/json.js';
import { plainProgressLine } from '../ui/tester/format.js';
import { readReport, testerCompareCommand } from './tester-compare.js';
import { quitNow } from './tester-quit.js';
import { testerConfigFrom, type TesterArgs } from './tester-config.js';
import { checkReportFiles, unwrittenReportLine, writeReportFile } from './tester-outputs.js';

export type { TesterArgs } from './tester-config.js';
import { loadTesterScreen } from '../ui/ink-caches.js';
import { ioOf, outputFormatOf, prepareTarget, setExitCode, targetOf, type GlobalArgs } from './context.js';

/** The exit code after each stop signal. */
const SIGNAL_EXIT = { SIGINT: ExitCode.interrupted, SIGTERM: ExitCode.terminated, SIGHUP: ExitCode.hangup } as const;

/**
 * The exit code of a finished run, so that CI can tell them apart: 0 clean; 4 violations
 * found; 5 --max-p99 missed or not measured, with a clean verdict (violations come first); 6 incomplete (a
 * drain of an earlier run: no violation, loss and unexpected not judged); 130 interrupted
 * (Ctrl-C), 143 SIGTERM, 129 SIGHUP. A run that could not be carried out ends in an error
 * instead (exit 1), as does bad usage (exit 2).
 */
export function exitCodeOf(report: Pick<TesterReport, 'interrupted' | 'interruptedBy' | 'verdict' | 'maxP99'>): number {
  if (report.interrupted) return SIGNAL_EXIT[report.interruptedBy ?? 'SIGINT'];
  if (report.verdict === 'violations') return ExitCode.violations;
  if (report.verdict !== 'clean' && report.verdict !== 'incomplete') return ExitCode.failure;
  // Missed: over the limit, or nothing measured (a gate with no sample is never passed).
  if (report.maxP99?.missed) return ExitCode.thresholdMissed;
  return report.verdict === 'incomplete' ? ExitCode.notJudged : ExitCode.ok;
}

/**
 * A report file (--html, --hdr-log) asked for and not written fails a clean run (1); a verdict
 * of its own (4, 5, a signal's) is the more telling code and stays, the line on stderr says the rest.
 */
const exitCodeWith = (verdictCode: number, unwritten: boolean) =>
  unwritten && verdictCode === ExitCode.ok ? ExitCode.failure : verdictCode;

/** What `smq tester --help` says about exit codes (the README has the same table). */
const EXIT_CODES_HELP = [
  'Exit codes:',
  '  0    clean: every message accounted for, thresholds met',
  "  1    could not run: the store unreachable or refusing, a worker crashed, nothing worked, a drain found no message of its run id; or a clean run's --html or --hdr-log file not written (4 and 5 stay)",
  '  2    bad usage',
  '  4    violations found (lost, double-dequeued, resurrected, duplicated, unexpected, group overlap, reordered, split brain)',
  '  5    --max-p99 missed, or not measured (no latency samples); the verdict is otherwise clean',
  '  6    incomplete: no violation found, but loss and unexpected messages not judged (a drain, --senders 0)',
  '  130  interrupted: Ctrl-C (143 SIGTERM, 129 SIGHUP)',
].join('\n');

export async function runTester(argv: TesterArgs): Promise<number> {
  const io = ioOf(argv);
  // The text report unless JSON is asked for: ndjson is the same document on one line.
  const format = argv.json === true || argv.output !== undefined ? outputFormatOf(argv) : 'table';
  const json = format !== 'table';
  const embedded = targetOf(argv) === undefined;
  let tempDir: string | undefined;
  const target = await prepareTarget(argv, {
    writes: 'smq tester',
    create: embedded,
    queues: argv.queue === undefined ? [] : [argv.queue],
    fallbackTarget: () => {
      tempDir = mkdtempSync(join(tmpdir(), 'smq-tester-'));
      return { kind: 'sqlite', path: join(tempDir, 'smq-tester.sqlite') };
    },
  });
  try {
    const config = testerConfigFrom(argv, target, embedded);
    const reportFiles = [
      ...(argv.html === undefined ? [] : [{ flag: 'html', path: String(argv.html) } as const]),
      ...(argv.hdrLog === undefined ? [] : [{ flag: 'hdr-log', path: String(argv.hdrLog) } as const]),
    ];
    checkReportFiles(reportFiles, { target, baseline: argv.baseline, stdoutFd: io.stdout === process.stdout ? 1 : undefined });
    if (argv.baseline !== undefined && argv.html === undefined) throw usageError('--baseline draws on the HTML report', 'add --html FILE');
    const baseline = argv.baseline === undefined ? undefined : readReport(argv.baseline);
    if (embedded) {
      io.stderr.write(
        // Two lines, so that an 80-column terminal does not cut the folder's name.
        `smq tester: no --url or --sqlite given, so the run uses an\n  embedded SQLite file in ${escapeControl(tempDir ?? '?')}` +
          `${config.keep ? ' (kept)' : ' (removed afterwards)'}\n`,
      );
    }
    // The engine is loaded by the run that needs it: every other command starts without it.
    const { TesterRun, formatReport, htmlReport } = await import('../tester/index.js');
    const run = new TesterRun(config);

    // Ctrl-C, SIGTERM or SIGHUP (the terminal closed) once: stop the senders, drain briefly,
    // print the partial report, drop the fresh queue (exit 130, 143, 129). A second signal:
    // leave at once, the temporary folder removed, a queue left on the store named.
    let interrupts = 0;
    const onSignal = (signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP') => {
      interrupts += 1;
      if (interrupts === 1) {
        const again = signal === 'SIGINT' ? 'Ctrl-C again' : 'signal again';
        const what = signal === 'SIGINT' ? 'interrupted' : signal === 'SIGTERM' ? 'terminated' : 'hung up';
        io.stderr.write(`\nsmq tester: ${what}: stopping senders and draining briefly (${again} to quit now)\n`);
        run.interrupt(signal);
      } else {
        const given = { url: argv.url !== undefined, tenant: argv.tenant };
        quitNow(io.stderr, { tempDir, keep: config.keep, leftBehind: run.leftBehind(), target, ...given });
        leaveProcess(SIGNAL_EXIT[signal]);
      }
    };
    const onSigint = () => onSignal('SIGINT');
    const onSigterm = () => onSignal('SIGTERM');
    const onSighup = () => onSignal('SIGHUP');
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigterm);
    process.on('SIGHUP', onSighup);

    const reads = config.read !== undefined && config.read !== 'plain' ? ` · read ${config.read}` : '';
    const groups = (config.groups ?? 0) > 0 ? ` · ${config.groups} groups` : '';
    const title = `smq tester · ${config.senders} senders → ${config.receivers} receivers · ${config.dequeue}${reads}${groups}`;
    let live: { stop(): Promise<void> } | undefined;
    const onProgress = (s: Parameters<typeof plainProgressLine>[0]) => io.stderr.write(plainProgressLine(s) + '\n');
    const onFault = (f: FaultRecord) =>
      io.stderr.write(`smq tester: --fault ${escapeControl(f.fault)} fired at ${(f.atMs / 1000).toFixed(1)} s\n`);
    // A terminal without a size (some CI pseudo-terminals) cannot hold the live view.
    if (io.stderr.isTTY && io.stderr === process.stderr && (process.stderr.columns ?? 0) > 0) {
      const { startLiveView } = await loadTesterScreen();
      live = startLiveView(run, process.stderr, title);
    } else {
      run.on('progress', onProgress);
      run.on('fault', onFault);
    }
    let report: TesterReport;
    try {
      report = await run.run();
    } finally {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
      process.off('SIGHUP', onSighup);
      run.off('progress', onProgress);
      run.off('fault', onFault);
      await live?.stop();
    }
    if (format === 'ndjson') io.stdout.write(toJsonLine(report));
    else if (json) io.stdout.write(toJsonDocument(report));
    else io.stdout.write(escapeControlKeepNewlines(formatReport(report)));
    // A report file that could not be written is said, and the verdict's own code kept (see exitCodeWith).
    const unwritten: string[] = [];
    const htmlFile = reportFiles.find((f) => f.flag === 'html');
    if (htmlFile) {
      const failed = writeReportFile(htmlFile, htmlReport(report, baseline));
      if (failed === undefined) io.stderr.write(`smq tester: the HTML report is in ${escapeControl(htmlFile.path)}\n`);
      else unwritten.push(failed);
    }
    const hdrFile = reportFiles.find((f) => f.flag === 'hdr-log');
    const hdrFailure = run.hdrLogFailure();
    if (hdrFile && hdrFailure) unwritten.push(unwrittenReportLine(hdrFile, hdrFailure));
    for (const line of unwritten) io.stderr.write(line);
    if (config.keep && tempDir) io.stderr.write(`smq tester: kept ${escapeControl(target.kind === 'sqlite' ? target.path : '')}\n`);
    if (report.failure !== null) {
      const where = json ? 'the JSON report on stdout' : 'the report above';
      const hint = report.partial ? `${where} is partial` : `${where} has the counts`;
      // Interrupted meanwhile: the signal's exit code stands, the reason is still said.
      if (report.interrupted) io.stderr.write(`smq tester: ${escapeControl(report.failure)} (${hint})\n`);
      else throw new SmqError('database', `tester ${report.partial ? 'stopped' : 'failed'}: ${report.failure}`, { hint });
    }
    return exitCodeWith(exitCodeOf(report), unwritten.length > 0);
  } finally {
    if (tempDir && argv.keep !== true) rmSync(tempDir, { recursive: true, force: true });
  }
}

/** smq tester's subcommands: its builder declares them; commands/index.ts lists their names for cli.ts. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each subcommand has its own argument type
export const testerSubcommands: CommandModule<GlobalArgs, any>[] = [testerCompareCommand];

export const testerCommand: CommandModule<GlobalArgs, TesterArgs> = {
  command: 'tester',
  describe: 'load-test a queue and check every message: lost, double-dequeued, redelivered …',
  // yargs adds the camelCase forms (drainTimeout, hdrLog, …) at run time, not in its types.
  builder: (y) =>
    y
      .command(testerSubcommands)
      .option('senders', { type: 'number', default: 2, requiresArg: true, describe: 'sender threads (0: drain --queue only)' })
      .option('receivers', { type: 'number', default: 2, requiresArg: true, describe: 'receiver threads (0: send only, no loss verdict)' })
      .option('messages', { type: 'number', requiresArg: true, describe: 'messages per sender [default: 1000 unless --duration]' })
      .option('duration', { type: 'string', requiresArg: true, describe: 'send for this long instead, e.g. 30s or 1m' })
      .option('size', { type: 'number', default: 256, requiresArg: true, describe: 'body size in bytes' })
      .option('batch', { type: 'number', default: 1, requiresArg: true, describe: 'messages per send_batch and per receive' })
      .option('vt', {
        type: 'string',
        default: '30s',
        requiresArg: true,
        describe: 'visibility timeout, whole seconds (e.g. 30s, 2m; a bare number is seconds)',
      })
      .option('rate', {
        type: 'number',
        default: 0,
        requiresArg: true,
        describe: 'total offered load in messages/s (0: as fast as possible)',
      })
      .option('max-backlog', {
        type: 'number',
        requiresArg: true,
        describe: 'closed loop: senders wait while this many sent messages are not yet received',
      })
      .option('warmup', { type: 'string', default: '0s', requiresArg: true, describe: 'excluded from the statistics, e.g. 5s' })
      .option('queue', { type: 'string', requiresArg: true, describe: 'use this queue [default: a fresh one, dropped after]' })
      .option('keep', { type: 'boolean', describe: 'keep the fresh queue (and the embedded SQLite file)' })
      .option('ack', { choices: ACK_MODES, default: 'delete', requiresArg: true, describe: 'how receivers acknowledge' })
      .option('drain-timeout', {
        type: 'string',
        default: '10s',
        requiresArg: true,
        describe: 'stop draining after this long without a new message (redeliveries do not count)',
      })
      .option('settle', {
        type: 'string',
        requiresArg: true,
        describe: 'after the drain, keep receiving this long to catch messages that come back [default: one --vt when --vt <= 10s, else 0]',
      })
      .option('run-id', {
        type: 'string',
        requiresArg: true,
        describe: 'the run id in message bodies [default: random]; with --senders 0, the earlier run whose messages to drain',
      })
      .option('allow-foreign', {
        type: 'boolean',
        describe:
          "run on a queue holding messages that are not the run's: receivers take only the run's (pgmq 1.4: others are handed back at once), never deleted, counted",
      })
      .option('outage-timeout', {
        type: 'string',
        default: '30s',
        requiresArg: true,
        describe: 'give up (partial report, exit 1) when every call of a worker has failed for this long',
      })
      .option('html', {
        type: 'string',
        requiresArg: true,
        describe: 'also write the report as one self-contained HTML file with charts (opens without a network)',
      })
      .option('baseline', {
        type: 'string',
        requiresArg: true,
        describe: 'with --html: an earlier run saved with --json, drawn dashed on the same axes',
      })
      .option('hdr-log', { type: 'string', requiresArg: true, describe: 'write an HdrHistogram log of end-to-end latency to FILE' })
      .option('max-p99', {
        type: 'string',
        requiresArg: true,
        describe: 'exit 5 when the end-to-end p99 exceeds this duration, e.g. 50ms (a unit is required)',
      })
      .option('isolation', { choices: ISOLATIONS, requiresArg: true, describe: "PostgreSQL transaction isolation [default: the server's]" })
      .option('dequeue', {
        choices: DEQUEUE_STRATEGIES,
        default: 'safe',
        requiresArg: true,
        describe: 'safe: atomic claim; naive: racy select-then-update, to see the checker catch it',
      })
      .option('groups', {
        type: 'number',
        requiresArg: true,
        describe:
          "FIFO groups (pgmq 1.5+): senders spread messages over N groups (header x-pgmq-group), and the checker judges each group's order",
      })
      .option('read', {
        choices: READ_MODES,
        default: 'plain',
        requiresArg: true,
        describe:
          "how receivers read: pgmq's read, read_with_poll, or read_grouped / read_grouped_rr / read_grouped_head (pgmq 1.9+, 1.12+)",
      })
      .option('poll', {
        type: 'string',
        requiresArg: true,
        describe:
          'the _with_poll reads wait up to this long for messages, 1s to 10s (--read poll: 1s; with a grouped --read: its _with_poll form)',
      })
      .option('listen', {
        type: 'boolean',
        describe:
          "receivers wait for pgmq's insert notification (LISTEN, pgmq 1.7+; each receiver one more connection) after an empty read instead of polling; --poll: the fallback wait (default 250ms)",
      })
      .option('listen-throttle', {
        type: 'string',
        requiresArg: true,
        describe: "with --listen: the throttle the run sets on the queue's notifications (default 0: one per inserting statement)",
      })
      .option('ack-delay', {
        type: 'string',
        requiresArg: true,
        describe: "receivers hold each batch this long before acknowledging it (a consumer's work), e.g. 200ms",
      })
      .option('topic', {
        type: 'string',
        requiresArg: true,
        describe: 'fan-out (pgmq 1.11+): senders send with send_topic under KEY (several: batch by batch in turn); needs --bind',
      })
      .option('bind', {
        type: 'string',
        requiresArg: true,
        describe:
          'with --topic: PATTERN=QUEUE, a fresh queue bound to the pattern for the run (repeatable); each message must arrive once in every queue its key matches, nowhere else',
      })
      .option('threads', {
        type: 'number',
        requiresArg: true,
        describe:
          'worker threads per role [default: Postgres half the cores, a sender thread and a receiver thread sharing one unless --rate; SQLite one per sender/receiver]; each sender/receiver keeps its own connection',
      })
      .option('naive-pause-ms', {
        type: 'string',
        requiresArg: true,
        describe: 'naive: pause between select and update (widens the race); a bare number is ms',
      })
      .option('fault', {
        type: 'string',
        requiresArg: true,
        describe:
          "during the run: terminate@10s ends the run's own connections on the server (pg_terminate_backend); " +
          "'exec:COMMAND@10s' runs COMMAND through the shell (a switchover, a promotion), its output kept for the report; " +
          'add ,every=30s to repeat; may be given several times',
      })
      .example('$0 tester', 'a short run on an embedded SQLite file')
      .example('$0 tester --url postgres://localhost/app --senders 8 --receivers 8 --duration 30s --warmup 5s', '')
      .example('$0 tester --url postgres://localhost/app --dequeue naive --receivers 4', 'watch double-dequeues get caught')
      .example('$0 tester --url postgres://localhost/app --groups 8 --read grouped --receivers 4', 'FIFO groups: order judged per group')
      .example(
        "$0 tester --url postgres://localhost/app --topic orders.eu.new --bind 'orders.*.new=eu_new' --bind 'orders.#=all' --receivers 4",
        'fan-out: judged per bound queue',
      )
      .example(
        "$0 tester --url 'postgres://db1:5432,db2:5432/app?target_session_attrs=read-write' --duration 1m",
        'primary and standby: every (re)connect goes to the one that takes writes',
      )
      .example('$0 tester --url postgres://localhost/app --listen --rate 50 --duration 20s', 'receivers wake on NOTIFY instead of polling')
      .example('$0 tester --sqlite smq.db --rate 2000 --duration 1m --max-p99 50ms --json', 'a latency gate for CI')
      .example(
        "$0 tester --url postgres://db1,db2/app --duration 1m --fault 'exec:patronictl switchover --force@20s'",
        'across a switchover',
      )
      .epilogue(EXIT_CODES_HELP) as unknown as Argv<TesterArgs>,
  handler: async (argv) => {
    setExitCode(argv, await runTester(argv));
  },
};
