// smq init: makes a store ready. pgmq: use the pgmq extension when the server has it,
// else install smq's pgmq-compatible schema. SQLite: create the file with SmoothMQ's DDL.
import type { CommandModule } from 'yargs';
import { installPgmq } from '../backends/index.js';
import { callTimeoutOf, CONNECT_TIMEOUT_MS, ioOf, prepareTarget, printerOf, withBackend, type GlobalArgs } from './context.js';

// Keyed by string so a mode added to initPgmq later still prints something sensible.
const DONE: Record<string, ((v: string) => string) | undefined> = {
  'extension-existing': (v) => `the pgmq extension ${v} is already installed; nothing to do`,
  'sql-existing': () => 'pgmq is already installed (from its SQL file); nothing to do',
  'extension-created': (v) => `created the pgmq extension ${v}`,
  'compat-existing': (v) => `smq's pgmq-compatible schema ${v} is already installed; nothing to do`,
  'compat-installed': (v) => `installed smq's pgmq-compatible schema ${v} (the pgmq extension is not available on this server)`,
  'compat-upgraded': (v) => `upgraded smq's pgmq-compatible schema to ${v}; every queue and message kept`,
};

export const initCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'init',
  describe: 'prepare a store: install pgmq (or its compatible schema), or create a SmoothMQ SQLite file',
  builder: (y) =>
    y
      .example('$0 init --url postgres://user@localhost/app', "pgmq extension, or smq's compatible schema")
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
    const timeoutMs = callTimeoutOf(argv);
    const { location, ...result } = await installPgmq(target.url, {
      env,
      callTimeoutMs: timeoutMs,
      connectTimeoutMs: Math.min(CONNECT_TIMEOUT_MS, timeoutMs),
    });
    const said = DONE[result.mode]?.(result.version) ?? `pgmq: ${result.mode} ${result.version}`;
    printer.result({ backend: 'pgmq', location, ...result }, said);
  },
};
