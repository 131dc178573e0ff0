// smq notify [QUEUE] [on|off] [--throttle 250ms]: pgmq 1.7+ insert notifications. On, a
// queue's inserts send a NOTIFY on pgmq's channel `pgmq.q_<name>.INSERT` (at most one per
// throttle interval) so that a consumer can LISTEN instead of polling. Without on|off it
// shows the queue's setting; without a queue, every queue that has them on.
import type { CommandModule } from 'yargs';
import { lacking, need } from '../backends/index.js';
import type { Backend, NotifyInsertSetting } from '../backends/types.js';
import { usageError } from '../errors.js';
import { shortTime, type TableView } from '../output/records.js';
import { throttleMsOf } from './args.js';
import { printerOf, withBackend, type GlobalArgs } from './context.js';

interface NotifyArgs extends GlobalArgs {
  readonly queue?: string | undefined;
  readonly state?: string | undefined;
  readonly throttle?: string | undefined;
}

/** pgmq's own default for enable_notify_insert. */
const DEFAULT_THROTTLE_MS = 250;

const settingTable: TableView<NotifyInsertSetting> = {
  columns: [{ header: 'QUEUE', names: true }, { header: 'THROTTLE', align: 'right' }, { header: 'LAST NOTIFIED' }, { header: 'CHANNEL' }],
  row: (n) => [n.queue, `${n.throttleMs} ms`, n.lastNotifiedAt ? shortTime(n.lastNotifiedAt) : '-', n.channel],
};

const settingRecord = (n: NotifyInsertSetting) => ({
  queue: n.queue,
  notify: true,
  throttleMs: n.throttleMs,
  lastNotifiedAt: n.lastNotifiedAt ? n.lastNotifiedAt.toISOString() : null,
  channel: n.channel,
});

/** The backend's notification methods, once the store is known to have them (else its one line, exit 2). */
function notifyOf(backend: Backend) {
  need(backend.capabilities, 'notifyInsert');
  const { setNotifyInsert, notifyInsertSettings } = backend;
  if (!setNotifyInsert || !notifyInsertSettings) throw lacking('notifyInsert');
  return { set: setNotifyInsert.bind(backend), list: notifyInsertSettings.bind(backend) };
}

export const notifyCommand: CommandModule<GlobalArgs, NotifyArgs> = {
  command: 'notify [queue] [state]',
  describe: "turn a queue's insert notifications (LISTEN instead of polling) on or off; without on|off show them",
  builder: (y) =>
    y
      .positional('queue', { type: 'string', describe: 'queue name (none: list the queues that have them on)' })
      .positional('state', { type: 'string', describe: 'on or off' })
      .option('throttle', {
        type: 'string',
        requiresArg: true,
        describe: `with on: at most one notification per this long (default ${DEFAULT_THROTTLE_MS}ms; 0: one per insert)`,
      })
      .example('$0 notify orders on --throttle 100ms', 'LISTEN "pgmq.q_orders.INSERT" then wakes on new messages')
      .example('$0 notify', 'the queues with notifications on'),
  handler: async (argv) => {
    const queue = argv.queue === undefined ? undefined : String(argv.queue);
    const state = argv.state === undefined ? undefined : String(argv.state);
    if (state !== undefined && state !== 'on' && state !== 'off') {
      throw usageError(`unknown state ${JSON.stringify(state)}`, 'give on or off: smq notify QUEUE on|off');
    }
    if (argv.throttle !== undefined && state !== 'on') {
      throw usageError('--throttle goes with on', 'smq notify QUEUE on --throttle 250ms');
    }
    const throttleMs = argv.throttle === undefined ? DEFAULT_THROTTLE_MS : throttleMsOf(argv.throttle);
    const printer = printerOf(argv);

    if (queue === undefined || state === undefined) {
      await withBackend(
        argv,
        async (backend) => {
          const settings = await notifyOf(backend).list();
          if (queue === undefined) {
            printer.list(settings, settingTable, settingRecord, 'no queue has insert notifications on: smq notify QUEUE on');
            return;
          }
          await backend.queueStats(queue); // a missing queue: exit 3
          const one = settings.find((n) => n.queue.toLowerCase() === queue.toLowerCase());
          if (one) printer.result(settingRecord(one), describe(one.queue, one));
          else printer.result({ queue, notify: false }, describe(queue, undefined));
        },
        queue === undefined ? {} : { queues: [queue] },
      );
      return;
    }

    await withBackend(
      argv,
      async (backend) => {
        const notify = notifyOf(backend);
        const find = async () => (await notify.list()).find((n) => n.queue.toLowerCase() === queue.toLowerCase());
        const before = await find();
        await notify.set(queue, state === 'on' ? throttleMs : null);
        const after = await find();
        const changed = state === 'on' ? before?.throttleMs !== throttleMs : before !== undefined;
        const name = after?.queue ?? before?.queue ?? queue;
        const record = after ? { ...settingRecord(after), changed } : { queue: name, notify: false, changed };
        printer.result(record, changed ? describe(name, after) : `nothing changed: ${describe(name, after)}`);
        // Real pgmq finds the setting by the table's lower-case name: such a queue never notifies.
        if (after && name !== name.toLowerCase() && !backend.capabilities.notifyCapitals) {
          const { schema } = await backend.info();
          printer.note(
            `warning: ${schema} never notifies a queue named with capitals (${JSON.stringify(name)}): a LISTEN on ${after.channel} hears nothing; name the queue in lower case, or use smq's compat schema`,
          );
        }
      },
      { writes: 'smq notify', queues: [queue] },
    );
  },
};

function describe(queue: string, setting: NotifyInsertSetting | undefined): string {
  if (!setting) return `insert notifications are off for ${JSON.stringify(queue)}`;
  const every = setting.throttleMs === 0 ? 'on every insert' : `at most once per ${setting.throttleMs} ms`;
  return `insert notifications are on for ${JSON.stringify(queue)}: NOTIFY on channel ${setting.channel} ${every}`;
}
