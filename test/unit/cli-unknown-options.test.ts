// An option smq does not know is named as the option it was given (`--bogus`, `-z`,
// `--no-such`), as kubectl and git do, never by yargs' stripped key ("Unknown argument: z"),
// and also when no command is given (yargs asked for a command first: "no command given").
// In-process: these words are refused before any store is opened.
import { describe, expect, test } from 'vitest';
import { main } from '../../src/cli.js';
import { SmqError } from '../../src/errors.js';
import type { Io } from '../../src/output/io.js';

const io = (): Io =>
  ({
    stdin: process.stdin,
    stdout: { write: () => true, isTTY: false },
    stderr: { write: () => true, isTTY: false },
  }) as unknown as Io;

async function refusal(argv: string[]): Promise<string> {
  try {
    await main(argv, io());
  } catch (e) {
    expect(e).toBeInstanceOf(SmqError);
    expect((e as SmqError).exitCode).toBe(2);
    return (e as SmqError).line();
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
}

describe('unknown options', () => {
  test.each([
    [['--bogus'], "unknown option --bogus: see 'smq --help'"],
    [['--bogus=1'], "unknown option --bogus: see 'smq --help'"],
    [['--sqlite', '/nonexistent/x.db', '--bogus'], "unknown option --bogus: see 'smq --help'"],
    [['peek', 'q', '--bogus', '--sqlite', '/nonexistent/x.db'], "unknown option --bogus: see 'smq peek --help'"],
    [['peek', 'q', '--bogus', '--worse', '--sqlite', '/nonexistent/x.db'], "unknown options --bogus, --worse: see 'smq peek --help'"],
    [['peek', 'q', '-z', '--sqlite', '/nonexistent/x.db'], "unknown option -z: see 'smq peek --help'"],
    [['peek', 'q', '--limit', '3', '--bogus', '--sqlite', '/nonexistent/x.db'], "unknown option --bogus: see 'smq peek --help'"],
    [['tester', '--duration', '2s', '--bogus', '--sqlite', '/nonexistent/x.db'], "unknown option --bogus: see 'smq tester --help'"],
    [['peek', 'q', '--no-such', '--sqlite', '/nonexistent/x.db'], "unknown option --no-such: see 'smq peek --help'"],
  ])('%j', async (argv, line) => {
    expect(await refusal(argv)).toBe(line);
  });

  test('a word after -- stays a word, not an option', async () => {
    expect(await refusal(['peek', '--sqlite', '/nonexistent/x.db', '--', 'q', '--frobnicate'])).toBe(
      "Unknown argument: --frobnicate: see 'smq peek --help'",
    );
  });

  test('known options in their other spellings are not refused: -n5, --limit=3, --no-<boolean>, camelCase', async () => {
    for (const argv of [
      ['peek', 'q', '-n5'],
      ['peek', 'q', '--limit=3', '-otable'],
      ['tester', '--maxBacklog', '3', '--duration', '1s'],
    ]) {
      const line = await main([...argv, '--sqlite', '/nonexistent/x.db'], io()).then(
        () => 'ran',
        (e: SmqError) => e.line(),
      );
      expect(line, argv.join(' ')).not.toMatch(/unknown option|Unknown argument/);
    }
  });

  test('a word before the command names no command: "unknown command", not "Unknown argument"', async () => {
    for (const argv of [
      ['bogus', 'peek', 'q'],
      ['bogus', 'peek', 'q', '--limit', '3'],
      ['bogus', 'receive', 'q', '-n', '2'],
      ['bogus', 'top', '--once', '-n', '1'],
      ['bogus', '--limit', '3'],
      ['-o', 'json', 'bogus', 'peek', 'q'],
    ]) {
      expect(await refusal([...argv, '--sqlite', '/nonexistent/x.db']), argv.join(' ')).toBe("unknown command: bogus: see 'smq --help'");
    }
  });

  test("an option's value is not a word in the command's place", async () => {
    expect(await refusal(['--sqlite', '/nonexistent/x.db', 'peek', 'q', '/nonexistent/x.db'])).toBe(
      "Unknown argument: /nonexistent/x.db: see 'smq peek --help'",
    );
    expect(await refusal(['-o', 'json', 'queues', 'json', '--sqlite', '/nonexistent/x.db'])).toBe(
      "Unknown argument: json: see 'smq queues --help'",
    );
  });

  test('an unknown command of 5,000 characters is shown by its beginning', async () => {
    const line = await refusal([`${'b'.repeat(5000)}`, 'peek', 'q']);
    expect(line).toMatch(/^unknown command: b{40}…: see 'smq --help'$/);
  });

  test('an unknown option of 5,000 characters is shown by its beginning', async () => {
    const line = await refusal([`--${'a'.repeat(5000)}`]);
    expect(line.length).toBeLessThan(120);
    expect(line).toMatch(/^unknown option --a{38}…: see 'smq --help'$/);
  });

  test('a command word taken as an option value: said so, not its options as unknown', async () => {
    expect(await refusal(['--sqlite', 'receive', 'orders', '--vt', '300'])).toBe(
      "--sqlite took 'receive' as its value: give --sqlite its value, or put it after the command: see 'smq receive --help'",
    );
  });

  test('no command and no unknown option: still "no command given"', async () => {
    expect(await refusal(['--sqlite', '/nonexistent/x.db'])).toBe("no command given: see 'smq --help'");
  });
});
