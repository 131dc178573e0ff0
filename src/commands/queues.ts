// smq queues: every queue with its counts, in one round trip.
import type { CommandModule } from 'yargs';
import { printerOf, withBackend, type GlobalArgs } from './context.js';
import { queueRecord, queueTable } from '../output/records.js';

export const queuesCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'queues',
  aliases: ['ls'],
  describe: 'list queues with their message counts',
  builder: (y) => y.example('$0 queues --sqlite ./smoothmq.db', ''),
  handler: async (argv) => {
    const printer = printerOf(argv);
    await withBackend(argv, async (backend) => {
      const queues = await backend.listQueues();
      const caps = backend.capabilities;
      const view = queueTable({ failed: caps.failedState, archived: caps.archive, tenant: false, notify: caps.notifyInsert });
      printer.list(queues, view, queueRecord, 'no queues yet: create one with smq create <queue>');
    });
  },
};
