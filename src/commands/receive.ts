// smq receive <queue>: claims messages (they stay hidden for the visibility timeout);
// --delete acknowledges them right away.
import type { CommandModule } from 'yargs';
import { parseDuration } from '../text/duration.js';
import { positiveInt } from './args.js';
import { printerOf, withBackend, type GlobalArgs } from './context.js';
import { messageRecord, messageTable } from '../output/records.js';

interface ReceiveArgs extends GlobalArgs {
  readonly queue: string;
  readonly qty: number;
  readonly vt?: string | undefined;
  readonly delete?: boolean | undefined;
}

export const receiveCommand: CommandModule<GlobalArgs, ReceiveArgs> = {
  command: 'receive <queue>',
  describe: 'receive messages (hidden until --vt passes or they are deleted)',
  builder: (y) =>
    y
      .positional('queue', { type: 'string', demandOption: true, describe: 'queue name' })
      .option('qty', { alias: 'n', type: 'number', default: 1, requiresArg: true, describe: 'how many messages at most' })
      .option('vt', {
        type: 'string',
        requiresArg: true,
        describe: "visibility timeout, e.g. 60s or 5m; a bare number is seconds [default: the queue's own on SmoothMQ, 30s on pgmq]",
      })
      .option('delete', { type: 'boolean', describe: 'delete the messages right after receiving them' })
      .example('$0 receive orders --qty 10 --vt 60', '')
      .example('$0 receive orders --delete --json', 'take one message for good'),
  handler: async (argv) => {
    const queue = String(argv.queue);
    const qty = positiveInt('qty', argv.qty);
    // Both stores keep whole seconds: the backend refuses a fraction (1.5, 500ms) in one line.
    const vtSec = argv.vt === undefined ? undefined : parseDuration('vt', argv.vt, { unit: 's' });
    const printer = printerOf(argv);
    await withBackend(
      argv,
      async (backend) => {
        const messages = await backend.receive(queue, { qty, ...(vtSec === undefined ? {} : { vtSec }) });
        printer.list(
          messages,
          messageTable({ maxTries: backend.capabilities.maxRetries }),
          messageRecord,
          `no message ready in ${JSON.stringify(queue)}`,
        );
        // Printed first, deleted second: if the delete fails the messages come back when
        // their visibility ends (at-least-once), instead of being gone unseen.
        if (argv.delete && messages.length > 0)
          await backend.delete(
            queue,
            messages.map((m) => m.id),
          );
      },
      { writes: 'smq receive', queues: [queue] },
    );
  },
};
