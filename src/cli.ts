// The smq command line: global options, the subcommands, and main(). bin/smq.js calls
// main() and is the one place that turns a thrown error into a line on stderr and an
// exit code; tests may call main() in-process with their own streams.
import { readFileSync } from 'node:fs';
import yargs, { type Argv } from 'yargs';
import { flagOf, refuseRepeated, refuseRepeatedWords, shortWord, splitAttachedValues, unknownOptionWords } from './commands/args.js';
import { COMMANDS, commandsFor, type AnyCommand, type LoadedCommands } from './commands/index.js';
import { GLOBAL_OPTION_NAMES, globalOptions, type ExitHolder, type GlobalArgs } from './commands/context.js';
import { protectOperands, type Operands } from './commands/operands.js';
import { usageError } from './errors.js';
import { processIo, type Io } from './output/io.js';

export { isSmqError, SmqError } from './errors.js';
export { redactSecrets } from './backends/secrets.js';
export { secretsFor } from './backends/target.js';
export { escapeControl } from './text/escape.js';
export { firstNonUtf8Argument } from './text/argv-bytes.js';
export { isDeadTerminalError, leaveProcess, terminalHungUp } from './output/hangup.js';
export { stdoutGoneWhileChanging } from './output/closed-output.js';

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** yargs spreads some messages over lines ("Invalid values:\n  Argument: …"): one line, please. */
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

/**
 * A subcommand's help lists its own options first and the global ones after them, under
 * their own heading (as k6 and nats do): yargs shows groups in the order they are made, and
 * the positionals' group is made by the command's builder, so the two groups come after it.
 */
function globalsLast(command: AnyCommand): AnyCommand {
  const { builder } = command;
  return {
    ...command,
    builder: (y: Argv<GlobalArgs>) => {
      const built = typeof builder === 'function' ? builder(y) : builder ? y.options(builder) : y;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
      return (built as Argv<any>).group([], 'Options:').group([...GLOBAL_OPTION_NAMES, 'help', 'version'], 'Global options:');
    },
  };
}

const commandNames = new Set(COMMANDS.flatMap((c) => c.names));
const subcommandNames = new Map(COMMANDS.flatMap((c) => (c.subcommands ? c.names.map((n) => [n, new Set(c.subcommands)] as const) : [])));

/** The words name no command yet: none of them names one, or the one that does has subcommands and none of them follows. */
function namesNoCommand(words: readonly string[]): boolean {
  const at = words.findIndex((w) => commandNames.has(w));
  if (at < 0) return true;
  const subs = subcommandNames.get(words[at]!);
  return subs !== undefined && !words.slice(at + 1).some((w) => subs.has(w));
}

/** yargs' own table of options (getOptions(), left out of its types). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parser's argument type does not matter here
const optionsOf = (y: Argv<any>) =>
  (y as unknown as { getOptions(): { boolean: string[]; alias: Record<string, string[]>; key: Record<string, unknown> } }).getOptions();

/** The option words the parser knows no option of (`--bogus`, `-z`), as typed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parser's argument type does not matter here
function unknownOptions(y: Argv<any>, argv: readonly string[]): string[] {
  const { key, alias } = optionsOf(y);
  const names = new Set([...Object.keys(key), ...Object.values(alias).flat(), 'help', 'h', 'version']);
  // yargs takes --maxBacklog for --max-backlog.
  const kebab = (n: string) => n.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return unknownOptionWords(argv, (n) => names.has(n) || names.has(kebab(n)));
}

/**
 * The first word in a command's place (before the command's name, or anywhere when no word
 * names one) that is neither an option nor the value of one the parser knows; undefined if
 * none. After '--' the next word is a word.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parser's argument type does not matter here
function wordInCommandPlace(y: Argv<any>, argv: readonly string[], command: string | undefined): string | undefined {
  const { key, alias } = optionsOf(y);
  const names = new Set([...Object.keys(key), ...Object.values(alias).flat()]);
  const end = command === undefined ? argv.length : argv.indexOf(command);
  for (let i = 0; i < end; i++) {
    const w = argv[i]!;
    if (w === '--') return i + 1 < end ? argv[i + 1] : undefined;
    if (w === '-' || !w.startsWith('-') || /^-\d/.test(w)) return w;
    if (w.includes('=')) continue;
    // `--name value`, `-n value`, `-yn value` (the last letter takes it).
    const name = w.startsWith('--') ? w.slice(2) : w.slice(-1);
    if (names.has(name) && !takesNoValue(y, name)) i++;
  }
  return undefined;
}

/** A boolean option (or an alias of one) takes no value from the next word. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parser's argument type does not matter here
function takesNoValue(y: Argv<any>, name: string): boolean {
  const { boolean, alias } = optionsOf(y);
  const names = new Set([name, ...(alias[name] ?? []), ...Object.keys(alias).filter((k) => alias[k]!.includes(name))]);
  return boolean.some((b) => names.has(b)) || name === 'help' || name === 'h' || name === 'version';
}

/** The help to point at: the first word that names a command (the first word that is no option may be an option's value). */
function helpForOf(argv: readonly string[]): string {
  const at = argv.findIndex((a) => commandNames.has(a));
  if (at < 0) return 'smq --help';
  // `smq tester compare a.json`: the subcommand's own help.
  const subs = subcommandNames.get(argv[at]!);
  const sub = subs && argv.slice(at + 1).find((w) => subs.has(w));
  return `smq ${argv[at]}${sub === undefined ? '' : ` ${sub}`} --help`;
}

/**
 * yargs-parser's words for an option given no value (`smq peek q --limit`, or `--limit -- 2`:
 * see commands/operands.ts, or `--limit -h`); the key is the name as typed (-n, not --limit).
 */
const valuelessKey = (message: string | undefined) =>
  (message && /^Not enough arguments following: (\S+)$/.exec(message)?.[1]) || undefined;

/** The error yargs-parser left on the last parse (yargs' `parsed`, left out of its types), if any. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parser's argument type does not matter here
const parseErrorOf = (y: Argv<any>) =>
  ((y as unknown as { parsed?: { error?: Error | null } | false }).parsed || undefined)?.error?.message;

const needsValue = (key: string, helpFor: string) => usageError(`${flagOf(key)} needs a value`, `see '${helpFor}'`);

/**
 * yargs' "Not enough non-option arguments: got 1, need at least 2" as the operands left out
 * and the command's form: `missing <new>: smq tester compare <baseline> <new> [options]`.
 */
function missingOperands(text: string, helpFor: string, forms: ReadonlyMap<string, string>): Error | undefined {
  const counts = /^Not enough non-option arguments: got (\d+), need at least \d+$/.exec(text);
  const form = forms.get(helpFor.replace(/^smq | --help$/g, ''));
  if (!counts || form === undefined) return undefined;
  const required = form.split(' ').filter((w) => w.startsWith('<'));
  const missing = required.slice(Number(counts[1]));
  if (missing.length === 0) return undefined;
  return usageError(`missing ${missing.join(' ')}: smq ${form} [options]`, `see '${helpFor}'`);
}

/**
 * The parser for these words, with the commands they need (commands/index.ts: commandsFor).
 * parseFailed is called when yargs refuses the words themselves (no handler has run).
 */
export function buildParser(
  argv: readonly string[],
  io: Io,
  { commands, forms }: LoadedCommands,
  operands: Operands = protectOperands(argv),
  parseFailed: () => void = () => undefined,
) {
  const command = argv.find((a) => commandNames.has(a));
  const helpFor = helpForOf(argv);
  let parser = globalOptions(yargs())
    .scriptName('smq')
    .usage('smq <command> [options]\n\nMessage queues in a database: pgmq on PostgreSQL, SmoothMQ on SQLite.')
    .strict()
    .demandCommand(1, 'no command given')
    .recommendCommands()
    .help()
    .alias('help', 'h')
    .version(packageVersion())
    .exitProcess(false)
    .wrap(Math.min(110, io.stdout.columns ?? 100))
    // Before validation, so that choices and checks see the words given after '--'.
    .middleware((args) => {
      operands.restoreArgv(args);
      refuseRepeated(args);
      // The parser as the command's builder left it: its aliases include the command's own.
      refuseRepeatedWords(argv, optionsOf(parser).alias);
    }, true)
    .fail((message, error) => {
      // yargs' own words, or yargs-parser's error: not an error a handler threw.
      if (!error || error.name === 'YError') parseFailed();
      const valueless = valuelessKey(error?.message);
      if (valueless !== undefined) throw needsValue(valueless, helpFor);
      if (error) throw error;
      const text = operands.restore(oneLine(message ?? 'invalid arguments'));
      const missing = missingOperands(text, helpFor, forms);
      if (missing) throw missing;
      // yargs' "Invalid values: Argument: state, Given: "nope", Choices: "ready", …" (once per option).
      const choices = [...text.matchAll(/Argument: (\S+), Given: (.+?), Choices: (.+?)(?= Argument: |$)/g)];
      if (text.startsWith('Invalid values:') && choices.length > 0) {
        throw usageError(
          choices.map(([, name, given, list]) => `${flagOf(name!)} ${given} is not one of ${list}`).join('; '),
          `see '${helpFor}'`,
        );
      }
      // `smq --url receive orders`: the option took the command's name as its value.
      const taker = command === undefined ? undefined : argv[argv.indexOf(command) - 1];
      if (taker !== undefined && /^--?[^-=][^=]*$/.test(taker) && !takesNoValue(parser, taker.replace(/^-+/, ''))) {
        throw usageError(
          `${taker} took '${command}' as its value`,
          `give ${taker} its value, or put it after the command: see '${helpFor}'`,
        );
      }
      // `smq bogus peek q`, `smq bogus --limit 3`: a word in the command's place names none
      // (yargs would name it among the command's words, or its options as unknown).
      const refusedWords = text === 'no command given' || /^Unknown arguments?: /.test(text);
      const stranger = refusedWords ? wordInCommandPlace(parser, argv, command) : undefined;
      if (stranger !== undefined && !commandNames.has(stranger))
        throw usageError(`unknown command: ${shortWord(stranger)}`, "see 'smq --help'");
      // `smq --bogus`, `smq peek q -z`: the option as typed (yargs asks for a command first, or
      // names the option by its stripped key: "Unknown argument: z").
      if (refusedWords) {
        const bad = unknownOptions(parser, argv);
        const shown = bad.map(shortWord).join(', ');
        if (bad.length > 0) throw usageError(`unknown option${bad.length > 1 ? 's' : ''} ${shown}`, `see '${helpFor}'`);
      }
      // yargs' suggestion alone ("Did you mean top?") does not say what was wrong.
      const unknown = /^Did you mean (\S+)\?$/.exec(text);
      if (unknown) throw usageError(`unknown command: did you mean ${unknown[1]}?`, `see '${helpFor}'`);
      // yargs' "Unknown argument: bogus" for a word in a command's place close to no command's name.
      const stray = /^Unknown arguments?: ([^,\s]+)/.exec(text);
      if (stray && namesNoCommand(argv.filter((w) => w !== '--'))) {
        throw usageError(`unknown command: ${command === undefined ? '' : `${command} `}${stray[1]}`, `see '${helpFor}'`);
      }
      throw usageError(text, `see '${helpFor}'`);
    });
  for (const command of commands) parser = parser.command(globalsLast(command));
  return parser;
}

/**
 * The words up to the first one in a command's place that names none (`smq bogus`, `smq tester
 * comapre`: tester takes no operands, a word after it names a subcommand); undefined if none.
 */
function unknownCommand(words: readonly string[]): string[] | undefined {
  const [first, second] = words;
  if (first === undefined) return undefined;
  if (!commandNames.has(first)) return [first];
  const subs = subcommandNames.get(first);
  return subs !== undefined && second !== undefined && !subs.has(second) ? [first, second] : undefined;
}

/**
 * Runs one smq invocation. Resolves with the exit code; rejects with the error when the
 * command fails (an SmqError carries its exit code).
 */
export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  // `smq help queues` is `smq queues --help`, as in git and kubectl (`smq help`: the top-level help).
  if (argv[0] === 'help') return main([...argv.slice(1), '--help'], io);
  const words = splitAttachedValues(argv);
  return run(words, io, await commandsFor(words));
}

/**
 * One parse with these commands. With only the commands the words name (a word may have been
 * an option's value), what yargs says without running a handler (the help, "did you mean", a
 * word it refuses) may depend on the others: it is then said with every command loaded.
 */
async function run(argv: readonly string[], io: Io, loaded: LoadedCommands): Promise<number> {
  const exit: ExitHolder = { code: 0 };
  let shown = '';
  let unknown: string[] | undefined;
  let valueless: string | undefined;
  let refused = false;
  const operands = protectOperands(argv, namesNoCommand);
  const parser = buildParser(argv, io, loaded, operands, () => (refused = true));
  try {
    // The parse context reaches every handler as argv.smqIo / argv.smqExit (see commands/context.ts).
    await parser.parseAsync([...operands.args], { smqIo: io, smqExit: exit }, (_err, args, output) => {
      shown = output;
      // yargs shows the help (or the version) before it reports an option without a value: in
      // `--queue -dash` or `--limit -h` the word is read as flags (-d -a -s -h), h is --help, and
      // the run or the CI gate would end with the help and exit 0. The missing value is the mistake.
      if (output) valueless = valuelessKey(parseErrorOf(parser));
      // yargs shows the help and the version before it looks at the command: `smq bogus --help`,
      // `smq tester comapre --help` and `smq bogus --version` are still mistyped commands (as in kubectl).
      if (output) unknown = unknownCommand(args._.map((w) => operands.restore(String(w))));
    });
  } catch (e) {
    if (refused && loaded.partial) return run(argv, io, await commandsFor([]));
    throw e;
  }
  if (shown && loaded.partial) return run(argv, io, await commandsFor([]));
  // The same line as `smq bogus` (`smq tester comapre`), from the same place (no handler runs:
  // it is no command). After '--', so that a word given there as '-x' stays a word.
  if (unknown !== undefined) return main([...unknown.slice(0, -1), '--', ...unknown.slice(-1)], io);
  if (valueless !== undefined) throw needsValue(valueless, helpForOf(argv));
  if (shown) io.stdout.write(shown.endsWith('\n') ? shown : `${shown}\n`);
  return exit.code;
}
