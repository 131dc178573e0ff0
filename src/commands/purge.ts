// smq purge <queue>: deletes every message, keeps the queue (asks first).
import type { CommandModule } from 'yargs';
import { checkConfirmable, confirm } from './confirm.js';
import { printerOf, withBackend, type GlobalArgs } from './context.js';

interface PurgeArgs extends GlobalArgs {
  readonly queue: string;
}

export const purgeCommand: CommandModule<GlobalArgs, PurgeArgs> = {
  command: 'purge <queue>',
  describe: 'delete every message in a queue',
  builder: (y) =>
    y.positional('queue', { type: 'string', demandOption: true, describe: 'queue name' }).example('$0 purge orders --yes', ''),
  handler: async (argv) => {
    const queue = String(argv.queue);
    const printer = printerOf(argv);
    await withBackend(
      argv,
      async (backend) => {
        if (!argv.yes) {
          const stats = await backend.queueStats(queue);
          await confirm(argv, `delete all ${stats.total} message(s) in ${JSON.stringify(queue)}?`);
        }
        const purged = await backend.purgeQueue(queue);
        printer.result({ queue, purged }, `deleted ${purged} message(s) from ${JSON.stringify(queue)}`);
      },
      { writes: 'smq purge', queues: [queue], beforeConnect: () => checkConfirmable(argv, `purge queue ${JSON.stringify(queue)}`) },
    );
  },
};
