// Which store a command talks to, from --url / --sqlite / SMQ_URL / DATABASE_URL / PG* variables.
import { usageError } from '../errors.js';
import { connectionSecrets, isPostgresUrl, pgConnection } from './pgmq/connection.js';
import { connectionTextsOf } from './secrets.js';

export { redactSecrets } from './secrets.js';

export type Target = { readonly kind: 'pgmq'; readonly url: string | undefined } | { readonly kind: 'sqlite'; readonly path: string };

export interface TargetInput {
  readonly url?: string | undefined;
  readonly sqlite?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Resolves the connection. Returns undefined when nothing names a store
 * (callers decide: most commands refuse, the tester uses an embedded SQLite file).
 * A postgres connection is parsed here once, so a URL smq cannot read, an unknown service
 * or a bad sslmode is a usage error before anything connects.
 */
export function resolveTarget(input: TargetInput): Target | undefined {
  const env = input.env ?? process.env;
  const url = single('--url', input.url);
  const sqlite = single('--sqlite', input.sqlite);
  if (url !== undefined && sqlite !== undefined) {
    throw usageError('--url and --sqlite both given', 'pass only one of them');
  }
  if (sqlite !== undefined) {
    if (sqlite.trim() === '') throw usageError('--sqlite needs a file path');
    return { kind: 'sqlite', path: sqlite };
  }
  const fromEnv = url ?? env['SMQ_URL'] ?? env['DATABASE_URL'];
  if (fromEnv !== undefined) return parseUrl(fromEnv, env);
  // libpq's variables and service file (see pgmq/connection.ts).
  if (env['PGHOST'] !== undefined || env['PGDATABASE'] !== undefined || env['PGSERVICE'] !== undefined) {
    pgConnection(undefined, env);
    return { kind: 'pgmq', url: undefined };
  }
  return undefined;
}

/** An option given twice arrives as an array; its values are not shown (a URL may hold a password). */
function single(option: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw usageError(`${option} given more than once`, `pass one ${option}`);
  return String(value);
}

export function parseUrl(url: string, env: NodeJS.ProcessEnv = {}): Target {
  if (url.startsWith('sqlite:')) {
    let path = url.slice('sqlite:'.length);
    if (path.startsWith('//')) path = path.slice(2); // sqlite:///abs/path and sqlite://rel
    if (path === '') throw usageError('malformed URL "sqlite:"', 'write sqlite:PATH');
    return { kind: 'sqlite', path };
  }
  if (isPostgresUrl(url)) {
    pgConnection(url, env);
    return { kind: 'pgmq', url };
  }
  // Only the scheme is shown: the rest may hold a password.
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
  throw usageError(
    scheme ? `unsupported URL scheme ${JSON.stringify(scheme)}` : 'unsupported URL (not shown: it may hold a password)',
    'use postgres://user@host/db for pgmq or sqlite:PATH for a SmoothMQ file',
  );
}

/** The connection as smq shows it: built from its parsed parts, the password as ***. */
export function describeTarget(target: Target, env: NodeJS.ProcessEnv = process.env): string {
  if (target.kind === 'sqlite') return `sqlite:${target.path}`;
  return pgConnection(target.url, env).display;
}

/**
 * The secrets that must never reach output: every form of the password of each connection
 * this invocation could use (every --url, SMQ_URL, DATABASE_URL, PG* variables and the
 * service file), longest first. Parsed as the connection itself is (pgmq/connection.ts).
 */
export function secretsFor(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const secrets = new Set(connectionTextsOf(argv, env).flatMap((url) => connectionSecrets(url, env)));
  return [...secrets].sort((a, b) => b.length - a.length);
}
