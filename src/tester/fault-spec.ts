// --fault: what the tester does to the store during a run, and when. `terminate@10s` ends the
// run's own connections on the server at 10 s; `exec:COMMAND@10s` runs COMMAND through the
// shell (a switchover, a promotion, a cloud CLI's failover call). `,every=30s` repeats it.
// The command may hold @ and commas itself: the time is what follows the last @.
import { usageError } from '../errors.js';
import { parseDuration } from '../text/duration.js';

export type FaultKind = 'terminate' | 'exec';

export interface FaultSpec {
  readonly kind: FaultKind;
  /** exec: the shell command. */
  readonly command?: string;
  /** First time, ms after the run's start. */
  readonly atMs: number;
  /** Repeat period (ms); undefined: once. */
  readonly everyMs: number | undefined;
  /** As given, for the report. */
  readonly text: string;
}

const EXAMPLE = "give KIND@TIME, e.g. terminate@10s or 'exec:patronictl switchover --force@30s' (repeat with ,every=30s)";

function bad(text: string, why: string): Error {
  return usageError(`invalid --fault ${JSON.stringify(text)}: ${why}`);
}

function duration(text: string, what: string, value: string): number {
  try {
    return parseDuration('fault', value);
  } catch {
    throw bad(text, `${what} ${JSON.stringify(value)} is not a duration: write it as 10s, 1.5s, 500ms or 2m`);
  }
}

export function parseFaultSpec(text: string): FaultSpec {
  const at = text.lastIndexOf('@');
  if (at < 0) throw bad(text, EXAMPLE);
  const what = text.slice(0, at);
  const [time = '', ...options] = text.slice(at + 1).split(',');
  let kind: FaultKind;
  let command: string | undefined;
  if (what === 'terminate') kind = 'terminate';
  else if (what.startsWith('exec:')) {
    kind = 'exec';
    command = what.slice('exec:'.length);
    if (command.trim() === '') throw bad(text, 'no command after exec:');
  } else throw bad(text, `the kind is terminate or exec:COMMAND (${EXAMPLE})`);
  const atMs = duration(text, 'the time', time);
  let everyMs: number | undefined;
  for (const option of options) {
    const [name, value = ''] = option.split('=', 2);
    if (name !== 'every') throw bad(text, `unknown option ${JSON.stringify(name)} (the one option is every=DURATION)`);
    everyMs = duration(text, 'every', value);
    if (!(everyMs >= 100)) throw bad(text, 'every must be 100ms or more');
  }
  return { kind, ...(command !== undefined ? { command } : {}), atMs, everyMs, text };
}

/** The k-th time (ms after the start) the fault fires: at, at + every, at + 2 every … */
export const nthFaultMs = (spec: FaultSpec, k: number): number | undefined =>
  k === 0 ? spec.atMs : spec.everyMs === undefined ? undefined : spec.atMs + k * spec.everyMs;

/** Every time the fault fires before untilMs. */
export function faultTimesMs(spec: FaultSpec, untilMs: number): number[] {
  const out: number[] = [];
  for (let k = 0; ; k++) {
    const t = nthFaultMs(spec, k);
    if (t === undefined || t >= untilMs) return out;
    out.push(t);
  }
}
