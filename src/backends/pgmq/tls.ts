// TLS for a pgmq connection with libpq's meaning of sslmode. node-postgres only knows "TLS
// or not": allow and prefer become two attempts (plain then TLS, TLS then plain), require
// encrypts without checking the certificate (or checks the chain when a root certificate
// is at hand), verify-ca checks the chain, verify-full also the host name.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { readFailure, usageError } from '../../errors.js';
import { readTextFile } from '../../read-text-file.js';
import type { PgConnection } from './connection.js';

/** node-postgres' ssl setting: false, or TLS with these options. */
export type TlsChoice = false | ConnectionOptions;

function readPem(keyword: string, file: string): string {
  try {
    return readTextFile(file).text;
  } catch (e) {
    throw usageError(`cannot read ${keyword} file ${JSON.stringify(file)}: ${readFailure(e)}`, `check ${keyword}`);
  }
}

/** The settings to try, in order, for the connection's sslmode. */
export function tlsAttempts(conn: PgConnection, env: NodeJS.ProcessEnv = process.env): TlsChoice[] {
  const mode = conn.sslmode;
  if (mode === undefined || mode === 'disable') return [false];
  const p = conn.params;
  // libpq's default files, used when they exist.
  const dir = join(env['HOME'] || homedir(), '.postgresql');
  const fallback = (name: string) => (existsSync(join(dir, name)) ? join(dir, name) : undefined);
  const certFile = p['sslcert'] ?? fallback('postgresql.crt');
  const keyFile = p['sslkey'] ?? fallback('postgresql.key');
  const rootFile = p['sslrootcert'] ?? fallback('root.crt');
  const client: ConnectionOptions = {
    ...(certFile ? { cert: readPem('sslcert', certFile) } : {}),
    ...(keyFile ? { key: readPem('sslkey', keyFile) } : {}),
    ...(p['sslpassword'] ? { passphrase: p['sslpassword'] } : {}),
  };
  // sslrootcert=system: the platform's trusted roots (Node's default).
  const ca = rootFile && rootFile !== 'system' ? { ca: readPem('sslrootcert', rootFile) } : {};
  const encryptOnly: ConnectionOptions = { ...client, rejectUnauthorized: false };
  const chainOnly: ConnectionOptions = { ...client, ...ca, checkServerIdentity: () => undefined };
  switch (mode) {
    case 'allow':
      return [false, encryptOnly];
    case 'prefer':
      return [encryptOnly, false];
    case 'require':
      // libpq: with a root certificate file, require checks the chain like verify-ca.
      return [rootFile && rootFile !== 'system' ? chainOnly : encryptOnly];
    case 'verify-ca':
      if (!rootFile) {
        throw usageError(
          'sslmode=verify-ca needs a root certificate to check the server against',
          `give sslrootcert=FILE (or put it in ${join(dir, 'root.crt')}), or sslrootcert=system`,
        );
      }
      return [chainOnly];
    case 'verify-full':
      return [{ ...client, ...ca }];
  }
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EAI_AGAIN']);

/** A failure the other setting cannot cure: nothing answers at that address. */
export function isNetworkFailure(e: unknown): boolean {
  const err = e as { code?: string; message?: string } | undefined;
  return NETWORK_CODES.has(err?.code ?? '') || /timeout/i.test(err?.message ?? '');
}

/**
 * Picks the first setting that connects, as libpq does for allow and prefer (it retries
 * with the other setting after any failure but an unreachable server). With one setting,
 * nothing is tried here: the caller's own connection shows the failure.
 */
export async function chooseTls(attempts: readonly TlsChoice[], tryConnect: (ssl: TlsChoice) => Promise<void>): Promise<TlsChoice> {
  if (attempts.length === 1) return attempts[0]!;
  let failure: unknown;
  for (const ssl of attempts) {
    try {
      await tryConnect(ssl);
      return ssl;
    } catch (e) {
      failure = e;
      if (isNetworkFailure(e)) break;
    }
  }
  throw failure;
}
