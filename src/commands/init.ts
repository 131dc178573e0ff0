// smq init: makes a store ready. pgmq: use the pgmq extension when the server has it,
// else install smq's pgmq-compatible schema. SQLite: create the file with SmoothMQ's DDL.
import pg from 'pg';
import type { CommandModule } from 'yargs';
import { mapPgError } from '../backends/pgmq/errors.js';
import { initPgmq } from '../backends/pgmq/install.js';
import { resolveClientConfig } from '../backends/pgmq/client-config.js';
import { pgConnection } from '../backends/pgmq/connection.js';
import { SocketTracker, closeWithin } from '../backends/pgmq/sockets.js';
import { callTimeoutOf, CONNECT_TIMEOUT_MS, ioOf, prepareTarget, printerOf, withBackend, type GlobalArgs } from './context.js';

// Keyed by string so a mode added to initPgmq later still prints something sensible.
const DONE: Record<string, ((v: string) => string) | undefined> = {
  'extension-existing': (v) => `the pgmq extension ${v} is already installed; nothing to do`,
  'sql-existing': () => 'pgmq is already installed (from its SQL file); nothing to do',
  'extension-created': (v) => `created the pgmq extension ${v}`,
  'compat-existing': (v) => `smq's pgmq-compatible schema ${v} is already installed; nothing to do`,
  'compat-installed': (v) =>
    `installed smq's pgmq-compatible schema ${v} (the pgmq extension is not available on this server)`,
};

export const initCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'init',
  describe: 'prepare a store: install pgmq (or its compatible schema), or create a SmoothMQ SQLite file',
  builder: (y) =>
    y
      .example('$0 init --url postgres://user@localhost/app', 'pgmq extension, or smq\'s compatible schema')
      .example('$0 init --sqlite ./smoothmq.db', 'a new SmoothMQ file'),
  handler: async (argv) => {
    const printer = printerOf(argv);
    const env = ioOf(argv).env;
    const target = await prepareTarget(argv, { writes: 'smq init', create: true });
    if (target.kind === 'sqlite') {
      // Asked of the store, not of the path: an empty file gets its tables created too.
      const created = await withBackend(argv, async (backend) => (await backend.info()).schemaCreated === true, {
        writes: 'smq init',
        create: true,
      });
      printer.result(
        { backend: 'sqlite', location: target.path, created },
        created ? `created ${target.path} with SmoothMQ's schema` : `${target.path} already exists; nothing to do`,
      );
      return;
    }
    const conn = pgConnection(target.url, env);
    const where = conn.display;
    const timeoutMs = callTimeoutOf(argv);
    const fail = (e: unknown) => mapPgError(e, { location: where, secrets: conn.secrets, callTimeoutMs: timeoutMs });
    const sockets = new SocketTracker();
    let client: pg.Client;
    try {
      const config = await resolveClientConfig(
        conn,
        { applicationName: 'smq', connectTimeoutMs: Math.min(CONNECT_TIMEOUT_MS, timeoutMs), stream: sockets.stream },
        env,
      );
      client = new pg.Client({ ...config, query_timeout: timeoutMs });
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
      const said = DONE[result.mode]?.(result.version) ?? `pgmq: ${result.mode} ${result.version}`;
      printer.result({ backend: 'pgmq', location: where, ...result }, said);
    } finally {
      // A server that stopped answering never sees the client off: cut it after a second.
      await closeWithin(() => client.end(), sockets, 1_000);
    }
  },
};
