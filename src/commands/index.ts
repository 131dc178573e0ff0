// Every smq subcommand, by the words that name it, and the module that holds it. A module is
// loaded only when a word on the command line names its command (or when none does, for the
// top-level help and the "did you mean" line): `smq peek` does not compile send's, top's or the
// tester's option tables and handlers (test/integration/cli-startup.test.ts). Add a command
// by adding its line here; a unit test checks the names against the modules' own.
import type { CommandModule } from 'yargs';
import type { GlobalArgs } from './context.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each command has its own argument type
export type AnyCommand = CommandModule<GlobalArgs, any>;

export interface CommandEntry {
  /** The command's name and aliases, as its module declares them. */
  readonly names: readonly string[];
  /** Subcommands the command declares in its builder (`smq tester compare`): a word after it names one. */
  readonly subcommands?: readonly string[];
  readonly load: () => Promise<readonly AnyCommand[]>;
  /** The subcommands themselves (loaded with the command), for their usage lines. */
  readonly loadSubcommands?: () => Promise<readonly AnyCommand[]>;
}

/** In the order `smq --help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  { names: ['queues', 'ls'], load: async () => [(await import('./queues.js')).queuesCommand] },
  { names: ['create'], load: async () => [(await import('./create.js')).createCommand] },
  { names: ['drop'], load: async () => [(await import('./drop.js')).dropCommand] },
  { names: ['purge'], load: async () => [(await import('./purge.js')).purgeCommand] },
  { names: ['send'], load: async () => [(await import('./send.js')).sendCommand] },
  { names: ['receive'], load: async () => [(await import('./receive.js')).receiveCommand] },
  { names: ['delete'], load: async () => [(await import('./delete.js')).deleteCommand] },
  { names: ['peek'], load: async () => [(await import('./peek.js')).peekCommand] },
  { names: ['groups'], load: async () => [(await import('./groups.js')).groupsCommand] },
  { names: ['topics'], load: async () => [(await import('./topics.js')).topicsCommand] },
  { names: ['bind'], load: async () => [(await import('./topics.js')).bindCommand] },
  { names: ['unbind'], load: async () => [(await import('./topics.js')).unbindCommand] },
  { names: ['notify'], load: async () => [(await import('./notify.js')).notifyCommand] },
  { names: ['init'], load: async () => [(await import('./init.js')).initCommand] },
  { names: ['top'], load: async () => [(await import('./top.js')).topCommand] },
  {
    names: ['tester'],
    subcommands: ['compare'],
    load: async () => [(await import('./tester.js')).testerCommand],
    loadSubcommands: async () => (await import('./tester.js')).testerSubcommands,
  },
];

export interface LoadedCommands {
  readonly commands: readonly AnyCommand[];
  /** Only the commands the words name, not every one. */
  readonly partial: boolean;
  /** Each loaded command's form by the words that name it: 'peek' → 'peek <queue>', 'tester compare' → 'tester compare <baseline> <new>'. */
  readonly forms: ReadonlyMap<string, string>;
}

/**
 * The commands yargs needs for these words: those any word names (a word may be an option's
 * value: loading one more command costs a few milliseconds, matching none would be wrong), or
 * every command when no word names one (`smq`, `smq --help`, `smq bogus`). In COMMANDS' order.
 */
export async function commandsFor(words: readonly string[]): Promise<LoadedCommands> {
  const named = COMMANDS.filter((c) => c.names.some((n) => words.includes(n)));
  const entries = named.length > 0 ? named : COMMANDS;
  const commands = (await Promise.all(entries.map((c) => c.load()))).flat();
  const forms = new Map<string, string>();
  const add = (prefix: string, list: readonly AnyCommand[]) => {
    for (const c of list) {
      const form = String(c.command ?? '');
      for (const name of [form.split(' ')[0]!, ...[c.aliases ?? []].flat()]) forms.set(`${prefix}${name}`, `${prefix}${form}`);
    }
  };
  add('', commands);
  for (const c of entries) if (c.loadSubcommands) for (const name of c.names) add(`${name} `, await c.loadSubcommands());
  return { commands, forms, partial: entries.length < COMMANDS.length };
}
