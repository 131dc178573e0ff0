// smq drop <queue>: removes the queue and all its messages (asks first).
import type { CommandModule } from 'yargs';
import { checkConfirmable, confirm } from './confirm.js';
import { printerOf, withBackend, type GlobalArgs } from './context.js';

interface DropArgs extends GlobalArgs {
  readonly queue: string;
}

export const dropCommand: CommandModule<GlobalArgs, DropArgs> = {
  command: 'drop <queue>',
  describe: 'delete a queue and all its messages',
  builder: (y) => y.positional('queue', { type: 'string', demandOption: true, describe: 'queue name' }).example('$0 drop orders --yes', ''),
  handler: async (argv) => {
    const queue = String(argv.queue);
    const printer = printerOf(argv);
    await withBackend(
      argv,
      async (backend) => {
        if (!argv.yes) {
          const stats = await backend.queueStats(queue); // also: queue-not-found before asking
          await confirm(argv, `drop queue ${JSON.stringify(queue)} and its ${stats.total} message(s)?`);
        }
        await backend.dropQueue(queue);
        printer.result({ queue, dropped: true }, `dropped queue ${JSON.stringify(queue)}`);
      },
      { writes: 'smq drop', queues: [queue], beforeConnect: () => checkConfirmable(argv, `drop queue ${JSON.stringify(queue)}`) },
    );
  },
};
