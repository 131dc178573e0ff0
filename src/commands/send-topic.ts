// smq send --topic KEY: the messages go to every queue bound to a pattern the routing key
// matches (pgmq 1.11+ send_batch_topic), all in one transaction; prints each queue's ids.
import type { Backend, SendInput, TopicDelivery } from '../backends/types.js';
import { lacking, need } from '../backends/index.js';
import type { Printer } from '../output/printer.js';
import type { TableView } from '../output/records.js';

const deliveryTable: TableView<TopicDelivery> = {
  columns: [
    { header: 'QUEUE', names: true },
    { header: 'ID', align: 'right' },
  ],
  row: (d) => [d.queue, d.id.toString()],
};

const deliveryRecord = (d: TopicDelivery) => ({ queue: d.queue, id: d.id.toString() });

/** Checked before anything is read or sent: a store without topics is left as it was. */
export function needTopics(backend: Backend): NonNullable<Backend['sendTopic']> {
  need(backend.capabilities, 'topics');
  if (!backend.sendTopic) throw lacking('topics');
  return backend.sendTopic.bind(backend);
}

export async function sendToTopic(backend: Backend, routingKey: string, messages: readonly SendInput[], printer: Printer): Promise<void> {
  const deliveries = await needTopics(backend)(routingKey, messages);
  printer.list(
    deliveries,
    deliveryTable,
    deliveryRecord,
    `routing key ${JSON.stringify(routingKey)} matches no binding: nothing was stored (see smq topics)`,
  );
  // Piped output has no table note: say it on stderr all the same, a script may log it.
  if (deliveries.length === 0 && printer.format !== 'table') {
    printer.note(`routing key ${JSON.stringify(routingKey)} matches no binding: nothing was stored (see smq topics)`);
  }
}
