// smq top's FIFO groups (issue 16): the GROUPS and NOTIFY columns of the queue list, the
// groups view of a queue (blocked, stalled, sorted, filtered, opened to a group's messages)
// and LAST READ, on the built `smq top` in tmux, keys sent in bursts as people type them.
// On a fresh database with smq's compat schema and, with SMQ_TEST_PGMQ_DIR, on real pgmq
// 1.13.0. The stalled group is made by the test's own SQL: its head read four times.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { tmuxAvailable } from '../helpers/tmux.js';
import { clonePgmq, createDatabase } from '../helpers/real-pgmq.js';
import { installSchema } from '../helpers/schema.js';
import { killTop, lastLine, requireBuild, topOn } from '../helpers/top-screen.js';

afterEach(killTop);
beforeAll(requireBuild);

const installs = inject('pgmqInstalls');
const real113 = installs.find((i) => i.release === '1.13.0' && i.form === 'sql');
const tag = () => randomBytes(3).toString('hex');

const stores: { name: string; url: () => Promise<string> }[] = [
  {
    name: "smq's compat schema",
    url: async () => {
      const url = await createDatabase(inject('pgUrl'), `topgroups_${tag()}`);
      await installSchema(url);
      return url;
    },
  },
];
if (real113) stores.push({ name: real113.label, url: () => clonePgmq(real113.template, `topgroups_113_${tag()}`) });

/** The SGR colour parameters on a line (30-37: the basic colours). */
const colours = (line: string) =>
  [...line.matchAll(/\u001b\[([0-9;]*)m/g)].flatMap((m) => m[1]!.split(';')).filter((p) => /^3[0-7]$/.test(p));
/** The line (escapes kept) whose text matches `re`. */
const lineOf = (screen: string, re: RegExp) => screen.split('\n').find((l) => re.test(l.replace(/\u001b\[[0-9;]*m/g, ''))) ?? '';

(tmuxAvailable() ? describe : describe.skip).each(stores)('FIFO groups in smq top on $name (real terminal)', (store) => {
  const prefix = `tg${tag()}`;
  const fifo = `${prefix}_fifo`;
  const plain = `${prefix}_plain`;
  let url: string;
  let c: pg.Client;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    url = await store.url();
    c = new pg.Client({ connectionString: url });
    await c.connect();
    for (const q of [fifo, plain]) await c.query('SELECT pgmq.create($1)', [q]);
    // b is the oldest group, then a; two messages without the header form the group-less lane.
    const sends: [string, string | null][] = [
      ['b1', 'b'],
      ['a1', 'a'],
      ['n1', null],
      ['a2', 'a'],
      ['b2', 'b'],
      ['a3', 'a'],
      ['n2', null],
    ];
    for (const [name, group] of sends) {
      const headers = group === null ? null : JSON.stringify({ 'x-pgmq-group': group });
      const r = await c.query<{ id: string }>('SELECT pgmq.send($1, $2::jsonb, $3::jsonb, 0)::text AS id', [
        fifo,
        JSON.stringify({ name }),
        headers,
      ]);
      ids[name] = r.rows[0]!.id;
    }
    await c.query('SELECT pgmq.send($1, $2::jsonb)', [plain, '{"n":1}']);
    await c.query('SELECT pgmq.enable_notify_insert($1, 250)', [fifo]);
    // A poison head: b's head read three times, each time visible again at once (vt 0),
    // then a fourth time and held; then a's head is read and held (blocked, read once).
    for (let i = 0; i < 3; i++) {
      await c.query('SELECT * FROM pgmq.read_grouped($1, 0, 1)', [fifo]);
      await c.query('SELECT pg_sleep(0.01)');
    }
    await c.query('SELECT * FROM pgmq.read_grouped($1, 600, 1)', [fifo]);
    await c.query('SELECT * FROM pgmq.read_grouped($1, 600, 1)', [fifo]);
    const reads = await c.query<{ id: string; read_ct: number; hidden: boolean }>(
      `SELECT msg_id::text AS id, read_ct, vt > now() AS hidden FROM pgmq.${pg.escapeIdentifier(`q_${fifo}`)} WHERE read_ct > 0 ORDER BY msg_id`,
    );
    expect(reads.rows).toEqual([
      { id: ids['b1'], read_ct: 4, hidden: true },
      { id: ids['a1'], read_ct: 1, hidden: true },
    ]);
  });
  afterAll(async () => {
    await c?.end();
  });

  test('the list: GROUPS (2 for the grouped queue) and NOTIFY (on) columns; the queue view counts them', async () => {
    const t = await topOn(url, prefix, { width: 200, height: 24 });
    const screen = await t.waitFor((s) => /GROUPS/.test(s) && s.includes(plain));
    expect(screen).toMatch(/NAME▲ +READY +IN FLIGHT +DELAYED +TOTAL +GROUPS +OLDEST .*NOTIFY/);
    expect(screen).toMatch(new RegExp(`${fifo} +5 +2 +0 +7 +2 .* on `));
    expect(screen).toMatch(new RegExp(`${plain} +1 +0 +0 +1 +- .* - `));
    t.keys('Enter');
    const queue = await t.waitFor(`${fifo} · oldest first`);
    expect(queue).toContain('· 2 groups · notify on (250 ms)');
  });

  test('F: one row per group with its state, stalled in red; sorted, filtered; Enter opens the group', async () => {
    const t = await topOn(url, prefix, { width: 120, height: 24 });
    // A burst, as typed: open the first queue, then its groups.
    t.keys('Enter', 'F');
    let screen = await t.waitFor(`${fifo} · FIFO groups · 2 groups and messages without one: 1 stalled, 1 blocked`);
    expect(screen).toMatch(/GROUP +STATE +READY +IN FLIGHT +DELAYED +HEAD AGE▼ +READS +VISIBLE +HEAD ID +LAST READ/);
    // Oldest head first: b (stalled), a (blocked), the lane (ready).
    const rows = screen.split('\n').filter((l) => /^[› ] (b|a|\(no group\)) /.test(l));
    expect(rows.map((l) => l.slice(2).split(/ {2,}/).slice(0, 2).join(' '))).toEqual(['b stalled', 'a blocked', '(no group) ready']);
    expect(screen).toMatch(/b +stalled +1 +1 +0 +\S+ +4 +in \S+ +\d+ +\S+ ago/);
    expect(screen).toMatch(/\(no group\) +ready +2 +0 +0 /);
    expect(lastLine(screen)).toMatch(/Enter messages · .*Esc back · \? help · \^C quit$/);
    const painted = t.captureWithEscapes();
    expect(colours(lineOf(painted, /^[› ] b +stalled /))).toContain('31');
    expect(colours(lineOf(painted, /^[› ] a +blocked /))).toContain('33');
    expect(colours(lineOf(painted, /^[› ] \(no group\) +ready /))).toEqual([]);

    // Sort by reads (C), then filter to group a, then open it.
    t.keys('C', 'C');
    screen = await t.waitFor('READS▲');
    t.keys('/');
    await t.waitFor('filter (regex): /');
    t.type('^a$');
    t.keys('Enter');
    screen = await t.waitFor('1 of 3 groups · 1/1 · filter /^a$/');
    t.keys('Enter');
    screen = await t.waitFor(`${fifo} · group a · oldest first`);
    const shown = (s: string) => [...s.matchAll(/^[› ] +(\d+) (ready|in flight|delayed)/gm)].map((m) => m[1]);
    await t.waitFor((s) => shown(s).length === 3);
    expect(shown(t.capture())).toEqual([ids['a1'], ids['a2'], ids['a3']]);
  });

  test('Down Down Enter in one burst opens the third group (the group-less lane); Esc comes back', async () => {
    const t = await topOn(url, prefix, { width: 80, height: 24 });
    t.keys('Enter');
    const queue = await t.waitFor(`${fifo} · oldest first`);
    expect(lastLine(queue)).toContain('F groups');
    t.keys('F', 'Down', 'Down', 'Enter');
    // The title comes before the rows ("loading…" between).
    const screen = await t.waitFor(
      (s) => s.includes(`${fifo} · the group-less lane · oldest first`) && new RegExp(`^› +${ids['n1']} ready`, 'm').test(s),
    );
    expect(screen).toMatch(new RegExp(`^  +${ids['n2']} ready`, 'm'));
    expect(screen).not.toMatch(new RegExp(`^[› ] +${ids['a1']} `, 'm'));
    t.keys('Escape', '?');
    const help = await t.waitFor('Keys (FIFO groups)');
    expect(help).toMatch(/Enter → +open the group's messages/);
    expect(help).toMatch(/N S R I D A C L +sort by group, state, ready, in flight, delayed, head age/);
  });

  test('LAST READ in the queue view and the detail; NO_COLOR: no colour in the groups view', async () => {
    const t = await topOn(url, prefix, { width: 120, height: 24, env: { NO_COLOR: '1' } });
    t.keys('Enter');
    let screen = await t.waitFor(new RegExp(`^› +${ids['b1']} in flight`, 'm'));
    expect(screen).toMatch(/ID +STATE +READS +AGE +VISIBLE +LAST READ +HEADERS/);
    expect(screen).toMatch(new RegExp(`^› +${ids['b1']} in flight +4 +\\S+ +in \\S+ +\\d+s `, 'm'));
    t.keys('Enter');
    screen = await t.waitFor('body (JSON)');
    expect(screen).toMatch(/^last read +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\(\S+ ago\)$/m);
    t.keys('Escape', 'F');
    await t.waitFor('1 stalled');
    expect(colours(t.captureWithEscapes())).toEqual([]);
  });
});
