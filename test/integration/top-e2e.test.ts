// End to end: the built `smq top` in a real pseudo-terminal (tmux), against the suite's
// real Postgres and a real SmoothMQ SQLite file. Every wait polls the screen for what it
// expects, with a deadline.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openBackend } from '../../src/backends/index.js';
import type { Backend, MessageId } from '../../src/backends/types.js';
import { isSmqError } from '../../src/errors.js';
import { TmuxSession, tmuxAvailable } from '../helpers/tmux.js';
import { makeTempDir, uniqueQueue } from '../helpers/backends.js';
import { TEST_PG_PASSWORD } from '../helpers/pg-server.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'smq.js');
const BUILT = join(ROOT, 'dist', 'commands', 'top.js');

const haveTmux = tmuxAvailable();
if (!haveTmux) console.warn('top-e2e: tmux is not installed; the terminal tests are skipped (apt-get install tmux)');

let session: TmuxSession | undefined;
afterEach(() => {
  session?.kill();
  session = undefined;
});

beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run 'npm run build' first (npm test does)`);
});

/** smq top in tmux, 120x40, with a clean environment (no CI=…, which makes Ink stop drawing). */
function startTop(args: readonly string[], options: { width?: number; height?: number; cwd?: string } = {}): TmuxSession {
  session = TmuxSession.start({ command: [process.execPath, BIN, 'top', ...args], ...options });
  return session;
}

/** The terminal modes after the program ended, printed by stty (raw mode turns both off). */
const TERMINAL_MODES = ['sh', '-c', 'stty -a | tr -s " ;" "\\n\\n" | grep -E "^-?(icanon|echo)$" | tr "\\n" " "; echo "<- modes"'];

/** smq top, then stty, so a test can see what top left the terminal in. */
function startTopThenStty(args: readonly string[]): TmuxSession {
  const script = '"$0" "$@"; code=$?; ' + TERMINAL_MODES[2] + '; exit $code';
  session = TmuxSession.start({ command: ['sh', '-c', script, process.execPath, BIN, 'top', ...args] });
  return session;
}

/** After the program ended: raw mode is off (icanon and echo, not -icanon / -echo). */
async function expectTerminalRestored(t: TmuxSession): Promise<void> {
  const screen = await t.waitFor('<- modes', 15_000, { withHistory: true });
  const modes = /(\S.*)<- modes/.exec(screen)?.[1]?.trim().split(/\s+/) ?? [];
  expect(modes.sort()).toEqual(['echo', 'icanon']);
}

/** The line of the message list that shows this id, selected or not. */
const rowOf = (id: MessageId) => new RegExp(`^[› ] +${id} `, 'm');

describe.skipIf(!haveTmux)('smq top on pgmq (real Postgres, real terminal)', () => {
  const url = inject('pgUrl');
  let backend: Backend;
  let client: pg.Client;
  const queue = uniqueQueue('tope2e');
  let ids: MessageId[] = [];

  beforeAll(async () => {
    backend = await openBackend({ kind: 'pgmq', url });
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await backend.createQueue(queue);
    ids = await backend.sendBatch(queue, [
      { body: JSON.stringify({ n: 1, note: 'first' }) },
      { body: JSON.stringify({ n: 2, note: 'second', evil: '\u001b[2J' }), headers: { trace: 'abc' } },
      { body: JSON.stringify({ n: 3 }) },
    ]);
  });
  afterAll(async () => {
    await backend?.dropQueue(queue).catch(() => undefined);
    await backend?.close();
    await client?.end();
  });

  const exists = async (id: MessageId) =>
    (await client.query(`SELECT count(*)::int AS n FROM pgmq.q_${queue} WHERE msg_id = $1`, [id.toString()])).rows[0].n === 1;

  test('open a queue, open a message, delete it after confirming; the database agrees; quitting restores the terminal', async () => {
    const t = startTopThenStty(['--url', url, '--interval', '1']);
    let screen = await t.waitFor(queue);
    expect(screen).toMatch(/smq top pgmq · postgres:\/\/\S+:\*\*\*@\S+ · PostgreSQL 15\.\d+/);
    expect(screen).toContain(':***@');
    expect(screen).not.toContain(TEST_PG_PASSWORD);
    // GROUPS when some queue of the suite's database has grouped messages; NOTIFY (compat schema) at the end.
    expect(screen).toMatch(/NAME▲\s+READY\s+IN FLIGHT\s+DELAYED\s+TOTAL\s+(GROUPS\s+)?OLDEST\s+IN\/s\s+OUT\/s\s+ARCHIVED/);
    expect(screen).toMatch(/health: /);

    // Narrow the list to our queue (the suite's database has others), then open it.
    t.keys('/');
    await t.waitFor('filter (regex): /');
    t.type(`^${queue}$`);
    t.keys('Enter');
    screen = await t.waitFor((s) => !s.includes('filter (regex)') && new RegExp(`› ${queue}\\s+3\\s+0\\s+0\\s+3\\s`).test(s));
    t.keys('Enter');
    screen = await t.waitFor(rowOf(ids[2]!));
    expect(screen).toContain(`${queue} · oldest first · all states · rows 1–`);
    expect(screen).toMatch(/ID STATE\s+READS\s+AGE\s+VISIBLE HEADERS\s+BODY/);
    expect(screen).toMatch(new RegExp(`› +${ids[0]} ready\\s+0\\s`));

    // The second message: its detail, with the body pretty-printed and escaped.
    t.keys('j');
    await t.waitFor(new RegExp(`^› +${ids[1]} `, 'm'));
    t.keys('Enter');
    screen = await t.waitFor(`message ${ids[1]}`);
    await t.waitFor('"note": "second"');
    screen = t.capture();
    expect(screen).toMatch(/read count\s+0/);
    expect(screen).toContain('trace: abc');
    expect(screen).toContain('"evil": "\\u001b[2J"');

    t.keys('d');
    await t.waitFor(`Delete message ${ids[1]} in ${queue}? [y/N]`);
    expect(await exists(ids[1]!)).toBe(true); // nothing happens before the answer
    t.keys('y');
    screen = await t.waitFor(`deleted message ${ids[1]} in ${queue}`);
    expect(await exists(ids[1]!)).toBe(false);
    expect(await exists(ids[0]!)).toBe(true);
    expect(await exists(ids[2]!)).toBe(true);
    // Back on the message list, without the deleted one.
    screen = await t.waitFor((s) => rowOf(ids[0]!).test(s) && !rowOf(ids[1]!).test(s));

    // Peeking changed nothing: read counts are still 0.
    const rc = await client.query(`SELECT max(read_ct)::int AS m FROM pgmq.q_${queue}`);
    expect(rc.rows[0].m).toBe(0);

    t.keys('Escape');
    await t.waitFor('NAME▲');
    t.keys('q');
    expect(await t.waitForExit()).toBe(0);
    await expectTerminalRestored(t);
    // The alternate screen is gone: the TUI is nowhere on the screen or in its scrollback.
    expect(t.captureAll()).not.toContain('smq top pgmq');
  });

  test('read-only: the UI offers no actions and the database refuses writes', async () => {
    // The connection itself refuses: Postgres runs it with default_transaction_read_only.
    const ro = await openBackend({ kind: 'pgmq', url }, { readOnly: true });
    try {
      const err = await ro.delete(queue, [ids[0]!]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isSmqError(err) && err.kind).toBe('read-only');
      expect(String((err as Error).message)).toMatch(/read-only transaction/);
      await expect(ro.send(queue, { body: '{}' })).rejects.toMatchObject({ kind: 'read-only' });
      expect(await exists(ids[0]!)).toBe(true);
    } finally {
      await ro.close();
    }

    const t = startTop(['--url', url, '--read-only']);
    let screen = await t.waitFor(queue);
    expect(screen).toContain('READ-ONLY');
    expect(screen).not.toContain('P purge');
    t.keys('/');
    await t.waitFor('filter (regex): /');
    t.type(`^${queue}$`);
    t.keys('Enter');
    await t.waitFor((s) => !s.includes('filter (regex)') && new RegExp(`› ${queue}\\s`).test(s));
    t.keys('Enter');
    screen = await t.waitFor(rowOf(ids[0]!));
    expect(screen).not.toContain('d delete');
    t.keys('d');
    screen = await t.waitFor('read-only: actions are disabled');
    expect(screen).not.toContain('[y/N]');
    t.keys('P');
    await t.waitFor('read-only: actions are disabled');
    expect(t.capture()).not.toContain('Type the queue name');
    expect(await exists(ids[0]!)).toBe(true);
    t.keys('C-c');
    expect(await t.waitForExit()).toBe(0);
  });

  test('--once prints a snapshot table and exits; --json a JSON document', async () => {
    const table = execFileSync(process.execPath, [BIN, 'top', '--url', url, '--once'], { encoding: 'utf8' });
    expect(table.split('\n')[0]).toMatch(
      /^NAME\s+READY\s+IN FLIGHT\s+DELAYED\s+TOTAL\s+(GROUPS\s+)?OLDEST\s+IN\/s\s+OUT\/s\s+ARCHIVED\s+NOTIFY$/,
    );
    expect(table).toMatch(new RegExp(`^${queue}\\s+2\\s+0\\s+0\\s+2\\s`, 'm'));
    const doc = JSON.parse(execFileSync(process.execPath, [BIN, 'top', '--url', url, '--json'], { encoding: 'utf8' })) as {
      backend: string;
      location: string;
      queues: { name: string; total: number; archived: number }[];
    };
    expect(doc.backend).toBe('pgmq');
    expect(doc.location).not.toContain(TEST_PG_PASSWORD);
    expect(doc.queues.find((q) => q.name === queue)).toMatchObject({ total: 2, archived: 0 });
  });
});

describe.skipIf(!haveTmux)('smq top on a SmoothMQ SQLite file (real file, real terminal)', () => {
  const tmp = makeTempDir('smq-top-e2e-');
  const file = join(tmp.dir, 'smoothmq.sqlite');
  let ids: MessageId[] = [];

  beforeAll(async () => {
    const b = await openBackend({ kind: 'sqlite', path: file }, { create: true });
    try {
      await b.createQueue('orders');
      await b.createQueue('emails');
      ids = await b.sendBatch('orders', [
        { body: 'first order' },
        { body: '{"sku":"A-1","qty":2}', headers: { source: 'web' } },
        { body: 'third\u001b]0;pwned\u0007' },
      ]);
    } finally {
      await b.close();
    }
  });
  afterAll(() => tmp.cleanup());

  const exists = (id: MessageId) => {
    const db = new Database(file, { readonly: true });
    try {
      db.defaultSafeIntegers(true);
      return (db.prepare('SELECT count(*) AS n FROM messages WHERE id = ?').get(id) as { n: bigint }).n === 1n;
    } finally {
      db.close();
    }
  };

  test('open a queue, open a message, delete it after confirming; the file agrees', async () => {
    const t = startTop(['--sqlite', file]);
    let screen = await t.waitFor(/orders\s+3\s/);
    expect(screen).toMatch(/smq top sqlite · sqlite:\S+ · SQLite 3\.\d+\.\d+ · SmoothMQ/);
    expect(screen).toMatch(/NAME▲\s+READY\s+IN FLIGHT\s+DELAYED\s+TOTAL\s+OLDEST\s+IN\/s\s+OUT\/s\s+FAILED/);
    expect(screen).not.toContain('ARCHIVED');
    expect(screen).toMatch(/health: .*WAL/);
    t.keys('j');
    await t.waitFor(/› orders/);
    t.keys('Enter');
    screen = await t.waitFor(rowOf(ids[2]!));
    expect(screen).toMatch(/ID STATE\s+TRIES\s+AGE\s+VISIBLE ATTRIBUTES\s+BODY/);
    expect(screen).toContain('source=web');
    expect(screen).toContain('third\\e]0;pwned\\u{7}');

    t.keys('j');
    await t.waitFor(new RegExp(`^› +${ids[1]} `, 'm'));
    t.keys('Enter');
    screen = await t.waitFor('"sku": "A-1"');
    expect(screen).toContain('attributes:');
    expect(screen).toContain('source: web');
    expect(screen).toMatch(/tries\s+0\//);

    t.keys('d');
    await t.waitFor(`Delete message ${ids[1]} in orders? [y/N]`);
    t.keys('y');
    await t.waitFor(`deleted message ${ids[1]} in orders`);
    expect(exists(ids[1]!)).toBe(false);
    expect(exists(ids[0]!)).toBe(true);
    await t.waitFor((s) => rowOf(ids[0]!).test(s) && !rowOf(ids[1]!).test(s));

    t.keys('Escape');
    await t.waitFor('NAME▲');
    t.keys('q');
    expect(await t.waitForExit()).toBe(0);
  });

  test('read-only: SQLite opened read-only refuses writes; the UI offers none', async () => {
    const ro = await openBackend({ kind: 'sqlite', path: file }, { readOnly: true });
    try {
      await expect(ro.delete('orders', [ids[0]!])).rejects.toMatchObject({ kind: 'read-only' });
      await expect(ro.purgeQueue('orders')).rejects.toMatchObject({ kind: 'read-only' });
    } finally {
      await ro.close();
    }
    expect(exists(ids[0]!)).toBe(true);

    const t = startTop(['--sqlite', file, '--read-only']);
    await t.waitFor(/orders\s+2\s/);
    t.keys('j');
    await t.waitFor(/› orders/);
    t.keys('Enter');
    await t.waitFor(rowOf(ids[0]!));
    t.keys('d');
    const screen = await t.waitFor('read-only: actions are disabled');
    expect(screen).not.toContain('[y/N]');
    expect(exists(ids[0]!)).toBe(true);
    t.keys('q'); // back
    await t.waitFor('NAME▲');
    t.keys('q');
    expect(await t.waitForExit()).toBe(0);
  });

  test('80 columns: the least important columns give way; a resize lays the screen out again', async () => {
    const t = startTop(['--sqlite', file], { width: 80, height: 24 });
    let screen = await t.waitFor(/orders\s+2\s/);
    expect(screen).not.toContain('DEPTH 1m');
    for (const line of screen.split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(80);
    t.resize(130, 30);
    screen = await t.waitFor('DEPTH 1m');
    expect(screen).toContain('FAILED');
    t.keys('q');
    expect(await t.waitForExit()).toBe(0);
  });

  test('SIGTERM while running still restores the terminal', async () => {
    const t = startTopThenStty(['--sqlite', file]);
    await t.waitFor(/orders\s+2\s/);
    // The wrapping sh runs `sh -c script`, whose child is node.
    const scriptPid = t.pid();
    const nodePid = Number(execFileSync('ps', ['-o', 'pid=', '--ppid', String(scriptPid)], { encoding: 'utf8' }).trim());
    expect(nodePid).toBeGreaterThan(0);
    process.kill(nodePid, 'SIGTERM');
    expect(await t.waitForExit()).toBe(143);
    await expectTerminalRestored(t);
    expect(t.captureAll()).not.toContain('smq top sqlite');
  });
});
