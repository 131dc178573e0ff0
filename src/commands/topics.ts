// smq topics, smq bind PATTERN QUEUE, smq unbind PATTERN QUEUE: pgmq 1.11+ topic bindings
// (list_topic_bindings, bind_topic, unbind_topic). A message sent with smq send --topic KEY
// goes to every queue bound to a pattern KEY matches (* one word, # any number of words).
import type { CommandModule } from 'yargs';
import { lacking, need } from '../backends/index.js';
import type { Backend, TopicBinding } from '../backends/types.js';
import { shortTime, type TableView } from '../output/records.js';
import { printerOf, withBackend, type GlobalArgs } from './context.js';

interface BindArgs extends GlobalArgs {
  readonly pattern: string;
  readonly queue: string;
}

const bindingTable: TableView<TopicBinding> = {
  columns: [{ header: 'PATTERN' }, { header: 'QUEUE', names: true }, { header: 'BOUND AT' }],
  row: (b) => [b.pattern, b.queue, shortTime(b.boundAt)],
};

const bindingRecord = (b: TopicBinding) => ({ pattern: b.pattern, queue: b.queue, boundAt: b.boundAt ? b.boundAt.toISOString() : null });

/** The backend's topic methods, once the store is known to have them (else its one line, exit 2). */
function topicsOf(backend: Backend) {
  need(backend.capabilities, 'topics');
  const { topicBindings, bindTopic, unbindTopic } = backend;
  if (!topicBindings || !bindTopic || !unbindTopic) throw lacking('topics');
  return { list: topicBindings.bind(backend), bind: bindTopic.bind(backend), unbind: unbindTopic.bind(backend) };
}

export const topicsCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'topics',
  describe: 'list topic bindings (pattern → queue) for smq send --topic',
  builder: (y) => y.example('$0 topics --output table', ''),
  handler: async (argv) => {
    const printer = printerOf(argv);
    await withBackend(argv, async (backend) => {
      const list = await topicsOf(backend).list();
      printer.list(list, bindingTable, bindingRecord, 'no topic bindings yet: add one with smq bind PATTERN QUEUE');
    });
  },
};

const bindBuilder = (y: import('yargs').Argv<GlobalArgs>) =>
  y
    .positional('pattern', { type: 'string', demandOption: true, describe: 'words joined by dots; * one word, # any number' })
    .positional('queue', { type: 'string', demandOption: true, describe: 'queue name' });

export const bindCommand: CommandModule<GlobalArgs, BindArgs> = {
  command: 'bind <pattern> <queue>',
  describe: 'route messages sent with a matching --topic key to a queue',
  builder: (y) => bindBuilder(y).example('$0 bind "orders.*.new" new_orders', 'orders.eu.new goes to new_orders'),
  handler: async (argv) => {
    const pattern = String(argv.pattern);
    const queue = String(argv.queue);
    const printer = printerOf(argv);
    await withBackend(
      argv,
      async (backend) => {
        const bound = await topicsOf(backend).bind(pattern, queue);
        printer.result(
          { pattern, queue, bound },
          bound
            ? `bound ${JSON.stringify(pattern)} to queue ${JSON.stringify(queue)}`
            : `${JSON.stringify(pattern)} is already bound to queue ${JSON.stringify(queue)}`,
        );
      },
      { writes: 'smq bind', queues: [queue] },
    );
  },
};

export const unbindCommand: CommandModule<GlobalArgs, BindArgs> = {
  command: 'unbind <pattern> <queue>',
  describe: 'remove a topic binding',
  builder: (y) => bindBuilder(y).example('$0 unbind "orders.*.new" new_orders', ''),
  handler: async (argv) => {
    const pattern = String(argv.pattern);
    const queue = String(argv.queue);
    const printer = printerOf(argv);
    await withBackend(
      argv,
      async (backend) => {
        const unbound = await topicsOf(backend).unbind(pattern, queue);
        printer.result(
          { pattern, queue, unbound },
          unbound
            ? `unbound ${JSON.stringify(pattern)} from queue ${JSON.stringify(queue)}`
            : `${JSON.stringify(pattern)} was not bound to queue ${JSON.stringify(queue)}: nothing changed`,
        );
      },
      { writes: 'smq unbind', queues: [queue] },
    );
  },
};
