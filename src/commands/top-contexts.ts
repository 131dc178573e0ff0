// The stores `smq top` can switch between (its contexts, as k9s calls them): --url and
// --sqlite given more than once, mixed (the URLs first, each in the order given), or the
// contexts file (../config/contexts-file.ts), --context NAME picking the one to start on.
// One store given (or one from SMQ_URL, DATABASE_URL, PG* variables) is top as it always
// was: no contexts. Nothing here connects.
import { basename } from 'node:path';
import { contextsFilePath, readContextsFile, type ContextSpec } from '../config/contexts-file.js';
import { describeTarget, parseUrl, resolveTarget, type Target } from '../backends/target.js';
import { usageError } from '../errors.js';

export interface TopContextArgs {
  readonly url?: string | readonly string[] | undefined;
  readonly sqlite?: string | readonly string[] | undefined;
  readonly context?: string | undefined;
  readonly readOnly?: boolean | undefined;
}

export interface TopContexts {
  readonly contexts: readonly ContextSpec[];
  /** The one top starts on. */
  readonly start: number;
  /** The contexts file they come from (undefined: the command line). */
  readonly file?: string | undefined;
}

const listOf = (v: string | readonly string[] | undefined): string[] =>
  v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)];

/** The contexts, or undefined when top has one store as before. */
export function topContextsOf(argv: TopContextArgs, env: NodeJS.ProcessEnv): TopContexts | undefined {
  const urls = listOf(argv.url);
  const files = listOf(argv.sqlite);
  const forced = (c: ContextSpec): ContextSpec => (argv.readOnly ? { ...c, readOnly: true } : c);
  if (argv.context !== undefined) {
    if (urls.length + files.length > 0) {
      throw usageError(
        '--context picks a store from the contexts file; --url and --sqlite name stores themselves',
        'pass --context or --url/--sqlite, not both',
      );
    }
    const file = contextsFilePath(env);
    const contexts = readContextsFile(file, env);
    const name = String(argv.context);
    if (!contexts) throw usageError(`--context ${name}: there is no contexts file ${file}`, 'write one (see smq top --help)');
    const start = contexts.findIndex((c) => c.name === name);
    if (start < 0) {
      throw usageError(`no context ${JSON.stringify(name)} in ${file}: it has ${contexts.map((c) => c.name).join(', ')}`);
    }
    return { contexts: contexts.map(forced), start, file };
  }
  if (urls.length + files.length >= 2) {
    const targets: Target[] = [
      ...urls.map((u) => parseUrl(u, env)),
      ...files.map((f): Target => {
        if (f.trim() === '') throw usageError('--sqlite needs a file path');
        return { kind: 'sqlite', path: f };
      }),
    ];
    const seen = new Map<string, number>();
    const contexts = targets.map((target) => {
      const base = nameOf(target, env);
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      return { name: n === 1 ? base : `${base} (${n})`, target, readOnly: argv.readOnly === true };
    });
    return { contexts, start: 0 };
  }
  if (urls.length + files.length === 1 || resolveTarget({ env }) !== undefined) return undefined;
  const file = contextsFilePath(env);
  const contexts = readContextsFile(file, env);
  return contexts ? { contexts: contexts.map(forced), start: 0, file } : undefined;
}

/** A store given on the command line is named after its host, port and database, or its file. */
function nameOf(target: Target, env: NodeJS.ProcessEnv): string {
  if (target.kind === 'sqlite') return basename(target.path) || target.path;
  // Built from the parsed parts (password masked), so the name cannot carry the password.
  const shown = describeTarget(target, env);
  return shown.slice(shown.lastIndexOf('@') + 1).split('?')[0]!;
}
