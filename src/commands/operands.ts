// '--' ends the options: every word after it is a positional argument, as in every POSIX tool
// (`smq create -- -dash`). yargs 18 has no parser setting for this with commands: it keeps
// those words aside in argv['--'] and fills a command's positionals only from the words
// before '--' (populate--, halt-at-non-option and unknown-options-as-args do not change that),
// and it would read a positional '-dash' as flags again when it assigns it. So main() hands
// yargs a stand-in for each such word, one that reads as a plain word, and a middleware puts
// the words back before any validation or handler sees them.
//
// As in getopt, nothing after '--' is an option's value: in `smq peek q --limit -- 2` the
// --limit has none. An option right before '--' goes last in yargs' arguments, after the
// stand-ins, where yargs finds it without a value and says so as for `smq peek q --limit`;
// a boolean one (`smq --json -- queues`) means there what it means anywhere.

/** A NUL cannot be in a command-line argument, so no word the user gives looks like one. */
const standIn = (i: number) => `\u0000smq-operand-${i}\u0000`;
const STAND_IN = /\u0000smq-operand-(\d+)\u0000/g;

/** Read as an option by yargs: a dash and more, except a negative number (`--tenant -1` is a value). */
const isOption = (word: string) => /^-./.test(word) && !/^-(\d+(\.\d*)?|\.\d+)$/.test(word);

export interface Operands {
  /** The arguments for yargs: the words after the first '--' as stand-ins, the '--' dropped, an option right before it last. */
  readonly args: readonly string[];
  /** The text with every stand-in replaced by its word (yargs' messages name them). */
  restore(text: string): string;
  /** Replaces every stand-in among argv's values (positionals, `_`, an option's value) by its word. */
  restoreArgv(argv: Record<string, unknown>): void;
}

/**
 * The command itself may follow '--' (`smq -- queues`, `smq -- tester compare a b`): while the
 * words so far name no command yet (namesNoCommand: none of them names one, or the one that
 * does has subcommands and none of those follows), the next word after '--' is in the
 * command's place, as it is without '--' (`smq -- bogus` is `smq bogus`, unknown command and
 * all). The rest are operands; so is a word starting with '-' (`smq -- -x` is no option).
 */
export function protectOperands(argv: readonly string[], namesNoCommand: (words: readonly string[]) => boolean = () => false): Operands {
  const cut = argv.indexOf('--');
  let before = cut < 0 ? argv : argv.slice(0, cut);
  let words = cut < 0 ? [] : argv.slice(cut + 1);
  const last = before.at(-1);
  const lastOption = cut >= 0 && last !== undefined && isOption(last) ? [last] : [];
  if (lastOption.length > 0) before = before.slice(0, -1);
  while (cut >= 0 && words.length > 0 && !words[0]!.startsWith('-') && namesNoCommand(before)) {
    before = [...before, words[0]!];
    words = words.slice(1);
  }
  // A lone '-' (stdin in send, a name elsewhere) is no option, but yargs would make it '': a
  // stand-in too, wherever it is.
  const dashes = before.filter((w) => w === '-').length;
  const stood = [...words, ...Array<string>(dashes).fill('-')];
  let dash = words.length;
  const beforeArgs = dashes === 0 ? before : before.map((w) => (w === '-' ? standIn(dash++) : w));
  const restore = (text: string) => text.replace(STAND_IN, (_m, i: string) => stood[Number(i)] ?? '');
  const restoreValue = (v: unknown): unknown => (typeof v === 'string' ? restore(v) : Array.isArray(v) ? v.map(restoreValue) : v);
  return {
    args: cut < 0 && dashes === 0 ? argv : [...beforeArgs, ...words.map((_w, i) => standIn(i)), ...lastOption],
    restore,
    restoreArgv: (a) => {
      if (stood.length > 0) for (const key of Object.keys(a)) a[key] = restoreValue(a[key]);
    },
  };
}
