// Every smq subcommand. Add new ones (tester, top) by appending their module here.
import type { CommandModule } from 'yargs';
import type { GlobalArgs } from './context.js';
import { createCommand } from './create.js';
import { deleteCommand } from './delete.js';
import { dropCommand } from './drop.js';
import { groupsCommand } from './groups.js';
import { initCommand } from './init.js';
import { peekCommand } from './peek.js';
import { purgeCommand } from './purge.js';
import { queuesCommand } from './queues.js';
import { notifyCommand } from './notify.js';
import { receiveCommand } from './receive.js';
import { sendCommand } from './send.js';
import { topCommand } from './top.js';
import { bindCommand, topicsCommand, unbindCommand } from './topics.js';
import { testerCommand, testerSubcommands } from './tester.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const commands: CommandModule<GlobalArgs, any>[] = [
  queuesCommand,
  createCommand,
  dropCommand,
  purgeCommand,
  sendCommand,
  receiveCommand,
  deleteCommand,
  peekCommand,
  groupsCommand,
  topicsCommand,
  bindCommand,
  unbindCommand,
  notifyCommand,
  initCommand,
  topCommand,
  testerCommand,
];

/**
 * The subcommands a command declares in its builder, by the command's name (`smq tester compare`).
 * A command with subcommands takes no operands of its own: a word after it names a subcommand.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const subcommands: ReadonlyMap<string, readonly CommandModule<GlobalArgs, any>[]> = new Map([['tester', testerSubcommands]]);
