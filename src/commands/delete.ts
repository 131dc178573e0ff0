// smq delete <queue> <id…>: acknowledges messages by id (asks first). Unknown ids: exit 3.
import type { CommandModule } from 'yargs';
import { messageNotFound } from '../errors.js';
import { asStrings, messageIdArg } from './args.js';
import { checkConfirmable, confirm } from './confirm.js';
import { printerOf, withBackend, type GlobalArgs } from './context.js';

interface DeleteArgs extends GlobalArgs {
  readonly queue: string;
  readonly ids: string[];
}

export const deleteCommand: CommandModule<GlobalArgs, DeleteArgs> = {
  command: 'delete <queue> <ids..>',
  describe: 'delete messages by id',
  builder: (y) =>
    y
      .positional('queue', { type: 'string', demandOption: true, describe: 'queue name' })
      .positional('ids', { type: 'string', array: true, demandOption: true, describe: 'message ids' })
      .example('$0 delete orders 17 18 --yes', ''),
  handler: async (argv) => {
    const queue = String(argv.queue);
    const ids = [...new Set(asStrings(argv.ids).map((t) => messageIdArg(t)))];
    const printer = printerOf(argv);
    await withBackend(
      argv,
      async (backend) => {
        if (!argv.yes) {
          await backend.queueStats(queue); // queue-not-found before asking
          await confirm(argv, `delete ${ids.length} message(s) from ${JSON.stringify(queue)}?`);
        }
        const deleted = await backend.delete(queue, ids);
        const gone = new Set(deleted);
        printer.list(deleted, { columns: [{ header: 'DELETED', align: 'right' }], row: (id) => [id.toString()] }, (id) => ({
          id: id.toString(),
          deleted: true,
        }));
        const missing = ids.filter((id) => !gone.has(id));
        if (missing.length > 0) throw messageNotFound(queue, missing);
      },
      {
        writes: 'smq delete',
        queues: [queue],
        beforeConnect: () => checkConfirmable(argv, `delete messages from ${JSON.stringify(queue)}`),
      },
    );
  },
};
