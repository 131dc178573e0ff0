// What smq top's screen says (issue 18, "what the screen says that it should not, or does
// not say"): the built `smq top` in a real terminal (tmux), against the suite's PostgreSQL
// and SmoothMQ files; where a key acts, the database is checked afterwards.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { openBackend } from '../../src/backends/index.js';
import type { Backend } from '../../src/backends/types.js';
import { TmuxSession, tmuxAvailable } from '../helpers/tmux.js';
import { makeTempDir, uniqueQueue } from '../helpers/backends.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'smq.js');
const BUILT = join(ROOT, 'dist', 'commands', 'top.js');

let session: TmuxSession | undefined;
afterEach(() => {
  session?.kill();
  session = undefined;
});
beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run 'npm run build' first (npm test does)`);
});

interface StartOptions {
  readonly width?: number;
  readonly height?: number;
  readonly env?: Record<string, string>;
}

function startTop(args: readonly string[], options: StartOptions = {}): TmuxSession {
  session = TmuxSession.start({ command: [process.execPath, BIN, 'top', ...args], ...options });
  return session;
}

const lastLine = (screen: string) => screen.trimEnd().split('\n').at(-1) ?? '';

/** top on the suite's Postgres, its list narrowed to queues whose names start with `prefix`. */
async function topOn(url: string, prefix: string, options: StartOptions & { args?: readonly string[] } = {}): Promise<TmuxSession> {
  const t = startTop(['--url', url, '--interval', '1', ...(options.args ?? [])], options);
  await t.waitFor(/\d+ of \d+ queues?/);
  t.keys('/');
  await t.waitFor('filter (regex): /');
  t.type(`^${prefix}`);
  await t.waitFor(`filter (regex): /^${prefix}`);
  t.keys('Enter');
  // A narrow NAME column may cut the names: their first 12 characters are enough.
  await t.waitFor((s) => !s.includes('filter (regex)') && s.includes(`› ${prefix.slice(0, 12)}`));
  return t;
}

describe.skipIf(!tmuxAvailable())('the footer and the words of smq top (real terminal, real Postgres)', () => {
  const url = inject('pgUrl');
  const prefix = uniqueQueue('words');
  const queue = `${prefix}_a`;
  let backend: Backend;
  let client: pg.Client;

  beforeAll(async () => {
    backend = await openBackend({ kind: 'pgmq', url });
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await backend.createQueue(queue);
    await backend.send(queue, { body: '{"n":1}' });
  });
  afterAll(async () => {
    await backend?.dropQueue(queue).catch(() => undefined);
    await backend?.close();
    await client?.end();
  });

  test('80 columns: the footer drops hints by priority and keeps ? help and the way out, on every screen', async () => {
    const t = await topOn(url, prefix, { width: 80, height: 24 });
    let screen = await t.waitFor((s) => lastLine(s).includes('? help'));
    expect(lastLine(screen)).toMatch(/Enter open · .*\? help · q quit$/);
    expect(lastLine(screen)).not.toContain('…');
    t.keys('Enter');
    screen = await t.waitFor(`${queue} · oldest first`);
    expect(lastLine(screen)).toMatch(/Enter open · .*Esc back · \? help · \^C quit$/);
    expect(lastLine(screen)).not.toContain('…');
    t.keys('Enter');
    screen = await t.waitFor('body (JSON)');
    expect(lastLine(screen)).toMatch(/Esc back · \? help · \^C quit$/);
    t.keys('C-c');
    expect(await t.waitForExit()).toBe(0);
  });

  test('read-only at 80 columns: no action hints, help and quit stay', async () => {
    const t = await topOn(url, prefix, { width: 80, height: 24, args: ['--read-only'] });
    const screen = await t.waitFor((s) => lastLine(s).includes('q quit'));
    expect(lastLine(screen)).not.toMatch(/purge|send/);
    expect(lastLine(screen)).toMatch(/\? help · q quit$/);
  });

  test('help lists i, and only the sort keys of columns on screen (no F or E on pgmq)', async () => {
    const t = await topOn(url, prefix, { width: 160, height: 40 });
    t.keys('?');
    let screen = await t.waitFor('Keys (queue list)');
    expect(screen).toMatch(/^N R I D T O A +sort by name, ready, in flight, delayed, total, oldest, archived$/m);
    expect(screen).not.toMatch(/failed|tenant/);
    t.keys('Escape', 'Enter');
    await t.waitFor(`${queue} · oldest first`);
    t.keys('?');
    screen = await t.waitFor('Keys (queue view)');
    expect(screen).toMatch(/^# \/ i +jump to a message id$/m);
    t.keys('Escape', 'i');
    await t.waitFor('jump to message id:');
  });

  test('80 x 24: the help of the queue view shows every key, in two columns', async () => {
    const t = await topOn(url, prefix, { width: 80, height: 24 });
    t.keys('Enter');
    await t.waitFor(`${queue} · oldest first`);
    t.keys('?');
    const screen = await t.waitFor('Keys (queue view)');
    for (const key of ['↑/↓ j/k', 'PgUp/PgDn Space', 'g/G Home/End', 'Enter →', 'Esc q ←', '# / i', '+ / -', 'Ctrl-C']) {
      expect(screen).toContain(key);
    }
    // Single-letter keys: the key, two or more spaces, its explanation.
    for (const key of ['o', 'f', 'd', 'a', 'v', 'P', 's', 'r', '\\?']) {
      expect(screen).toMatch(new RegExp(`(^|\\s)${key} {2,}\\S`, 'm'));
    }
  });

  test('one vocabulary (in flight) and plurals: 1 queue, purged 1 message (checked in the database)', async () => {
    const t = await topOn(url, prefix, { width: 120, height: 30 });
    let screen = await t.waitFor(`1 of `);
    expect(screen).toMatch(/IN FLIGHT/);
    expect(screen).toMatch(/· in flight \S+ ·/);
    t.keys('Enter');
    await t.waitFor(`${queue} · oldest first`);
    t.keys('f', 'f');
    screen = await t.waitFor('only in flight');
    expect(screen).toContain('no in flight messages');
    expect(screen).not.toMatch(/inflight|in-flight/i);
    t.keys('P');
    await t.waitFor('Type the queue name to confirm');
    t.type(queue);
    t.keys('Enter');
    screen = await t.waitFor(`purged 1 message from ${queue}`);
    expect(screen).not.toContain('1 messages');
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM pgmq.q_${queue}`);
    expect(rows[0].n).toBe(0);
  });
});

describe.skipIf(!tmuxAvailable())('smq top on a SmoothMQ file with no queue, then one (real file, real terminal)', () => {
  const tmp = makeTempDir('smq-top-screen-');
  const file = join(tmp.dir, 'smoothmq.sqlite');
  beforeAll(async () => {
    const b = await openBackend({ kind: 'sqlite', path: file }, { create: true });
    await b.close();
  });
  afterAll(() => tmp.cleanup());

  test('an empty store says how to create a queue; one queue is "1 queue"', async () => {
    const t = startTop(['--sqlite', file, '--interval', '0.5'], { width: 120, height: 24 });
    let screen = await t.waitFor('no queues yet');
    expect(screen).toContain('create one with: smq create <name>');
    expect(screen).toContain('0 queues');
    const b = await openBackend({ kind: 'sqlite', path: file });
    try {
      await b.createQueue('orders');
    } finally {
      await b.close();
    }
    screen = await t.waitFor(/^1 of 1 queue · 1\/1$/m);
    expect(screen).toMatch(/ · 1 queue · /);
  });
});

describe.skipIf(!tmuxAvailable())('paging by absolute rows, g/G, notices (real terminal, real Postgres)', () => {
  const url = inject('pgUrl');
  const queue = uniqueQueue('paging');
  let backend: Backend;
  let ids: bigint[] = [];

  beforeAll(async () => {
    backend = await openBackend({ kind: 'pgmq', url });
    await backend.createQueue(queue);
    ids = await backend.sendBatch(
      queue,
      Array.from({ length: 600 }, (_, i) => ({ body: JSON.stringify({ i }) })),
    );
  });
  afterAll(async () => {
    await backend?.dropQueue(queue).catch(() => undefined);
    await backend?.close();
  });

  const selected = (screen: string) => /^› +(\d+) /m.exec(screen)?.[1];
  const title = (screen: string) => screen.split('\n').find((l) => l.startsWith(`${queue} · `)) ?? '';

  test('#id shows absolute rows, PgUp pages back before it, G/g are the last/first rows of the queue, o says what it did', async () => {
    // 80 x 24: 15 messages a page.
    const t = await topOn(url, queue, { width: 80, height: 24 });
    t.keys('Enter');
    await t.waitFor(`${queue} · oldest first · all states · rows 1–15 of 600`);
    t.keys('#');
    await t.waitFor('jump to message id:');
    t.type(String(ids[299]));
    t.keys('Enter');
    let screen = await t.waitFor('rows 300–314 of 600');
    expect(selected(screen)).toBe(String(ids[299]));
    expect(screen).toContain(`from message ${ids[299]}`);
    // Before the jump: two pages back and two rows down, in one burst.
    t.keys('PageUp', 'PageUp', 'Down', 'Down');
    screen = await t.waitFor((s) => title(s).includes('rows 270–284 of 600') && selected(s) === String(ids[271]));
    t.keys('G');
    screen = await t.waitFor((s) => title(s).includes('rows 586–600 of 600'));
    expect(selected(screen)).toBe(String(ids[599]));
    t.keys('g');
    screen = await t.waitFor((s) => title(s).includes('rows 1–15 of 600'));
    expect(selected(screen)).toBe(String(ids[0]));
    t.keys('o');
    screen = await t.waitFor((s) => title(s).includes('newest first') && selected(s) === String(ids[599]));
    expect(screen).toContain('newest first, from the start');
    expect(screen).not.toContain('from message');
    t.keys('C-c');
    expect(await t.waitForExit()).toBe(0);
  });

  test('a notice expires after about 5 s (errors after 10 s)', async () => {
    const t = await topOn(url, queue, { width: 100, height: 24 });
    t.keys('Enter');
    await t.waitFor(`${queue} · oldest first`);
    t.keys('o');
    await t.waitFor('newest first, from the start');
    const shown = Date.now();
    await t.waitFor((s) => !s.includes('newest first, from the start'), 15_000);
    const lasted = Date.now() - shown;
    expect(lasted).toBeGreaterThan(3000);
    expect(lasted).toBeLessThan(8000);
  });

  test('#id past the end of the queue says so, in either order', async () => {
    const t = await topOn(url, queue, { width: 120, height: 24 });
    t.keys('Enter');
    await t.waitFor(`${queue} · oldest first`);
    const past = ids[599]! + 1000n;
    t.keys('#');
    await t.waitFor('jump to message id:');
    t.type(String(past));
    t.keys('Enter');
    let screen = await t.waitFor(`no message at or after id ${past}: the queue ends before it (g first, G last)`);
    expect(screen).not.toMatch(/^no messages$/m);
    t.keys('o', '#');
    await t.waitFor('jump to message id:');
    t.type(String(ids[0]! - 1n));
    t.keys('Enter');
    screen = await t.waitFor(`no message at or before id ${ids[0]! - 1n}`);
    t.keys('G');
    screen = await t.waitFor((s) => title(s).includes('rows 586–600 of 600'));
    expect(selected(screen)).toBe(String(ids[0]));
  });
});

describe.skipIf(!tmuxAvailable())('layout: width goes to what has content (real terminal, real Postgres)', () => {
  const url = inject('pgUrl');
  const prefix = uniqueQueue('layout');
  const plain = `${prefix}_plain`;
  const tagged = `${prefix}_tagged`;
  // 31 characters as shown: more than the 16 BODY had at 80 columns beside a 24-wide HEADERS.
  const body = JSON.stringify({ order: 'A-12345', qty: 20 });
  let backend: Backend;

  beforeAll(async () => {
    backend = await openBackend({ kind: 'pgmq', url });
    await backend.createQueue(plain);
    await backend.createQueue(tagged);
    await backend.send(plain, { body });
    await backend.send(tagged, { body: '{"n":1}', headers: { k: 'v' } });
    await backend.send(tagged, { body: '{"n":2}' });
  });
  afterAll(async () => {
    for (const q of [plain, tagged]) await backend?.dropQueue(q).catch(() => undefined);
    await backend?.close();
  });

  test('80 columns: no HEADERS column when no message has any, BODY gets the room; a narrow one when they are short', async () => {
    const t = await topOn(url, prefix, { width: 80, height: 24 });
    t.keys('Enter');
    let screen = await t.waitFor('now {"qty": 20, "order": "A-12345"}'); // jsonb's order, whole
    expect(screen).toMatch(/^ +ID STATE +READS +AGE +VISIBLE BODY$/m);
    t.keys('Escape', 'Down', 'Enter');
    screen = await t.waitFor(/ now k=v {5}\{"n": 1\}$/m);
    expect(screen).toMatch(/^ +ID STATE +READS +AGE +VISIBLE HEADERS BODY$/m);
  });

  test('sort arrows never cut a title, and NAME is not padded on a wide terminal', async () => {
    const t = await topOn(url, prefix, { width: 200, height: 24 });
    t.keys('I');
    let screen = await t.waitFor('IN FLIGHT▼');
    t.keys('A');
    screen = await t.waitFor('ARCHIVED▼');
    // NAME is as wide as the longest name in the database (the filter does not change it).
    const longest = Math.max(...(await backend.listQueues()).map((q) => q.name.length));
    const titleLine = screen.split('\n').find((l) => l.includes('NAME'))!;
    expect(titleLine.indexOf('READY')).toBeLessThanOrEqual(2 + Math.max(longest, 5) + 1 + 3);
  });
});

/** The SGR parameters on screen that set a colour (30-39, 40-49, 90-97, 100-107; 38/48 extended). */
function colourCodes(screen: string): string[] {
  const found: string[] = [];
  for (const m of screen.matchAll(/\u001b\[([0-9;]*)m/g)) {
    for (const p of m[1]!.split(';')) {
      const n = Number(p);
      if (p !== '' && n !== 39 && n !== 49 && ((n >= 30 && n <= 48) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107))) found.push(p);
    }
  }
  return found;
}

/** The line of the screen (escapes kept) that shows this message id as its first cell. */
const rowOf = (screen: string, id: bigint) =>
  screen.split('\n').find((l) => new RegExp(`^(\\u001b\\[[0-9;]*m)*[› ] +${id} `).test(l)) ?? '';

describe.skipIf(!tmuxAvailable())(
  'colour and cues: NO_COLOR, states, stalled heads, position, sparklines (real terminal, real Postgres)',
  () => {
    const url = inject('pgUrl');
    const prefix = uniqueQueue('cues');
    const busy = `${prefix}_busy`;
    const calm = `${prefix}_calm`;
    let backend: Backend;
    let client: pg.Client;
    let ready: bigint, inFlight: bigint, delayed: bigint;

    beforeAll(async () => {
      backend = await openBackend({ kind: 'pgmq', url });
      client = new pg.Client({ connectionString: url });
      await client.connect();
      await backend.createQueue(busy);
      await backend.createQueue(calm);
      const sent = await backend.sendBatch(busy, [{ body: '{"n":1}' }, { body: '{"n":2}' }]);
      inFlight = sent[0]!;
      ready = sent[1]!;
      delayed = await backend.send(busy, { body: '{"n":3}', delaySec: 600 });
      await backend.receive(busy, { qty: 1, vtSec: 600 });
      // The head of `busy` has waited 5 minutes (nothing receives from it during the test).
      await client.query(`UPDATE pgmq.q_${busy} SET enqueued_at = now() - interval '5 minutes'`);
      await backend.send(calm, { body: '{"n":1}' });
    });
    afterAll(async () => {
      for (const q of [busy, calm]) await backend?.dropQueue(q).catch(() => undefined);
      await backend?.close();
      await client?.end();
    });

    test('NO_COLOR: no colour code anywhere on the list, the queue view or the help', async () => {
      const t = await topOn(url, prefix, { width: 120, height: 24, env: { NO_COLOR: '1' } });
      await t.waitFor('stalled');
      expect(colourCodes(t.captureWithEscapes())).toEqual([]);
      t.keys('Enter');
      await t.waitFor(`${busy} · oldest first`);
      await t.waitFor((s) => s.includes(` ${delayed} delayed`));
      expect(colourCodes(t.captureWithEscapes())).toEqual([]);
      t.keys('?');
      await t.waitFor('Keys (queue view)');
      expect(colourCodes(t.captureWithEscapes())).toEqual([]);
    });

    test('colour by state (in flight yellow, delayed blue), a stalled head in red and in words, the row position', async () => {
      const t = await topOn(url, prefix, { width: 120, height: 24 });
      // Two refreshes: the out rate is known (0), so the 5-minute head of `busy` is stalled.
      let screen = await t.waitFor('1 stalled (head waiting 60s+, nothing leaving)');
      expect(screen).toMatch(/ · 1\/2 · /);
      const list = t.captureWithEscapes();
      const busyLine = list.split('\n').find((l) => l.includes(busy))!;
      expect(busyLine).toMatch(/\u001b\[33m +1(\u001b\[39m)?/); // IN FLIGHT 1, yellow
      expect(busyLine).toMatch(/\u001b\[31m +5m\d\ds/); // OLDEST, red
      const calmLine = list.split('\n').find((l) => l.includes(calm))!;
      expect(colourCodes(calmLine)).toEqual([]);
      t.keys('Down');
      screen = await t.waitFor(/ · 2\/2 · /);
      t.keys('Up', 'Enter');
      await t.waitFor((s) => s.includes(` ${delayed} delayed`));
      const view = t.captureWithEscapes();
      expect(rowOf(view, inFlight)).toContain('\u001b[33m');
      expect(rowOf(view, delayed)).toContain('\u001b[34m');
      expect(colourCodes(rowOf(view, ready))).toEqual([]);
    });

    test('a queue moving between 0 and 1 message stays at the bottom of its sparkline', async () => {
      const t = await topOn(url, `${calm}$`, { width: 120, height: 24 });
      const spark = (s: string) => /DEPTH 1m[\s\S]*?› \S+ .* ([▁▂▃▄▅▆▇█ ]+)$/m.exec(s)?.[1]?.trim() ?? '';
      await t.waitFor((s) => spark(s).length >= 2);
      const [m] = await backend.receive(calm, { qty: 1, vtSec: 0 });
      await backend.delete(calm, [m!.id]);
      await t.waitFor((s) => /› \S+ +0 /.test(s) && spark(s).length >= 3);
      await backend.send(calm, { body: '{"n":2}' });
      const screen = await t.waitFor((s) => /› \S+ +1 /.test(s) && spark(s).length >= 4);
      expect(spark(screen)).toMatch(/^[▁▂ ]+$/);
    });
  },
);

describe.skipIf(!tmuxAvailable())('sending from top shows the parsed body and asks first (real terminal, real Postgres)', () => {
  const url = inject('pgUrl');
  const queue = uniqueQueue('send');
  let backend: Backend;
  let client: pg.Client;

  beforeAll(async () => {
    backend = await openBackend({ kind: 'pgmq', url });
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await backend.createQueue(queue);
  });
  afterAll(async () => {
    await backend?.dropQueue(queue).catch(() => undefined);
    await backend?.close();
    await client?.end();
  });

  const bodies = async () => (await client.query(`SELECT message::text AS m FROM pgmq.q_${queue} ORDER BY msg_id`)).rows.map((r) => r.m);

  test('s: the body, what it parsed as and its size, then y sends it, n sends nothing, bad JSON is refused at once', async () => {
    const t = await topOn(url, queue, { width: 80, height: 24 });
    t.keys('s');
    await t.waitFor(`send to ${queue}:`);
    t.type('{"k": [1, 2]}');
    t.keys('Enter');
    await t.waitFor(`Send to ${queue}: {"k": [1, 2]} (JSON object, 1 key, 13 bytes)? [y/N]`);
    expect(await bodies()).toEqual([]);
    t.keys('y');
    await t.waitFor(new RegExp(`sent message \\d+ to ${queue}`));
    expect(await bodies()).toEqual(['{"k": [1, 2]}']);
    // Typed in one burst: the question, then n.
    t.keys('s');
    await t.waitFor(`send to ${queue}:`);
    t.type('[3]');
    t.keys('Enter', 'n');
    await t.waitFor('cancelled: nothing sent');
    t.keys('s');
    await t.waitFor(`send to ${queue}:`);
    t.type('{"k":');
    t.keys('Enter');
    await t.waitFor('nothing sent: the body is not valid JSON (');
    expect(await bodies()).toEqual(['{"k": [1, 2]}']);
  });
});
