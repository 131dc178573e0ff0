// The contexts file of smq top: the stores an operator switches between, one [section] each.
//
//     # $XDG_CONFIG_HOME/smq/contexts.ini (default ~/.config/smq/contexts.ini)
//     [prod]
//     url = postgres://ops@db1.internal/app
//     read-only = true
//     [local]
//     sqlite = ~/smoothmq/smoothmq.db
//
// Keys: url (postgres://… or sqlite:PATH), sqlite (a path: relative to this file's folder,
// ~/ to the home folder), read-only. Passwords are best left out of the file: libpq's
// PGPASSWORD, ~/.pgpass and ?service= work as for --url. A file that holds one must be
// private (as libpq wants of ~/.pgpass). Every problem is one usage error (exit 2) naming the
// file and the line; a line or a URL is never shown, as it may hold a password.
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseUrl, type Target } from '../backends/target.js';
import { passwordCandidates } from '../backends/secrets.js';
import { readFailure, SmqError, usageError } from '../errors.js';
import { readTextFile } from '../read-text-file.js';

export interface ContextSpec {
  readonly name: string;
  readonly target: Target;
  /** Opened read-only (as with --read-only) whatever the role could do. */
  readonly readOnly: boolean;
}

const KEYS = ['url', 'sqlite', 'read-only'] as const;
type Key = (typeof KEYS)[number];

const BOOLEANS: Readonly<Record<string, boolean>> = {
  true: true,
  yes: true,
  on: true,
  '1': true,
  false: false,
  no: false,
  off: false,
  '0': false,
};

const CONTROL = /[\p{Cc}\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/u;

/** $XDG_CONFIG_HOME/smq/contexts.ini; ~/.config when it is unset, empty or relative (the XDG spec). */
export function contextsFilePath(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env['XDG_CONFIG_HOME'];
  const base = xdg && isAbsolute(xdg) ? xdg : join(env['HOME'] || homedir(), '.config');
  return join(base, 'smq', 'contexts.ini');
}

interface Section {
  readonly name: string;
  readonly line: number;
  readonly values: Partial<Record<Key, { readonly value: string; readonly line: number }>>;
}

/** The contexts a file's text names, in its order. */
export function parseContextsFile(text: string, file: string, env: NodeJS.ProcessEnv = process.env): ContextSpec[] {
  const where = `contexts file ${JSON.stringify(file)}`;
  const fail = (problem: string, hint?: string): never => {
    throw usageError(`${where}: ${problem}`, hint);
  };
  const sections: Section[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const n = i + 1;
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    if (line.startsWith('[')) {
      const name = line.endsWith(']') ? line.slice(1, -1).trim() : '';
      if (name === '') fail(`line ${n}: a context needs a name`, 'write [name] on a line of its own');
      if (CONTROL.test(name)) fail(`line ${n}: a context name may not hold control characters`);
      if (sections.some((s) => s.name === name)) fail(`line ${n}: context ${JSON.stringify(name)} is named twice`);
      sections.push({ name, line: n, values: {} });
      return;
    }
    const eq = line.indexOf('=');
    // The line itself is never shown: it may be a password.
    if (eq <= 0) fail(`line ${n}: not key = value (the line is not shown: it may hold a password)`, `keys: ${KEYS.join(', ')}`);
    const key = line.slice(0, eq).trim().toLowerCase();
    if (!(KEYS as readonly string[]).includes(key)) {
      fail(`line ${n}: unknown key ${JSON.stringify(key.replace(CONTROL, '?'))}`, `keys: ${KEYS.join(', ')}`);
    }
    const section = sections.at(-1);
    if (!section) fail(`line ${n}: ${JSON.stringify(key)} before the first [context]`, 'start with [name]');
    const values = section!.values as Record<Key, { value: string; line: number }>;
    if (values[key as Key]) fail(`line ${n}: ${JSON.stringify(key)} given twice in context ${JSON.stringify(section!.name)}`);
    values[key as Key] = { value: line.slice(eq + 1).trim(), line: n };
  });
  if (sections.length === 0) fail('names no context', 'write [name] and then url = postgres://… or sqlite = PATH');
  return sections.map((s) => contextOf(s, file, env, fail));
}

function contextOf(s: Section, file: string, env: NodeJS.ProcessEnv, fail: (problem: string, hint?: string) => never): ContextSpec {
  const { url, sqlite } = s.values;
  const named = `context ${JSON.stringify(s.name)}`;
  if (url && sqlite) fail(`${named} (line ${s.line}) has both url and sqlite`, 'give one of them');
  const given = url ?? sqlite;
  if (!given) fail(`${named} (line ${s.line}) has neither url nor sqlite`, 'add url = postgres://… or sqlite = PATH');
  let target: Target;
  try {
    if (url) target = parseUrl(url.value, env);
    else if (sqlite!.value === '') throw usageError('sqlite needs a file path');
    else target = { kind: 'sqlite', path: sqlite!.value };
  } catch (e) {
    // parseUrl's problems never show the URL (see backends/pgmq/connection.ts).
    if (!(e instanceof SmqError)) throw e;
    fail(`line ${given!.line} (${named}): ${e.message}`, e.hint);
  }
  if (target!.kind === 'sqlite') target = { kind: 'sqlite', path: filePath(target!.path, file, env) };
  const ro = s.values['read-only'];
  let readOnly = false;
  if (ro) {
    const value = BOOLEANS[ro.value.toLowerCase()];
    if (value === undefined)
      fail(`line ${ro.line}: read-only must be true or false, not ${JSON.stringify(ro.value.replace(CONTROL, '?'))}`);
    readOnly = value!;
  }
  return { name: s.name, target: target!, readOnly };
}

function filePath(path: string, file: string, env: NodeJS.ProcessEnv): string {
  if (path === '~' || path.startsWith('~/')) return join(env['HOME'] || homedir(), path.slice(1));
  return isAbsolute(path) ? path : resolve(dirname(file), path);
}

/**
 * The contexts of a file, or undefined when there is no file. A file that holds a password
 * and that other users can read is refused (libpq ignores such a ~/.pgpass).
 */
export function readContextsFile(file: string, env: NodeJS.ProcessEnv = process.env): ContextSpec[] | undefined {
  let text: string;
  let mode: number;
  try {
    ({ text, mode } = readTextFile(file));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw usageError(`cannot read contexts file ${JSON.stringify(file)}: ${readFailure(e)}`);
  }
  const contexts = parseContextsFile(text, file, env);
  const withPassword = contexts.some((c) => c.target.kind === 'pgmq' && c.target.url && passwordCandidates(c.target.url).length > 0);
  if (withPassword && process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw usageError(
      `contexts file ${JSON.stringify(file)} holds a password and other users can read it (mode ${(mode & 0o777).toString(8)})`,
      `chmod 600 ${file}, or keep the password in ~/.pgpass or PGPASSWORD`,
    );
  }
  return contexts;
}
