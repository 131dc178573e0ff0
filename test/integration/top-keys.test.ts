// Keys that arrive together (a fast typist, key repeat, SSH delivering several keys in one
// read): each sequence goes to the built `smq top` as ONE tmux send-keys call, so the
// program reads it as one chunk, and every key must act on the state the key before it
// left. Real terminal (tmux), real Postgres; the database is checked after a delete.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { openBackend } from '../../src/backends/index.js';
import type { Backend, MessageId } from '../../src/backends/types.js';
import { TmuxSession, tmuxAvailable } from '../helpers/tmux.js';
import { uniqueQueue } from '../helpers/backends.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'smq.js');
const BUILT = join(ROOT, 'dist', 'commands', 'top.js');

const haveTmux = tmuxAvailable();

let session: TmuxSession | undefined;
afterEach(() => {
  session?.kill();
  session = undefined;
});

beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run 'npm run build' first (npm test does)`);
});

function startTop(args: readonly string[], options: { width?: number; height?: number } = {}): TmuxSession {
  session = TmuxSession.start({ command: [process.execPath, BIN, 'top', ...args], ...options });
  return session;
}

/** The line of the message list that shows this id, selected or not. */
const selectedRow = (id: MessageId | string) => new RegExp(`^› +${id} `, 'm');
/** The page shown, from its first row (`rows 301–315 of 400`) at 15 messages a page (24 lines). */
const pageOf = (screen: string) => {
  const first = / · rows ([\d,]+)–/.exec(screen)?.[1];
  return first === undefined ? NaN : (Number(first.replace(/,/g, '')) - 1) / 15 + 1;
};

describe.skipIf(!haveTmux)('keys of one chunk act one after the other (real terminal, real Postgres)', () => {
  const url = inject('pgUrl');
  const prefix = uniqueQueue('keys');
  // Five queues, sorted by name in the list: prefix_a … prefix_e.
  const queues = ['a', 'b', 'c', 'd', 'e'].map((s) => `${prefix}_${s}`);
  let backend: Backend;
  let client: pg.Client;
  let ids: MessageId[] = [];
  let idsC: MessageId[] = [];

  beforeAll(async () => {
    backend = await openBackend({ kind: 'pgmq', url });
    client = new pg.Client({ connectionString: url });
    await client.connect();
    for (const q of queues) await backend.createQueue(q);
    ids = await backend.sendBatch(queues[0]!, [{ body: '{"n":1}' }, { body: '{"n":2}' }, { body: '{"n":3}' }]);
    idsC = await backend.sendBatch(queues[2]!, [{ body: '{"c":1}' }, { body: '{"c":2}' }, { body: '{"c":3}' }]);
    // 400 messages: at 24 lines a page holds 15, so 20 pages forward is page 21.
    await backend.sendBatch(
      queues[1]!,
      Array.from({ length: 400 }, (_, i) => ({ body: JSON.stringify({ i }) })),
    );
  });
  afterAll(async () => {
    for (const q of queues) await backend?.dropQueue(q).catch(() => undefined);
    await backend?.close();
    await client?.end();
  });

  const exists = async (queue: string, id: MessageId) =>
    (await client.query(`SELECT count(*)::int AS n FROM pgmq.q_${queue} WHERE msg_id = $1`, [id.toString()])).rows[0].n === 1;

  /** top narrowed to this test's queues (the filter typed slowly, key by key). */
  async function topOnOurQueues(options: { height?: number } = {}): Promise<TmuxSession> {
    const t = startTop(['--url', url, '--interval', '1'], options);
    // The list, not our queue: other test files' queues may fill the screen before it.
    await t.waitFor(/\d+ of \d+ queues?/);
    t.keys('/');
    await t.waitFor('filter (regex): /');
    t.type(`^${prefix}_`);
    await t.waitFor(`filter (regex): /^${prefix}_`);
    t.keys('Enter');
    await t.waitFor((s) => !s.includes('filter (regex)') && s.includes(`5 of `) && new RegExp(`› ${queues[0]}\\s`).test(s));
    return t;
  }

  test('Down Down Down Enter in one chunk opens the fourth queue', async () => {
    const t = await topOnOurQueues();
    t.keys('Down', 'Down', 'Down', 'Enter');
    const screen = await t.waitFor(/ · (rows 1–|no rows)/);
    expect(screen).toContain(`${queues[3]} · oldest first`);
    t.keys('C-c');
    expect(await t.waitForExit()).toBe(0);
  });

  test('Down d y in one chunk deletes the highlighted (second) message, and only it', async () => {
    const t = await topOnOurQueues();
    t.keys('Enter');
    await t.waitFor(selectedRow(ids[0]!));
    await t.waitFor(new RegExp(`^ +${ids[2]} `, 'm'));
    t.keys('Down', 'd', 'y');
    await t.waitFor(/deleted message \d+ in /);
    expect(await exists(queues[0]!, ids[1]!)).toBe(false);
    expect(await exists(queues[0]!, ids[0]!)).toBe(true);
    expect(await exists(queues[0]!, ids[2]!)).toBe(true);
    t.keys('C-c');
    expect(await t.waitForExit()).toBe(0);
  });

  test('a pretty-printed JSON body pasted into the send prompt stays text: no line of it is Enter, no letter a command', async () => {
    // Before, top never asked for bracketed paste: the line breaks submitted the prompt and
    // "dy" in the body deleted the highlighted message.
    const t = await topOnOurQueues();
    t.keys('Down', 'Down', 'Enter');
    await t.waitFor(selectedRow(idsC[0]!));
    t.keys('s');
    await t.waitFor(`send to ${queues[2]}: `);
    t.paste('{\n  "body": "dy",\n  "n": 1\n}');
    await t.waitFor(`send to ${queues[2]}: {   "body": "dy",   "n": 1 }`);
    for (const id of idsC) expect(await exists(queues[2]!, id)).toBe(true);
    t.keys('Escape');
    t.paste('dy\nd');
    await t.waitFor('pasted text ignored: paste into a prompt');
    for (const id of idsC) expect(await exists(queues[2]!, id)).toBe(true);
    t.keys('C-c');
    expect(await t.waitForExit()).toBe(0);
  });

  test('Space Down … d y Down Down d y in one burst: after the marked rows go, the highlight is where it was, and the second d deletes two below it', async () => {
    // Before, the highlight kept its row number while the three rows above it went: it
    // landed three messages further on, and the second `d y` deleted the wrong message.
    const q = queues[4]!;
    const e = await backend.sendBatch(
      q,
      Array.from({ length: 10 }, (_, i) => ({ body: JSON.stringify({ e: i }) })),
    );
    const t = await topOnOurQueues();
    t.keys('Down', 'Down', 'Down', 'Down', 'Enter');
    await t.waitFor(selectedRow(e[0]!));
    t.keys('g', 'Space', 'Down', 'Space', 'Down', 'Space', 'Down', 'd', 'y', 'Down', 'Down', 'd', 'y');
    await t.waitFor(new RegExp(`deleted message ${e[5]} in `));
    const left = (await client.query<{ id: string }>(`SELECT msg_id::text AS id FROM pgmq.q_${q} ORDER BY msg_id`)).rows.map((r) => r.id);
    expect(left).toEqual([e[3], e[4], e[6], e[7], e[8], e[9]].map(String));
    t.keys('C-c');
    expect(await t.waitForExit()).toBe(0);
  });

  test('Down d in one chunk: the prompt names the highlighted row', async () => {
    const t = await topOnOurQueues();
    t.keys('j');
    await t.waitFor(new RegExp(`› ${queues[1]}\\s`));
    t.keys('j');
    await t.waitFor(new RegExp(`› ${queues[2]}\\s`));
    t.keys('Enter');
    await t.waitFor(selectedRow(idsC[0]!));
    await t.waitFor(new RegExp(`^ +${idsC[2]} `, 'm'));
    t.keys('Down', 'Down', 'd');
    const screen = await t.waitFor('[y/N]');
    const highlighted = /^› +(\d+) /m.exec(screen)?.[1];
    expect(screen).toContain(`Delete message ${highlighted} in ${queues[2]}?`);
    expect(highlighted).toBe(idsC[2]!.toString());
    t.keys('n');
    await t.waitFor('cancelled');
    expect(await exists(queues[2]!, idsC[2]!)).toBe(true);
    t.keys('C-c');
    expect(await t.waitForExit()).toBe(0);
  });

  test('20 PageDown in one chunk move 20 pages', async () => {
    const t = await topOnOurQueues({ height: 24 });
    t.keys('j');
    await t.waitFor(new RegExp(`› ${queues[1]}\\s`));
    t.keys('Enter');
    let screen = await t.waitFor(/ · rows 1–15 of 400/);
    expect(screen).toContain(`${queues[1]} · oldest first`);
    t.keys(...Array.from({ length: 20 }, () => 'PageDown'));
    screen = await t.waitFor((s) => pageOf(s) >= 21 && !s.includes('loading'), 30_000);
    expect(pageOf(screen)).toBe(21);
    // Page 21 at 15 a page starts at the 301st message: {"i": 300}.
    await t.waitFor('{"i": 300}');
    t.keys('C-c');
    expect(await t.waitForExit()).toBe(0);
  });

  test('Escape j in one chunk: Escape goes back to the list, then j moves down', async () => {
    const t = await topOnOurQueues();
    t.keys('Enter');
    await t.waitFor(`${queues[0]} · oldest first`);
    t.keys('Escape', 'j');
    const screen = await t.waitFor((s) => s.includes('NAME▲') && new RegExp(`› ${queues[1]}\\s`).test(s));
    expect(screen).not.toContain('oldest first');
    t.keys('C-c');
    expect(await t.waitForExit()).toBe(0);
  });
});

describe.skipIf(!haveTmux)('typing fast into the filter of a 200-queue list', () => {
  const url = inject('pgUrl');
  const prefix = uniqueQueue('many');
  let client: pg.Client;

  beforeAll(async () => {
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`SELECT pgmq.create($1 || '_q' || i) FROM generate_series(0, 199) AS i`, [prefix]);
  });
  afterAll(async () => {
    await client.query(`SELECT pgmq.drop_queue($1 || '_q' || i) FROM generate_series(0, 199) AS i`, [prefix]).catch(() => undefined);
    await client?.end();
  });

  test('/q1[0-9]+$ typed in one chunk: the filter holds every character', async () => {
    const t = startTop(['--url', url, '--interval', '0.5']);
    // The whole list is there (our 200 and whatever other test files left in the database).
    await t.waitFor((sc) => Number(/of (\d+) queues/.exec(sc)?.[1] ?? 0) >= 200);
    t.keys('/', 'q', '1', '[', '0', '-', '9', ']', '+', '$');
    const screen = await t.waitFor('filter (regex): /q1[0-9]+$');
    expect(screen).toMatch(/filter \(regex\): \/q1\[0-9\]\+\$ /);
    t.keys('Enter');
    // q10-q19 and q100-q199 of this test's 200 queues, and any other queue the pattern takes.
    const others = (
      await client.query(`SELECT count(*)::int AS n FROM pgmq.meta WHERE queue_name ~ 'q1[0-9]+$' AND queue_name NOT LIKE $1 || '%'`, [
        prefix,
      ])
    ).rows[0].n;
    const want = String(110 + others);
    await t.waitFor((s) => s.includes(' · filter /q1[0-9]+$/') && /\b(\d+) of \d+ queues?/.exec(s)?.[1] === want);
    t.keys('C-c');
    expect(await t.waitForExit()).toBe(0);
  });
});
