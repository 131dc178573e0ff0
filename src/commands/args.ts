// Turning command-line text into checked values. Every failure is an invalid-input
// error (exit 2) that names the option and says what is expected.
import { invalidInput, usageError } from '../errors.js';
import type { MessageId } from '../backends/types.js';
import { parseDuration } from '../text/duration.js';
import { parseMessageId } from '../text/ids.js';

/**
 * A message id argument (the parser is shared with top: ../text/ids). Only plain decimal
 * digits: ' 1' is refused, not trimmed (a script that pastes ids with spaces has a bug to see).
 */
export function messageIdArg(text: string, what = 'message id'): MessageId {
  const t = String(text);
  const parsed = parseMessageId(t);
  if (parsed.ok) return parsed.id;
  if (parsed.problem === 'range') throw invalidInput(`invalid ${what} ${t}`, 'it is larger than a 64-bit id');
  throw invalidInput(`invalid ${what} ${JSON.stringify(t)}`, 'ids are non-negative whole numbers in plain digits, no spaces, e.g. 42');
}

/** How an option is written on the command line: -n, --qty. */
export const flagOf = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`);

/** Lists by design: --header, tester's --topic / --bind / --fault, top's --url / --sqlite (elsewhere backends/target.ts refuses them), delete's ids. */
const REPEATABLE = new Set(['_', '$0', 'header', 'topic', 'bind', 'fault', 'url', 'sqlite', 'ids']);

/**
 * An option given twice reaches a command as a list of both values (yargs), where it would be
 * judged as one (`--limit 2 --limit 3`: "--limit must be a whole number"): say what is wrong.
 * The name is the long one (`-n 3 --limit 2` is --limit given twice); camelCase copies are skipped.
 */
export function refuseRepeated(argv: Record<string, unknown>): void {
  const repeated = Object.keys(argv).filter((k) => Array.isArray(argv[k]) && !REPEATABLE.has(k) && !/[A-Z]/.test(k));
  const name = repeated.find((k) => k.length > 1) ?? repeated[0];
  if (name !== undefined) throw usageError(`${flagOf(name)} given more than once`, 'pass it once');
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * The same check on the words as typed, before `--`: yargs-parser does not always make a
 * list of a repeated option (a repeated 1 is added to the value before it, as a count:
 * `--qty 1 --qty 1` became 2), so the words are counted too. `aliases` is yargs' table
 * (limit: ['n']); `--maxBacklog` is `--max-backlog`, `--no-x` is `--x`.
 */
export function refuseRepeatedWords(words: readonly string[], aliases: Readonly<Record<string, readonly string[]>>): void {
  const canonical = new Map<string, string>();
  for (const [key, list] of Object.entries(aliases)) for (const a of list) canonical.set(kebab(a), kebab(key));
  const seen = new Set<string>();
  for (const word of words) {
    if (word === '--') break;
    const m = /^--?([^-=\d][^=]*)/.exec(word);
    if (!m) continue;
    // Short options bundled (-ab) are each an option; a long one is one name.
    const names = word.startsWith('--') ? [m[1]!.replace(/^no-/, '')] : [...m[1]!];
    for (const typed of names) {
      const name = canonical.get(kebab(typed)) ?? kebab(typed);
      if (REPEATABLE.has(name)) continue;
      if (seen.has(name)) throw usageError(`${flagOf(name)} given more than once`, 'pass it once');
      seen.add(name);
    }
  }
}

function checkInteger(name: string, value: unknown, min: number, example: string): number {
  const n = typeof value === 'number' ? value : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min) {
    // yargs has already turned text like "abc" into NaN: then there is nothing useful to echo.
    const shown = typeof value === 'number' && Number.isFinite(value) ? `, not ${value}` : '';
    throw invalidInput(`${flagOf(name)} must be a whole number of ${min} or more${shown}`, `for example ${flagOf(name)} ${example}`);
  }
  return n;
}

export const positiveInt = (name: string, value: unknown, example = '10') => checkInteger(name, value, 1, example);
export const nonNegativeInt = (name: string, value: unknown, example = '30') => checkInteger(name, value, 0, example);

export function optionalNonNegativeInt(name: string, value: unknown, example?: string): number | undefined {
  return value === undefined ? undefined : nonNegativeInt(name, value, example);
}

/** --header k=v, repeatable: the option arrives as a string or an array of them. */
export function parseHeaders(value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  const items = (Array.isArray(value) ? value : [value]).map(String);
  const headers: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw invalidInput(`invalid --header ${JSON.stringify(item)}`, 'write --header name=value');
    headers[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return headers;
}

/** Positional strings: yargs may hand over numbers for names like 007 unless told otherwise. */
export function asStrings(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

const MAX_THROTTLE_MS = 2_147_483_647;

/**
 * --throttle (or `flag`) in whole milliseconds. A bare number other than 0 is refused (it
 * read as milliseconds here and as seconds everywhere else): `--throttle 5` says which.
 */
export function throttleMsOf(value: unknown, flag = 'throttle'): number {
  const ms = parseDuration(flag, value, { unit: 'ms', bare: null });
  if (!Number.isInteger(ms) || ms > MAX_THROTTLE_MS) {
    throw usageError(`--${flag} ${String(value)} is not a whole number of milliseconds up to 24 days`, 'give e.g. 0, 250ms or 1s');
  }
  return ms;
}

/**
 * The short options that take a value (-o output, -n limit or qty) with the value attached:
 * `-ojson` is `-o json`, as kubectl and getopt read it (yargs read the flags -o -j -s -o -n).
 * Only before '--': after it every word is an operand.
 */
export function splitAttachedValues(argv: readonly string[]): string[] {
  const cut = argv.indexOf('--');
  const out: string[] = [];
  for (const [i, word] of argv.entries()) {
    const attached = (cut < 0 || i < cut) && /^-([on])([^=].*)$/s.exec(word);
    if (attached) out.push(`-${attached[1]}`, attached[2]!);
    else out.push(word);
  }
  return out;
}

/**
 * The option words given before '--' that name no option `known` knows, as they were typed
 * (`--bogus`, `-z`, `--no-such`), each once: yargs names them by their stripped key
 * ("Unknown argument: z"), or asks for a command before it looks at them. A word that reads
 * as a number (`-5`) is a value, not an option.
 */
export function unknownOptionWords(words: readonly string[], known: (name: string) => boolean): string[] {
  const end = words.indexOf('--');
  const out = new Set<string>();
  for (const w of end < 0 ? words : words.slice(0, end)) {
    if (w === '-' || !w.startsWith('-') || /^-\d/.test(w)) continue;
    if (w.startsWith('--')) {
      const name = w.slice(2).split('=')[0]!;
      if (name === '') continue; // `--=x`: no name to say; yargs' own words stay
      const negated = name.startsWith('no-') && known(name.slice(3));
      if (!known(name) && !negated) out.add(`--${name}`);
    } else {
      // -abc is -a -b -c; from the first character that is no letter on, a value (-n5).
      for (const letter of /^[a-zA-Z]*/.exec(w.slice(1))![0]) if (!known(letter)) out.add(`-${letter}`);
    }
  }
  return [...out];
}

/** A stranger's word as an error line shows it: whole, or its first 40 characters (a 5,000-character word). */
export function shortWord(word: string): string {
  const chars = [...word];
  return chars.length > 40 ? `${chars.slice(0, 40).join('')}…` : word;
}
