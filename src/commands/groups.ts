// smq groups <queue>: the queue's FIFO groups (x-pgmq-group header), oldest head first, with
// messages ready / in flight / delayed and the head message (pgmq 1.9+ or the compat schema).
import type { CommandModule } from 'yargs';
import { lacking, need } from '../backends/index.js';
import type { GroupStats } from '../backends/types.js';
import { STATE_WORDS, type TableView } from '../output/records.js';
import { printerOf, withBackend, type GlobalArgs } from './context.js';

interface GroupsArgs extends GlobalArgs {
  readonly queue: string;
}

/** The group-less lane (messages without the header) in the table; JSON has null. */
const NO_GROUP = '(no group)';

const groupTable: TableView<GroupStats> = {
  columns: [
    { header: 'GROUP', maxWidth: 60, names: true },
    { header: 'READY', align: 'right' },
    { header: 'IN FLIGHT', align: 'right' },
    { header: 'DELAYED', align: 'right' },
    { header: 'HEAD', align: 'right' },
    { header: 'HEAD STATE' },
    { header: 'HEAD READS', align: 'right' },
  ],
  row: (g) => [
    g.group ?? NO_GROUP,
    String(g.ready),
    String(g.inFlight),
    String(g.delayed),
    g.headId.toString(),
    STATE_WORDS[g.headState],
    String(g.headReadCount),
  ],
};

const groupRecord = (g: GroupStats) => ({
  group: g.group,
  ready: g.ready,
  inFlight: g.inFlight,
  delayed: g.delayed,
  headId: g.headId.toString(),
  headState: g.headState,
  headReadCount: g.headReadCount,
});

export const groupsCommand: CommandModule<GlobalArgs, GroupsArgs> = {
  command: 'groups <queue>',
  describe: "list a queue's FIFO groups (x-pgmq-group header) with their messages and head",
  builder: (y) =>
    y
      .positional('queue', { type: 'string', demandOption: true, describe: 'queue name' })
      .example('$0 groups orders', 'a group whose head is in flight gives nothing to grouped reads'),
  handler: async (argv) => {
    const queue = String(argv.queue);
    const printer = printerOf(argv);
    await withBackend(
      argv,
      async (backend) => {
        need(backend.capabilities, 'groups');
        if (!backend.groups) throw lacking('groups');
        const list = await backend.groups(queue);
        printer.list(list, groupTable, groupRecord, `no message in ${JSON.stringify(queue)}`);
      },
      { queues: [queue] },
    );
  },
};
