// smq peek <queue>: shows messages without changing anything (no read count bump,
// no visibility change; on pgmq it reads the q_ table, never pgmq.read).
import type { CommandModule } from 'yargs';
import { MESSAGE_STATES, type MessageState, type PeekOptions } from '../backends/types.js';
import { messageNotFound, usageError } from '../errors.js';
import { messageIdArg, positiveInt } from './args.js';
import { printerOf, withBackend, type GlobalArgs } from './context.js';
import { messageRecord, messageTable } from '../output/records.js';

const PEEK_STATES = [...MESSAGE_STATES, 'all'] as const;

interface PeekArgs extends GlobalArgs {
  readonly queue: string;
  readonly limit: number;
  readonly after?: string | undefined;
  readonly state: MessageState | 'all';
  readonly id?: string | undefined;
  readonly order: 'oldest' | 'newest';
}

export const peekCommand: CommandModule<GlobalArgs, PeekArgs> = {
  command: 'peek <queue>',
  describe: 'show messages without receiving them',
  builder: (y) =>
    y
      .positional('queue', { type: 'string', demandOption: true, describe: 'queue name' })
      .option('limit', { alias: 'n', type: 'number', default: 20, requiresArg: true, describe: 'how many messages at most' })
      .option('after', { type: 'string', requiresArg: true, describe: 'start after this message id (paging)' })
      .option('state', { choices: PEEK_STATES, default: 'all' as const, requiresArg: true, describe: 'only messages in this state' })
      .option('id', { type: 'string', requiresArg: true, describe: 'show just this message' })
      .option('order', {
        choices: ['oldest', 'newest'] as const,
        default: 'oldest' as const,
        requiresArg: true,
        describe: 'oldest or newest first',
      })
      .example('$0 peek orders --state inflight', '')
      .example('$0 peek orders --after 120 --limit 50 --json', 'the next page'),
  handler: async (argv) => {
    const queue = String(argv.queue);
    const limit = positiveInt('limit', argv.limit, '20');
    const afterId = argv.after === undefined ? undefined : messageIdArg(argv.after, '--after id');
    const id = argv.id === undefined ? undefined : messageIdArg(argv.id, '--id');
    if (id !== undefined && afterId !== undefined) throw usageError('--id and --after do not go together', 'pass one of them');
    const printer = printerOf(argv);
    await withBackend(
      argv,
      async (backend) => {
        if (argv.state === 'failed' && !backend.capabilities.failedState) {
          throw usageError('pgmq has no failed state', 'use --state ready, inflight, delayed or all');
        }
        const options: PeekOptions = {
          limit,
          state: argv.state,
          order: argv.order,
          ...(afterId === undefined ? {} : { afterId }),
          ...(id === undefined ? {} : { id }),
        };
        const messages = await backend.peek(queue, options);
        if (id !== undefined && messages.length === 0) throw messageNotFound(queue, [id]);
        printer.list(
          messages,
          messageTable({ maxTries: backend.capabilities.maxRetries }),
          messageRecord,
          `no ${argv.state === 'all' ? '' : `${argv.state} `}messages in ${JSON.stringify(queue)}`,
        );
      },
      { queues: [queue] },
    );
  },
};
