// The one parser for every duration on the command line (--timeout, --vt, --delay,
// --interval, the tester's --duration, --warmup, --max-p99, --naive-pause-ms …): 500ms, 2s,
// 1.5m, 1h, 1m30s, or a bare number, which counts in seconds unless the flag's name says
// ms. It only turns text into a number; whether a store can keep that number (pgmq's vt is
// whole seconds) is for whoever receives it to judge, never rounded here.
import { usageError } from '../errors.js';

export type DurationUnit = 'ms' | 's';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
/** Largest first: 1h30m and 2m5s are durations; 1m1m and 1s1m are typing mistakes, not sums. */
const UNIT_ORDER = ['h', 'm', 's', 'ms'];
const PART = /(\d+(?:\.\d+)?|\.\d+)(ms|s|m|h)/y;
const BARE = /^(\d+(?:\.\d+)?|\.\d+)$/;

export interface DurationOptions {
  /** The unit of the result. Default: milliseconds. */
  readonly unit?: DurationUnit;
  /** What a bare number counts in; null: a unit is required. Default: seconds. */
  readonly bare?: DurationUnit | null;
}

/**
 * digits × unitMs / targetMs, computed from the decimal text so that a value given in the
 * target unit comes back exactly (1.1s is 1.1 seconds, not 1.1000000000000003).
 */
function scaled(digits: string, unitMs: number, targetMs: number): number {
  const [whole = '', fraction = ''] = digits.split('.');
  const mantissa = Number(whole + fraction);
  return (mantissa * unitMs) / (10 ** fraction.length * targetMs);
}

function badDuration(flag: string, text: string, bare: DurationUnit | null, unit: DurationUnit): Error {
  const bareIs = bare === null ? 'a unit is required' : `a bare number is ${bare === 's' ? 'seconds' : 'milliseconds'}`;
  // A flag kept in seconds (--vt, --delay, --poll) is whole seconds where it lands: no 1.5s in its examples.
  const examples = unit === 's' ? '30s, 2m or 1m30s' : '30s, 1.5s, 500ms or 2m';
  return usageError(`invalid --${flag} ${JSON.stringify(text)}`, `give a duration such as ${examples} (${bareIs})`);
}

/**
 * The duration a flag's value gives, in options.unit (exact: callers round where they
 * need whole numbers). Every failure is a usage error (exit 2) in one line that names the
 * flag and says what to write.
 */
export function parseDuration(flag: string, value: unknown, options: DurationOptions = {}): number {
  const unit = options.unit ?? 'ms';
  const bare = options.bare === undefined ? 's' : options.bare;
  if (Array.isArray(value)) throw usageError(`--${flag} given more than once`, 'pass it once');
  const text = String(value).trim();
  const targetMs = UNIT_MS[unit]!;
  let result: number;
  if (BARE.test(text)) {
    // Nothing is nothing in any unit: a bare 0 needs none.
    if (bare === null && Number(text) !== 0) throw usageError(`--${flag} ${text} has no unit`, `write ${text}ms or ${text}s`);
    result = bare === null ? 0 : scaled(text, UNIT_MS[bare]!, targetMs);
  } else {
    result = 0;
    PART.lastIndex = 0;
    let m: RegExpExecArray | null;
    let rank = -1;
    let ordered = true;
    while (PART.lastIndex < text.length && (m = PART.exec(text)) !== null) {
      const unitRank = UNIT_ORDER.indexOf(m[2]!);
      if (unitRank <= rank) ordered = false;
      rank = unitRank;
      result += scaled(m[1]!, UNIT_MS[m[2]!]!, targetMs);
    }
    if (text === '' || PART.lastIndex !== text.length) throw badDuration(flag, text, bare, unit);
    if (!ordered)
      throw usageError(`invalid --${flag} ${JSON.stringify(text)}`, 'each unit at most once, largest first (1h30m, 2m5s, 1s500ms)');
  }
  if (!Number.isFinite(result)) throw usageError(`--${flag} ${JSON.stringify(text)} is too large`, 'give a shorter duration');
  return result;
}

/** A duration in whole milliseconds (timers, deadlines), a bare number in seconds. */
export const parseMilliseconds = (flag: string, value: unknown): number => Math.round(parseDuration(flag, value));
