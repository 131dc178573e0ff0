// smq tester compare BASELINE.json NEW.json: two runs of `smq tester --json` side by side;
// exit 5 when throughput dropped or a p99 rose by more than --max-regression (for CI).
import type { CommandModule } from 'yargs';
import { ExitCode, usageError } from '../errors.js';
import { toJsonDocument, toJsonLine } from '../output/json.js';
import { escapeControl, escapeControlKeepNewlines } from '../text/escape.js';
import { compareReports, reportProblem, type ComparableReport } from '../tester/compare.js';
import { formatComparison } from '../tester/compare-text.js';
import { readReportFile, ReportFileError } from './report-file.js';
import { GLOBAL_OPTION_NAMES, ioOf, outputFormatOf, setExitCode, type GlobalArgs } from './context.js';

interface CompareArgs extends GlobalArgs {
  readonly baseline: string;
  readonly new: string;
  readonly maxRegression: string;
}

/** A report is tens of kB (a long run's series, a few MB): anything beyond this is not one. */
export const REPORT_MAX_BYTES = 64 * 1024 * 1024;

/** A report saved by `smq tester --json`: one usage line when it cannot be read or is not one. */
export function readReport(file: string): ComparableReport {
  let text: string;
  try {
    text = readReportFile(file, escapeControl(file), REPORT_MAX_BYTES);
  } catch (e) {
    if (!(e instanceof ReportFileError)) throw e;
    throw usageError(e.problem, e.tooLarge ? undefined : 'give the file `smq tester --json > FILE` wrote');
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw usageError(`${escapeControl(file)} is not JSON`, 'give the file `smq tester --json > FILE` wrote');
  }
  const problem = reportProblem(doc);
  if (problem)
    throw usageError(`${escapeControl(file)} is not a tester report: ${problem}`, 'give the file `smq tester --json > FILE` wrote');
  return doc as ComparableReport;
}

/** "10%", "10" or "2.5%": a percentage, at least 0. */
export function parsePercent(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  if (!m) throw usageError(`--max-regression ${JSON.stringify(escapeControl(text))} is not a percentage`, 'write e.g. 10%');
  return Number(m[1]);
}

export const testerCompareCommand: CommandModule<GlobalArgs, CompareArgs> = {
  command: 'compare <baseline> <new>',
  describe: 'compare two runs saved with --json: throughput and every percentile, the change and the noise',
  builder: (y) => {
    // yargs hands a subcommand its parent's options: the run's flags mean nothing here, so
    // they stay out of this help (the run's --baseline too, but not the operand of that name).
    const own = new Set(['baseline', 'new', 'max-regression', 'maxRegression', 'help', 'version', ...GLOBAL_OPTION_NAMES]);
    const declared = (y as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key;
    for (const key of Object.keys(declared)) if (!own.has(key)) y.hide(key);
    return y
      .positional('baseline', { type: 'string', describe: 'the earlier run (smq tester --json > base.json)' })
      .positional('new', { type: 'string', describe: 'the run to judge' })
      .option('max-regression', {
        type: 'string',
        default: '10%',
        requiresArg: true,
        describe: 'exit 5 when throughput dropped or a p99 rose by more than this',
      })
      .group(['max-regression'], 'Options:')
      .group([...GLOBAL_OPTION_NAMES, 'help', 'version'], 'Global options:')
      .example('$0 tester compare base.json new.json --max-regression 5%', 'fail a CI job on a regression')
      .epilogue('Exit codes: 0 no regression, 5 a regression beyond --max-regression, 2 bad input') as never;
  },
  handler: (argv) => {
    const io = ioOf(argv);
    // Text unless JSON is asked for, piped or not (as smq tester's report).
    const format = argv.json === true || argv.output !== undefined ? outputFormatOf(argv) : 'table';
    const maxRegressionPct = parsePercent(argv.maxRegression);
    const baseline = readReport(argv.baseline);
    const next = readReport(argv.new);
    const c = compareReports(baseline, next, maxRegressionPct);
    if (format === 'json' || format === 'ndjson') {
      const doc = { baseline: argv.baseline, new: argv.new, ...c };
      io.stdout.write(format === 'json' ? toJsonDocument(doc) : toJsonLine(doc));
    } else {
      const text = formatComparison(
        c,
        { file: argv.baseline, startedAt: baseline.startedAt, verdict: baseline.verdict },
        { file: argv.new, startedAt: next.startedAt, verdict: next.verdict },
      );
      io.stdout.write(escapeControlKeepNewlines(text));
    }
    setExitCode(argv, c.regressions.length > 0 ? ExitCode.thresholdMissed : ExitCode.ok);
  },
};
