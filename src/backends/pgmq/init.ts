// smq init on PostgreSQL: one client (not a backend: there may be no pgmq yet to probe),
// connected as every smq connection is, that installs pgmq or smq's compatible schema.
import pg from 'pg';
import type { InstallOptions, PgmqInstall } from '../types.js';
import { resolveClientConfig } from './client-config.js';
import { pgConnection } from './connection.js';
import { mapPgError } from './errors.js';
import { initPgmq } from './install.js';
import { closeWithin, SocketTracker } from './sockets.js';

export async function installPgmq(url: string | undefined, options: InstallOptions): Promise<PgmqInstall & { readonly location: string }> {
  const { env, callTimeoutMs } = options;
  const conn = pgConnection(url, env);
  const location = conn.display;
  const fail = (e: unknown) => mapPgError(e, { location, secrets: conn.secrets, callTimeoutMs });
  const sockets = new SocketTracker();
  let client: pg.Client;
  try {
    const config = await resolveClientConfig(
      conn,
      { applicationName: 'smq', connectTimeoutMs: options.connectTimeoutMs, stream: sockets.stream },
      env,
    );
    client = new pg.Client({ ...config, query_timeout: callTimeoutMs });
    // An idle client's error event would otherwise crash the process.
    client.on('error', () => undefined);
    await client.connect();
  } catch (e) {
    throw fail(e);
  }
  try {
    const result = await initPgmq(client).catch((e: unknown) => {
      throw fail(e);
    });
    return { location, ...result };
  } finally {
    // A server that stopped answering never sees the client off: cut it after a second.
    await closeWithin(() => client.end(), sockets, 1_000);
  }
}
