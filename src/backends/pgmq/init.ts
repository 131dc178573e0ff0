// smq init on PostgreSQL: one client (not a backend: there may be no pgmq yet to probe),
// connected as every smq connection is, that installs pgmq or smq's compatible schema.
import pg from 'pg';
import type { InstallOptions, PgmqInstall } from '../types.js';
import { pgConnection } from './connection.js';
import { Connector } from './connector.js';
import { mapPgError } from './errors.js';
import { initPgmq } from './install.js';
import { closeWithin, SocketTracker } from './sockets.js';

export async function installPgmq(url: string | undefined, options: InstallOptions): Promise<PgmqInstall & { readonly location: string }> {
  const { env, callTimeoutMs } = options;
  const conn = pgConnection(url, env);
  const location = conn.display;
  const ctx = { location, secrets: conn.secrets, callTimeoutMs };
  const fail = (e: unknown) => mapPgError(e, ctx);
  const sockets = new SocketTracker();
  // On a multi-host target, the first server that suits target_session_attrs, as psql would take.
  const connector = new Connector(
    conn,
    ctx,
    { applicationName: 'smq', connectTimeoutMs: options.connectTimeoutMs, stream: sockets.stream },
    env,
  );
  let client: pg.Client;
  try {
    ({ client } = await connector.connect({ query_timeout: callTimeoutMs }));
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
