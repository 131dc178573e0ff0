// smq receive <queue>: claims messages (they stay hidden for the visibility timeout);
// --delete acknowledges them right away.
import type { CommandModule } from 'yargs';
import { lacking, need } from '../backends/index.js';
import type { GroupedRead } from '../backends/types.js';
import { usageError } from '../errors.js';
import { parseDuration } from '../text/duration.js';
import { positiveInt } from './args.js';
import { printerOf, withBackend, type GlobalArgs } from './context.js';
import { messageRecord, messageTable } from '../output/records.js';

interface ReceiveArgs extends GlobalArgs {
  readonly queue: string;
  readonly qty: number;
  readonly vt?: string | undefined;
  readonly delete?: boolean | undefined;
  readonly grouped?: boolean | undefined;
  readonly groupedRr?: boolean | undefined;
  readonly groupedHead?: boolean | undefined;
}

/** --grouped, --grouped-rr or --grouped-head (at most one); undefined: a plain read. */
function groupedMode(argv: ReceiveArgs): GroupedRead | undefined {
  const given = (
    [
      ['grouped', argv.grouped],
      ['grouped-rr', argv.groupedRr],
      ['grouped-head', argv.groupedHead],
    ] as const
  ).filter(([, on]) => on === true);
  if (given.length > 1) throw usageError(`--${given[0]![0]} and --${given[1]![0]} contradict each other`, 'pass only one of them');
  return given[0]?.[0];
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
      .option('grouped', {
        type: 'boolean',
        describe: 'FIFO groups (x-pgmq-group header): fill the batch from the oldest available group first (pgmq read_grouped)',
      })
      .option('grouped-rr', {
        type: 'boolean',
        describe: 'FIFO groups, round-robin: one message of each available group in turn (read_grouped_rr)',
      })
      .option('grouped-head', {
        type: 'boolean',
        describe: 'FIFO groups: the head message of each of up to --qty available groups (read_grouped_head)',
      })
      .example('$0 receive orders --qty 10 --vt 60', '')
      .example('$0 receive orders --delete --json', 'take one message for good')
      .example('$0 receive orders --grouped-head --qty 10', 'one message from each of 10 groups none of whose messages is in flight'),
  handler: async (argv) => {
    const queue = String(argv.queue);
    const qty = positiveInt('qty', argv.qty);
    // Both stores keep whole seconds: the backend refuses a fraction (1.5, 500ms) in one line.
    const vtSec = argv.vt === undefined ? undefined : parseDuration('vt', argv.vt, { unit: 's' });
    const mode = groupedMode(argv);
    const printer = printerOf(argv);
    await withBackend(
      argv,
      async (backend) => {
        const options = { qty, ...(vtSec === undefined ? {} : { vtSec }) };
        let messages;
        if (mode === undefined) messages = await backend.receive(queue, options);
        else {
          // Checked before any call: a store without groups is left as it was.
          need(backend.capabilities, mode === 'grouped-head' ? 'groupedHead' : 'groups');
          if (!backend.receiveGrouped) throw lacking('groups');
          messages = await backend.receiveGrouped(queue, mode, options);
        }
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
