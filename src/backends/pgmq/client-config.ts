// A PgConnection's host as node-postgres' ClientConfig: given field by field (never a
// connectionString, which pg would parse again its own way, with its own sslmode warning),
// with the TLS setting that libpq's sslmode picks.
import pg from 'pg';
import type { PgConnection, PgHost } from './connection.js';
import { chooseTls, tlsAttempts, type TlsChoice } from './tls.js';
import { whileConnecting } from './errors.js';

export interface ClientOptions {
  /** Used unless the connection names one (application_name). */
  readonly applicationName?: string;
  /** Used whatever the connection names (the tester's connections, named after the run). */
  readonly forceApplicationName?: string;
  /** Server settings smq needs (-c name=value), added to the connection's own options. */
  readonly settings?: readonly string[];
  /**
   * Settings smq prefers but goes without where they are refused at connection time (a
   * PgBouncer that takes only the startup parameters it tracks): statement_timeout.
   */
  readonly preferredSettings?: readonly string[];
  readonly connectTimeoutMs: number;
  /** Socket factory (a SocketTracker's), so closing cuts every connection, the TLS probe's too. */
  readonly stream?: pg.ClientConfig['stream'];
}

export function clientConfigOf(conn: PgConnection, ssl: TlsChoice, o: ClientOptions, host: PgHost = conn.hosts[0]!): pg.ClientConfig {
  const p = conn.params;
  const options = [p['options'], ...(o.settings ?? []), ...(o.preferredSettings ?? [])]
    .filter((s) => s !== undefined && s !== '')
    .join(' ');
  const applicationName = o.forceApplicationName ?? p['application_name'] ?? o.applicationName ?? p['fallback_application_name'];
  return {
    host: host.host,
    port: host.port,
    user: conn.user,
    database: conn.database,
    ...(host.password !== undefined ? { password: host.password } : {}),
    ...(applicationName !== undefined ? { application_name: applicationName } : {}),
    ...(options ? { options } : {}),
    ...(p['client_encoding'] ? { client_encoding: p['client_encoding'] } : {}),
    ...(p['keepalives'] !== undefined ? { keepAlive: p['keepalives'] !== '0' } : {}),
    connectionTimeoutMillis: conn.connectTimeoutMs ?? o.connectTimeoutMs,
    ...(o.stream ? { stream: o.stream } : {}),
    ssl,
  };
}

/**
 * The ClientConfig of the first host. For sslmode allow and prefer this connects once to learn
 * which of the two settings the server takes; connection failures are thrown as node-postgres
 * reports them (the caller maps them). For tests that make their own connections; smq's own
 * go through connector.ts, which tries every host.
 */
export async function resolveClientConfig(
  conn: PgConnection,
  o: ClientOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<pg.ClientConfig> {
  const ssl = await chooseTls(tlsAttempts(conn, env), async (attempt) => {
    const client = new pg.Client(clientConfigOf(conn, attempt, o));
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (e) {
      void client.end().catch(() => undefined);
      throw whileConnecting(e);
    }
    // Not awaited: a server that stops answering now must not hold this up (the socket
    // tracker, when given, cuts it when the backend closes).
    void client.end().catch(() => undefined);
  });
  return clientConfigOf(conn, ssl, o);
}
