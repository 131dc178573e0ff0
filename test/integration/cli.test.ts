// The smq commands end to end: the built binary as a child process, against the suite's
// real Postgres (pgmq) and real SmoothMQ SQLite files, the same tests over both.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { BIN, ensureBuilt, ndjson, runCli, type CliResult, type RunOptions } from '../helpers/run-cli.js';
import { spawnSync } from 'node:child_process';
import { main } from '../../src/cli.js';
import type { Io } from '../../src/output/io.js';
import { SmqError } from '../../src/errors.js';

type Kind = 'pgmq' | 'sqlite';

const uniqueQueue = () => `cli_${randomBytes(5).toString('hex')}`;

interface Store {
  readonly args: string[];
}

let tmp: string;

beforeAll(() => {
  ensureBuilt();
  tmp = mkdtempSync(join(tmpdir(), 'smq-cli-'));
});
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

function ok(r: CliResult): CliResult {
  expect(r.stderr, `stderr of a successful run`).toBe('');
  expect(r.code).toBe(0);
  return r;
}

describe.each<Kind>(['pgmq', 'sqlite'])('smq commands on %s', (kind) => {
  let store: Store;
  const smq = (args: string[], options?: RunOptions) => runCli([...args, ...store.args], options);

  beforeAll(async () => {
    if (kind === 'pgmq') {
      store = { args: ['--url', inject('pgUrl')] };
    } else {
      const path = join(tmp, `${randomBytes(4).toString('hex')}.db`);
      const r = ok(await runCli(['init', '--sqlite', path, '--json']));
      expect(JSON.parse(r.stdout)).toMatchObject({ backend: 'sqlite', created: true });
      store = { args: ['--sqlite', path] };
    }
  });

  test('init is idempotent and says what it found', async () => {
    const r = ok(await smq(['init', '--json']));
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    if (kind === 'pgmq') {
      expect(doc['mode']).toMatch(/existing$/);
      expect(r.stdout).not.toContain(new URL(inject('pgUrl')).password);
    } else {
      expect(doc['created']).toBe(false);
    }
    expect(ok(await smq(['init', '--output', 'table'])).stdout).toMatch(/nothing to do/);
  });

  test('create, list, drop', async () => {
    const q = uniqueQueue();
    expect(ndjson(ok(await smq(['create', q])).stdout)).toEqual([{ queue: q, created: true }]);
    expect(ndjson(ok(await smq(['create', q])).stdout)).toEqual([{ queue: q, created: false }]);
    const listed = JSON.parse(ok(await smq(['queues', '--json'])).stdout) as Record<string, unknown>[];
    expect(listed.find((x) => x['name'] === q)).toMatchObject({ name: q, ready: 0, inFlight: 0, delayed: 0, total: 0 });
    ok(await smq(['drop', q, '--yes']));
    const after = ndjson(ok(await smq(['queues'])).stdout);
    expect(after.find((x) => x['name'] === q)).toBeUndefined();
    expect((await smq(['drop', q, '--yes'])).code).toBe(3);
  });

  test('send a body, then peek shows it without receiving it', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    const sent = ndjson(ok(await smq(['send', q, '{"n": 1}'])).stdout);
    expect(sent).toHaveLength(1);
    const id = sent[0]?.['id'];
    expect(id).toMatch(/^\d+$/);
    for (let i = 0; i < 2; i++) {
      const peeked = ndjson(ok(await smq(['peek', q])).stdout);
      expect(peeked).toHaveLength(1);
      expect(peeked[0]).toMatchObject({ id, state: 'ready', readCount: 0 });
      expect(JSON.parse(String(peeked[0]?.['body']))).toEqual({ n: 1 });
    }
    const one = JSON.parse(ok(await smq(['peek', q, '--id', String(id), '--json'])).stdout) as unknown[];
    expect(one).toHaveLength(1);
  });

  test('send reads one message per stdin line, in order, skipping blank lines', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    const r = ok(await smq(['send', q], { input: '{"i":1}\r\n{"i":2}\n\n{"i":3}\n' }));
    const ids = ndjson(r.stdout).map((x) => BigInt(String(x['id'])));
    expect(ids).toHaveLength(3);
    expect([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(ids);
    const bodies = ndjson(ok(await smq(['peek', q])).stdout).map((m) => JSON.parse(String(m['body'])) as unknown);
    expect(bodies).toEqual([{ i: 1 }, { i: 2 }, { i: 3 }]);
  });

  test('--header becomes a header (pgmq) or an attribute (SmoothMQ)', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    ok(await smq(['send', q, '{}', '--header', 'trace=abc', '--header', 'kind=x=y']));
    const [m] = ndjson(ok(await smq(['peek', q])).stdout);
    expect(m?.['headers']).toMatchObject({ trace: 'abc', kind: 'x=y' });
    expect((await smq(['send', q, '{}', '--header', 'novalue'])).code).toBe(2);
  });

  test('--delay makes a delayed message', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    ok(await smq(['send', q, '{"later": true}', '--delay', '600']));
    expect(ndjson(ok(await smq(['peek', q, '--state', 'delayed'])).stdout)).toHaveLength(1);
    expect(ndjson(ok(await smq(['peek', q, '--state', 'ready'])).stdout)).toHaveLength(0);
    expect(ndjson(ok(await smq(['receive', q])).stdout)).toHaveLength(0);
  });

  test('receive claims messages, hides them, and --delete acknowledges', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    ok(await smq(['send', q], { input: '{"i":1}\n{"i":2}\n{"i":3}\n' }));
    const got = ndjson(ok(await smq(['receive', q, '--qty', '2', '--vt', '300'])).stdout);
    expect(got).toHaveLength(2);
    for (const m of got) expect(m).toMatchObject({ state: 'inflight', readCount: 1 });
    expect(ndjson(ok(await smq(['peek', q, '--state', 'inflight'])).stdout).map((m) => m['id'])).toEqual(got.map((m) => m['id']));

    const last = ndjson(ok(await smq(['receive', q, '--qty', '5', '--delete'])).stdout);
    expect(last).toHaveLength(1);
    expect(JSON.parse(String(last[0]?.['body']))).toEqual({ i: 3 });
    const left = ndjson(ok(await smq(['peek', q])).stdout);
    expect(left.map((m) => m['id'])).toEqual(got.map((m) => m['id']));
    expect(ndjson(ok(await smq(['receive', q])).stdout)).toEqual([]);
  });

  test('--vt, --delay and --visibility-timeout take durations; a bare number is seconds', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q, ...(kind === 'sqlite' ? ['--visibility-timeout', '1m30s'] : [])]));
    if (kind === 'sqlite') {
      const listed = JSON.parse(ok(await smq(['queues', '--json'])).stdout) as Record<string, unknown>[];
      expect(listed.find((x) => x['name'] === q)).toMatchObject({ visibilityTimeoutSec: 90 });
    }
    const at = Date.now();
    const [delayed] = ndjson(ok(await smq(['send', q, '{"d":1}', '--delay', '10m'])).stdout);
    ok(await smq(['send', q, '{"d":0}']));
    const [got] = ndjson(ok(await smq(['receive', q, '--vt', '2m'])).stdout);
    const [again] = ndjson(ok(await smq(['receive', q, '--vt', '300'])).stdout);
    expect(again).toBeUndefined(); // the other one is delayed for 10 minutes
    // Visible again two minutes (give or take the run's own time) after the receive.
    const visibleIn = (m: Record<string, unknown> | undefined) => Date.parse(String(m?.['visibleAt'])) - at;
    expect(visibleIn(got)).toBeGreaterThan(115_000);
    expect(visibleIn(got)).toBeLessThan(125_000 + (Date.now() - at));
    const [peeked] = ndjson(ok(await smq(['peek', q, '--id', String(delayed?.['id'])])).stdout);
    expect(peeked).toMatchObject({ state: 'delayed' });
    expect(visibleIn(peeked)).toBeGreaterThan(595_000);
    expect(visibleIn(peeked)).toBeLessThan(605_000 + (Date.now() - at));
  });

  test('delete by id; unknown ids exit 3', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    const ids = ndjson(ok(await smq(['send', q], { input: '1\n2\n' })).stdout).map((x) => String(x['id']));
    const [a, b] = ids as [string, string];
    expect(ndjson(ok(await smq(['delete', q, a, '--yes'])).stdout)).toEqual([{ id: a, deleted: true }]);
    const again = await smq(['delete', q, a, '--yes']);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain(a);
    // Mixed: the known one goes, the unknown one is reported.
    const mixed = await smq(['delete', q, b, a, '--yes']);
    expect(mixed.code).toBe(3);
    expect(ndjson(mixed.stdout)).toEqual([{ id: b, deleted: true }]);
    expect(ndjson(ok(await smq(['peek', q])).stdout)).toEqual([]);
    expect((await smq(['peek', q, '--id', a])).code).toBe(3);
  });

  test('peek pages with --limit and --after, and --order newest reverses', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    const ids = ndjson(ok(await smq(['send', q], { input: '1\n2\n3\n4\n5\n' })).stdout).map((x) => String(x['id']));
    const page1 = ndjson(ok(await smq(['peek', q, '--limit', '2'])).stdout).map((m) => m['id']);
    expect(page1).toEqual(ids.slice(0, 2));
    const page2 = ndjson(ok(await smq(['peek', q, '--limit', '2', '--after', String(page1[1])])).stdout).map((m) => m['id']);
    expect(page2).toEqual(ids.slice(2, 4));
    const newest = ndjson(ok(await smq(['peek', q, '--order', 'newest', '--limit', '2'])).stdout).map((m) => m['id']);
    expect(newest).toEqual([ids[4], ids[3]]);
  });

  test('purge empties the queue and says how many', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    ok(await smq(['send', q], { input: '1\n2\n3\n' }));
    expect(ndjson(ok(await smq(['purge', q, '--yes'])).stdout)).toEqual([{ queue: q, purged: 3 }]);
    const [stats] = (JSON.parse(ok(await smq(['queues', '--json'])).stdout) as Record<string, unknown>[]).filter((x) => x['name'] === q);
    expect(stats).toMatchObject({ total: 0 });
  });

  test('output: an aligned table, one JSON document, or NDJSON lines', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    ok(await smq(['send', q], { input: '{"a":1}\n{"b":22222}\n' }));
    const table = ok(await smq(['peek', q, '--output', 'table']))
      .stdout.trimEnd()
      .split('\n');
    expect(table).toHaveLength(3);
    expect(table[0]).toMatch(/^\s*ID\s+STATE\s+READS/);
    // Columns line up: every row has STATE where the header has it.
    const stateAt = table[0]!.indexOf('STATE');
    for (const row of table.slice(1)) expect(row.slice(stateAt, stateAt + 5)).toBe('ready');

    const doc = ok(await smq(['peek', q, '--json'])).stdout;
    expect(JSON.parse(doc)).toHaveLength(2);
    const lines = ok(await smq(['peek', q, '--output', 'ndjson']))
      .stdout.trimEnd()
      .split('\n');
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(JSON.parse(l)).toHaveProperty('id');
    // Piped stdout and no --output: NDJSON.
    expect(
      ok(await smq(['peek', q]))
        .stdout.trimEnd()
        .split('\n'),
    ).toHaveLength(2);
    expect((await smq(['peek', q, '--json', '--output', 'table'])).code).toBe(2);

    const queues = ok(await smq(['queues', '--output', 'table'])).stdout;
    expect(queues).toMatch(/^QUEUE\s+READY\s+IN FLIGHT\s+DELAYED/);
    expect(queues).toMatch(new RegExp(`^${q}\\s+2\\s+0\\s+0`, 'm'));
  });

  test('control characters in bodies and headers never reach the terminal raw', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    // pgmq bodies are JSON (jsonb renders controls as \u001b); SmoothMQ keeps raw text.
    const nasty = kind === 'pgmq' ? '{"t": "\\u001b[2J\\u009b31m\\u202e"}' : '\u001b[2J red\r\u0007\u009b31m\u202e';
    ok(await smq(['send', q, nasty, '--header', 'h=\u001b]0;title\u0007']));
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/;
    for (const format of ['table', 'json', 'ndjson']) {
      const r = ok(await smq(['peek', q, '--output', format]));
      expect(r.stdout, format).not.toMatch(raw);
    }
    const table = ok(await smq(['peek', q, '--output', 'table'])).stdout;
    expect(table).toContain(kind === 'pgmq' ? '\\u001b[2J' : '\\e[2J');
    // JSON still carries the exact text.
    const [m] = JSON.parse(ok(await smq(['peek', q, '--json'])).stdout) as { body: string; headers: Record<string, string> }[];
    if (kind === 'sqlite') expect(m?.body).toBe(nasty);
    else expect(JSON.parse(m!.body)).toEqual({ t: '\u001b[2J\u009b31m\u202e' });
    expect(m?.headers['h']).toBe('\u001b]0;title\u0007');
  });

  test('ids are strings in JSON and round-trip exactly (SmoothMQ snowflakes exceed 2^53)', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    const [sent] = ndjson(ok(await smq(['send', q, '{}'])).stdout);
    const id = sent?.['id'];
    expect(typeof id).toBe('string');
    if (kind === 'sqlite') expect(BigInt(String(id))).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
    const [peeked] = ndjson(ok(await smq(['peek', q, '--id', String(id)])).stdout);
    expect(peeked?.['id']).toBe(id);
    ok(await smq(['delete', q, String(id), '--yes']));
  });

  test('--read-only reads but refuses changes', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    ok(await smq(['peek', q, '--read-only']));
    ok(await smq(['queues', '--read-only']));
    const r = await smq(['send', q, '{}', '--read-only']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/read-only/);
    expect(ndjson(ok(await smq(['peek', q])).stdout)).toEqual([]);
  });

  test("'--' ends the options: every word after it is a positional argument, one starting with '-' too", async () => {
    const q = `-${uniqueQueue()}`;
    // The store's options go before '--': after it they would be positional arguments too.
    const after = (command: string[], ...operands: string[]) => runCli([...command, ...store.args, '--', ...operands]);
    expect(ndjson(ok(await after(['create'], q)).stdout)).toEqual([{ queue: q, created: true }]);
    ok(await after(['send'], q, '-1'));
    expect(ndjson(ok(await after(['peek'], q)).stdout).map((m) => m['body'])).toEqual(['-1']);
    ok(await after(['drop', '--yes'], q));
    // Not options after '--': an unknown one is an extra argument, not a flag.
    const extra = await after(['peek'], q, '--frobnicate');
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/^smq: Unknown argument: --frobnicate/);
    // The command itself after '--' (nothing before it names one): the first word is the command.
    const q2 = `-${uniqueQueue()}`;
    expect(ndjson(ok(await runCli([...store.args, '--', 'create', q2])).stdout)).toEqual([{ queue: q2, created: true }]);
    const listed = JSON.parse(ok(await runCli([...store.args, '--json', '--', 'queues'])).stdout) as { name: string }[];
    expect(listed.map((x) => x.name)).toContain(q2);
    ok(await after(['drop', '--yes'], q2));
  });

  test('queue settings that only one backend has', async () => {
    const q = uniqueQueue();
    if (kind === 'pgmq') {
      ok(await smq(['create', q, '--unlogged']));
      const listed = JSON.parse(ok(await smq(['queues', '--json'])).stdout) as Record<string, unknown>[];
      expect(listed.find((x) => x['name'] === q)).toMatchObject({ isUnlogged: true });
      expect((await smq(['create', uniqueQueue(), '--max-retries', '3'])).code).toBe(2);
      expect((await smq(['peek', q, '--state', 'failed'])).code).toBe(2);
      expect((await smq(['queues', '--tenant', '2'])).code).toBe(2);
    } else {
      ok(await smq(['create', q, '--visibility-timeout', '45', '--max-retries', '3']));
      const listed = JSON.parse(ok(await smq(['queues', '--json'])).stdout) as Record<string, unknown>[];
      expect(listed.find((x) => x['name'] === q)).toMatchObject({ visibilityTimeoutSec: 45, maxRetries: 3 });
      expect((await smq(['create', uniqueQueue(), '--unlogged'])).code).toBe(2);
      ok(await smq(['peek', q, '--state', 'failed']));
      // Another tenant has its own queues.
      expect(ndjson(ok(await smq(['queues', '--tenant', '2'])).stdout).find((x) => x['name'] === q)).toBeUndefined();
    }
  });
});

describe('SmoothMQ names are free text', () => {
  test('a name that looks like SQL is stored verbatim and harms nothing', async () => {
    const path = join(tmp, 'names.db');
    ok(await runCli(['init', '--sqlite', path]));
    const name = "x'; DROP TABLE messages; --";
    ok(await runCli(['create', name, '--sqlite', path]));
    ok(await runCli(['send', name, 'hello', '--sqlite', path]));
    const [m] = ndjson(ok(await runCli(['peek', name, '--sqlite', path])).stdout);
    expect(m?.['body']).toBe('hello');
    expect(ndjson(ok(await runCli(['queues', '--sqlite', path])).stdout).map((x) => x['name'])).toEqual([name]);
  });
});

describe('the command line itself', () => {
  test('a mistyped command: one line that says it is unknown and what it may have meant, exit 2', async () => {
    const r = await runCli(['qeues', '--sqlite', '/nonexistent/x.db']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("smq: unknown command: did you mean queues?: see 'smq --help'\n");
  });

  test.each([['bogus'], ['qeues']])('smq %s --help says the command is unknown, as without --help, exit 2', async (word) => {
    const without = await runCli([word]);
    for (const help of ['--help', '-h']) {
      const r = await runCli([word, help]);
      expect(r.code, help).toBe(2);
      expect(r.stdout, help).toBe('');
      expect(r.stderr, help).toBe(without.stderr);
    }
  });

  // As in getopt: after '--' nothing is an option's value, so an option right before it has none.
  test.each([
    [
      ['peek', 'q', '--limit', '--', '2'],
      ['peek', 'q', '--limit'],
    ],
    [
      ['peek', 'q', '-n', '--', '2'],
      ['peek', 'q', '-n'],
    ],
    [
      ['peek', 'q', '--after', '--', '3'],
      ['peek', 'q', '--after'],
    ],
    [
      ['peek', '--url', '--', 'q'],
      ['peek', 'q', '--url'],
    ],
    [
      ['--url', '--', 'queues'],
      ['queues', '--url'],
    ],
    [
      ['tester', 'compare', '--max-regression', '--', 'a.json', 'b.json'],
      ['tester', 'compare', 'a.json', 'b.json', '--max-regression'],
    ],
  ])("smq %j: the option before '--' has no value, the line of %j, exit 2", async (withDash, last) => {
    const r = await runCli(withDash);
    const without = await runCli(last);
    expect(without.code).toBe(2);
    expect(without.stderr).toMatch(/^smq: -{1,2}[a-z-]+ needs a value: see 'smq [a-z ]+--help'\n$/);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(without.stderr);
  });

  test.each([['--ack'], ['--isolation'], ['--dequeue'], ['--read']])(
    'smq tester %s with no value: one line, exit 2, no run',
    async (flag) => {
      const r = await runCli(['tester', '--senders', '1', '--receivers', '1', '--messages', '10', flag]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`smq: ${flag} needs a value: see 'smq tester --help'\n`);
    },
  );

  test.each([[['bogus']], [['qeues']], [['tester', 'comapre']], [['tester', 'compare', 'a.json', 'b.json']]])(
    "smq -- %j: the words after '--' name the command as they do without it",
    async (words) => {
      const without = await runCli(words);
      expect(without.code).toBeGreaterThan(0);
      for (const args of [
        ['--', ...words],
        [words[0]!, '--', ...words.slice(1)],
      ]) {
        const r = await runCli(args);
        expect(r.code, args.join(' ')).toBe(without.code);
        expect(r.stderr, args.join(' ')).toBe(without.stderr);
      }
    },
  );

  test('smq tester <unknown subcommand> --help: the line smq tester <unknown subcommand> gives, exit 2', async () => {
    const mistyped = await runCli(['tester', 'comapre']);
    expect(mistyped.code).toBe(2);
    expect(mistyped.stderr).toBe("smq: unknown command: did you mean compare?: see 'smq tester --help'\n");
    for (const word of ['comapre', 'bogus']) {
      const without = await runCli(['tester', word]);
      for (const args of [
        ['tester', word, '--help'],
        ['tester', word, '-h'],
        ['tester', '--help', word],
        ['help', 'tester', word],
      ]) {
        const r = await runCli(args);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stdout, args.join(' ')).toBe('');
        expect(r.stderr, args.join(' ')).toBe(without.stderr);
      }
    }
    expect(ok(await runCli(['tester', '--help'])).stdout).toMatch(/^smq tester\n/);
    expect(ok(await runCli(['tester', 'compare', '--help'])).stdout).toMatch(/^smq tester compare <baseline> <new>\n/);
    expect(ok(await runCli(['help', 'tester', 'compare'])).stdout).toMatch(/^smq tester compare <baseline> <new>\n/);
  });

  test('an unknown command with --version: the unknown-command line, exit 2 (smq --version still prints the version)', async () => {
    for (const words of [['bogus'], ['qeues'], ['tester', 'bogus'], ['tester', 'comapre']]) {
      const without = await runCli(words);
      for (const args of [
        [...words, '--version'],
        ['--version', ...words],
      ]) {
        const r = await runCli(args);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stdout, args.join(' ')).toBe('');
        expect(r.stderr, args.join(' ')).toBe(without.stderr);
      }
    }
    expect(ok(await runCli(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(ok(await runCli(['queues', '--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  test('a command word that names no command, close to none: "unknown command", not yargs\' "Unknown argument"', async () => {
    const sqlite = ['--sqlite', join(tmp, 'unknown-word.sqlite')];
    for (const [args, line] of [
      [['bogus'], "smq: unknown command: bogus: see 'smq --help'\n"],
      [['--', 'bogus'], "smq: unknown command: bogus: see 'smq --help'\n"],
      [[...sqlite, 'bogus'], "smq: unknown command: bogus: see 'smq --help'\n"],
      [['tester', 'xyzzy'], "smq: unknown command: tester xyzzy: see 'smq tester --help'\n"],
      // A word after a command that takes operands is no command: yargs' line stays.
      [[...sqlite, 'queues', 'extra'], "smq: Unknown argument: extra: see 'smq queues --help'\n"],
    ] as const) {
      const r = await runCli([...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(line);
    }
    // The hint names the command, not the first word that is no option (here --sqlite's value).
    const r = await runCli([...sqlite, 'peek', 'q', '--limit', '--', '2']);
    expect(r.stderr).toBe("smq: --limit needs a value: see 'smq peek --help'\n");
  });

  test('an option given twice is refused by name, not judged on a list of its values', async () => {
    const sqlite = ['--sqlite', join(tmp, 'twice.sqlite')];
    for (const [args, line] of [
      // yargs made [2, 3] of it: "--limit must be a whole number of 1 or more" sent the user looking at 2 and 3.
      [['peek', 'q', '--limit', '2', '--limit', '3'], 'smq: --limit given more than once: pass it once\n'],
      [['peek', 'q', '-n', '3', '--limit', '2'], 'smq: --limit given more than once: pass it once\n'],
      [['tester', '--senders', '2', '--senders', '3'], 'smq: --senders given more than once: pass it once\n'],
      // yargs-parser adds a repeated 1 to the value before it (a count): --qty 1 --qty 1 claimed 2 messages.
      [['receive', 'q', '--qty', '1', '--qty', '1'], 'smq: --qty given more than once: pass it once\n'],
      [['peek', 'q', '-n', '1', '--limit=1'], 'smq: --limit given more than once: pass it once\n'],
      [['tester', '--senders', '3', '--senders', '1'], 'smq: --senders given more than once: pass it once\n'],
      [['tester', '--max-backlog', '1', '--maxBacklog', '1'], 'smq: --max-backlog given more than once: pass it once\n'],
    ] as const) {
      const r = await runCli([...args, ...sqlite]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(line);
    }
    // Options that are lists by design are still taken more than once.
    for (const args of [
      [
        'tester',
        '--topic',
        'k',
        '--bind',
        'a=q1',
        '--bind',
        'b=q2',
        '--fault',
        'terminate@1s',
        '--fault',
        'terminate@2s',
        '--duration',
        'x',
      ],
      ['send', 'q', '{}', '--header', 'a=1', '--header', 'b=2'],
      ['delete', 'q', '1', '2', '--yes'],
    ]) {
      const r = await runCli([...args, ...sqlite]);
      expect(r.stderr, args.join(' ')).not.toContain('more than once');
    }
  });

  // Node reads arguments as UTF-8 and puts U+FFFD for bytes that are not: a body or a queue
  // name was stored with them silently, where stdin's invalid UTF-8 is refused.
  test('an argument that is not valid UTF-8 is refused in one line, and nothing is stored', async () => {
    const file = join(tmp, 'bytes.sqlite');
    ok(await runCli(['init', '--sqlite', file]));
    ok(await runCli(['create', 'q', '--sqlite', file]));
    const viaShell = (args: string) =>
      spawnSync('sh', ['-c', `exec "$0" "$1" ${args}`, process.execPath, BIN], { encoding: 'utf8', env: { ...process.env, F: file } });
    for (const args of [`send q "$(printf '\\377\\376abc')" --sqlite "$F"`, `create "$(printf 'q_\\377')" --sqlite "$F"`]) {
      const r = viaShell(args);
      expect(r.status, args).toBe(2);
      expect(r.stderr, args).toMatch(/^smq: argument \d is not valid UTF-8: .+\n$/);
    }
    const queues = ndjson((await runCli(['queues', '--sqlite', file, '--output', 'ndjson'])).stdout);
    expect(queues.map((x) => (x as { name: string }).name)).toEqual(['q']);
    expect(ndjson((await runCli(['peek', 'q', '--sqlite', file, '--output', 'ndjson'])).stdout)).toEqual([]);
    // Valid UTF-8 beyond ASCII goes through.
    expect(viaShell(`send q "$(printf '\\303\\251')" --sqlite "$F"`).status).toBe(0);
  });

  test("a command word taken as an option's value: the line says so", async () => {
    // `smq --url receive orders --vt 300`: --url took "receive", and yargs said "Unknown arguments: vt, orders".
    const r = await runCli(['--sqlite', 'receive', 'orders', '--vt', '300']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "smq: --sqlite took 'receive' as its value: give --sqlite its value, or put it after the command: see 'smq receive --help'\n",
    );
  });

  test('smq help <command> is smq <command> --help; smq help is smq --help', async () => {
    expect(ok(await runCli(['help', 'peek'])).stdout).toBe(ok(await runCli(['peek', '--help'])).stdout);
    expect(ok(await runCli(['help'])).stdout).toBe(ok(await runCli(['--help'])).stdout);
    const unknown = await runCli(['help', 'bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe((await runCli(['bogus'])).stderr);
  });

  test('--help and --version exit 0', async () => {
    const help = ok(await runCli(['--help']));
    for (const c of ['queues', 'create', 'drop', 'purge', 'send', 'receive', 'delete', 'peek', 'init']) {
      expect(help.stdout).toContain(`smq ${c}`);
    }
    expect(ok(await runCli(['peek', '--help'])).stdout).toContain('--after');
    expect(ok(await runCli(['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  test.each([
    ['queues', undefined],
    ['create', '--unlogged'],
    ['drop', undefined],
    ['purge', undefined],
    ['send', '--delay'],
    ['receive', '--vt'],
    ['delete', undefined],
    ['peek', '--after'],
    ['init', undefined],
    ['top', '--interval'],
    ['tester', '--senders'],
  ])("smq %s --help: the command's own options first, the global ones after them", async (command, own) => {
    const lines = ok(await runCli([command, '--help'])).stdout.split('\n');
    const headings = lines.filter((l) => /^[A-Z][A-Za-z ]*:$/.test(l));
    expect(headings.filter((h) => /options:$/i.test(h))).toEqual(own === undefined ? ['Global options:'] : ['Options:', 'Global options:']);
    const globals = lines.indexOf('Global options:');
    const lineOf = (flag: string) => lines.findIndex((l) => new RegExp(`^ +(-\\w, )?${flag} `).test(l));
    for (const flag of ['--url', '--sqlite', '--output', '--json', '--timeout', '--help']) {
      expect(lineOf(flag), flag).toBeGreaterThan(globals);
    }
    if (own !== undefined) {
      expect(lineOf(own)).toBeGreaterThan(lines.indexOf('Options:'));
      expect(lineOf(own)).toBeLessThan(globals);
    }
  });

  test('DATABASE_URL selects the store when --url is absent', async () => {
    const r = ok(await runCli(['queues', '--json'], { env: { DATABASE_URL: inject('pgUrl') } }));
    expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
  });
});

// main() runs in-process with its own streams: here a fake terminal answers the prompt.
describe('confirmation on a terminal (in-process)', () => {
  function fakeIo(answer: string): { io: Io; out: () => string; err: () => string } {
    let out = '';
    let err = '';
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    stdin.end(answer);
    return {
      io: {
        stdin,
        stdout: { write: (s: string) => (out += s), isTTY: false },
        stderr: { write: (s: string) => (err += s), isTTY: true },
        env: {},
      },
      out: () => out,
      err: () => err,
    };
  }

  test.each([
    ['n\n', false],
    ['', false],
    ['yes\n', true],
  ])('answer %j: dropped = %s', async (answer, dropped) => {
    const url = inject('pgUrl');
    const q = uniqueQueue();
    ok(await runCli(['create', q, '--url', url]));
    const { io, out, err } = fakeIo(answer);
    const run = main(['drop', q, '--url', url], io);
    if (dropped) {
      await expect(run).resolves.toBe(0);
      expect(ndjson(out())).toEqual([{ queue: q, dropped: true }]);
    } else {
      const e = await run.then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(SmqError);
      expect((e as SmqError).exitCode).toBe(2);
    }
    expect(err()).toContain(`drop queue "${q}"`);
    const listed = ndjson(ok(await runCli(['queues', '--url', url])).stdout).map((x) => x['name']);
    expect(listed.includes(q)).toBe(!dropped);
    if (!dropped) ok(await runCli(['drop', q, '--yes', '--url', url]));
  });
});
