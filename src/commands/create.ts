// smq create <queue>: idempotent; says whether the queue already existed.
import type { CommandModule } from 'yargs';
import { usageError } from '../errors.js';
import { parseDuration } from '../text/duration.js';
import { nonNegativeInt } from './args.js';
import { printerOf, withBackend, type GlobalArgs } from './context.js';

interface CreateArgs extends GlobalArgs {
  readonly queue: string;
  readonly unlogged?: boolean | undefined;
  readonly visibilityTimeout?: string | undefined;
  readonly maxRetries?: number | undefined;
}

export const createCommand: CommandModule<GlobalArgs, CreateArgs> = {
  command: 'create <queue>',
  describe: 'create a queue (does nothing when it exists)',
  builder: (y) =>
    y
      .positional('queue', { type: 'string', demandOption: true, describe: 'queue name' })
      .option('unlogged', { type: 'boolean', describe: 'pgmq: an UNLOGGED queue table (faster, lost on crash)' })
      .option('visibility-timeout', {
        type: 'string',
        requiresArg: true,
        describe: 'SmoothMQ: how long a received message stays hidden, whole seconds (e.g. 60s, 5m; a bare number is seconds)',
      })
      .option('max-retries', { type: 'number', requiresArg: true, describe: 'SmoothMQ: deliveries before a message fails (-1: unlimited)' })
      .example('$0 create orders --url postgres://localhost/app', '')
      .example('$0 create orders --sqlite ./smoothmq.db --visibility-timeout 60 --max-retries 5', ''),
  handler: async (argv) => {
    const queue = String(argv.queue);
    const visibilityTimeoutSec =
      argv.visibilityTimeout === undefined ? undefined : parseDuration('visibility-timeout', argv.visibilityTimeout, { unit: 's' });
    let maxRetries: number | undefined;
    if (argv.maxRetries !== undefined) {
      maxRetries = argv.maxRetries === -1 ? -1 : nonNegativeInt('max-retries', argv.maxRetries, '5');
    }
    const printer = printerOf(argv);
    await withBackend(
      argv,
      async (backend) => {
        const created = await backend.createQueue(queue, {
          ...(argv.unlogged ? { unlogged: true } : {}),
          ...(visibilityTimeoutSec === undefined ? {} : { visibilityTimeoutSec }),
          ...(maxRetries === undefined ? {} : { maxRetries }),
        });
        printer.result(
          { queue, created },
          created ? `created queue ${JSON.stringify(queue)}` : `queue ${JSON.stringify(queue)} already exists`,
        );
      },
      {
        writes: 'smq create',
        queues: [queue],
        createsQueues: true,
        beforeConnect: (target) => {
          if (target.kind === 'pgmq' && (visibilityTimeoutSec !== undefined || maxRetries !== undefined)) {
            throw usageError(
              '--visibility-timeout and --max-retries are SmoothMQ queue settings',
              'pgmq takes the visibility timeout per receive (smq receive --vt)',
            );
          }
          if (target.kind === 'sqlite' && argv.unlogged) throw usageError('--unlogged is for pgmq queues', 'drop --unlogged with SQLite');
        },
      },
    );
  },
};
