// Which store a command talks to, from --url / --sqlite / DATABASE_URL / PG* variables.
import { usageError } from '../errors.js';

export type Target =
  | { readonly kind: 'pgmq'; readonly url: string | undefined }
  | { readonly kind: 'sqlite'; readonly path: string };

export interface TargetInput {
  readonly url?: string | undefined;
  readonly sqlite?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Resolves the connection. Returns undefined when nothing names a store
 * (callers decide: most commands refuse, the tester uses an embedded SQLite file).
 */
export function resolveTarget(input: TargetInput): Target | undefined {
  const env = input.env ?? process.env;
  if (input.url !== undefined && input.sqlite !== undefined) {
    throw usageError('--url and --sqlite both given', 'pass only one of them');
  }
  if (input.sqlite !== undefined) {
    if (input.sqlite.trim() === '') throw usageError('--sqlite needs a file path');
    return { kind: 'sqlite', path: input.sqlite };
  }
  const url = input.url ?? env['SMQ_URL'] ?? env['DATABASE_URL'];
  if (url !== undefined) return parseUrl(url);
  // libpq's variables: node-postgres reads PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE itself.
  if (env['PGHOST'] !== undefined || env['PGDATABASE'] !== undefined || env['PGSERVICE'] !== undefined) {
    return { kind: 'pgmq', url: undefined };
  }
  return undefined;
}

export function parseUrl(url: string): Target {
  if (url.startsWith('sqlite:')) {
    let path = url.slice('sqlite:'.length);
    if (path.startsWith('//')) path = path.slice(2); // sqlite:///abs/path and sqlite://rel
    if (path === '') throw usageError(`malformed URL ${JSON.stringify(redactUrl(url))}`, 'write sqlite:PATH');
    return { kind: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw usageError(`malformed URL ${JSON.stringify(redactUrl(url))}`, 'write postgres://user:password@host:port/database');
    }
    if (parsed.port !== '' && !/^\d+$/.test(parsed.port)) {
      throw usageError(`malformed URL ${JSON.stringify(redactUrl(url))}`, 'the port must be a number');
    }
    return { kind: 'pgmq', url };
  }
  throw usageError(
    `unsupported URL ${JSON.stringify(redactUrl(url))}`,
    'use postgres://user@host/db for pgmq or sqlite:PATH for a SmoothMQ file',
  );
}

/** Replaces the password of a URL (and any password=... parameter) with ***. */
export function redactUrl(url: string): string {
  return url
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*):[^@/?#]*@/i, '$1:***@')
    .replace(/([?&]password=)[^&#]*/gi, '$1***');
}

/** Removes every occurrence of the given secrets from a text (error messages from drivers). */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) {
    if (s && s.length >= 1) out = out.split(s).join('***');
  }
  return out;
}

export function describeTarget(target: Target, env: NodeJS.ProcessEnv = process.env): string {
  if (target.kind === 'sqlite') return `sqlite:${target.path}`;
  if (target.url) return redactUrl(target.url);
  const host = env['PGHOST'] ?? 'localhost';
  const port = env['PGPORT'] ?? '5432';
  const user = env['PGUSER'] ?? env['USER'] ?? '';
  const db = env['PGDATABASE'] ?? user;
  return `postgres://${user ? `${user}@` : ''}${host}:${port}/${db}`;
}
