// commands/index.ts names each command without loading it (cli.ts loads only the commands a
// command line names): the names there must be the ones the modules declare.
import { expect, test } from 'vitest';
import { COMMANDS } from '../../src/commands/index.js';
import { testerSubcommands } from '../../src/commands/tester.js';

const namesOf = (c: { command?: string | readonly string[]; aliases?: string | readonly string[] }) => [
  String(c.command ?? '').split(' ')[0],
  ...[c.aliases ?? []].flat(),
];

test.each(COMMANDS.map((c) => [c.names[0], c] as const))('%s: the index names what its module declares', async (_name, entry) => {
  const loaded = await entry.load();
  expect(loaded.flatMap(namesOf)).toEqual(entry.names);
});

test('every subcommand the tester declares is named in the index, and no other', () => {
  const tester = COMMANDS.find((c) => c.names.includes('tester'));
  expect(testerSubcommands.flatMap(namesOf)).toEqual(tester?.subcommands);
  expect(COMMANDS.filter((c) => c.subcommands !== undefined)).toEqual([tester]);
});

test('no two commands share a name', () => {
  const names = COMMANDS.flatMap((c) => c.names);
  expect(new Set(names).size).toBe(names.length);
});
