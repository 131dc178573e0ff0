// smq top's topics view (issue 16): the bindings (pattern → queue, bound at) reached with t
// from the queue list, a routing key tested at its prompt (pgmq's test_routing: which queues
// it reaches, nothing sent, checked in the database), Enter opening a binding's queue. On a
// fresh database with smq's compat schema and, with SMQ_TEST_PGMQ_DIR, real pgmq 1.13.0.
// Then what stays hidden where the store lacks it: real pgmq 1.4.4 and a SmoothMQ file show
// no GROUPS, NOTIFY or LAST READ, and F and t say in one line what the store lacks.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { openBackend } from '../../src/backends/index.js';
import { tmuxAvailable } from '../helpers/tmux.js';
import { makeTempDir } from '../helpers/backends.js';
import { clonePgmq, createDatabase, NO_RELEASES } from '../helpers/real-pgmq.js';
import { installSchema } from '../helpers/schema.js';
import { killTop, lastLine, requireBuild, startTop, topOn } from '../helpers/top-screen.js';

afterEach(killTop);
beforeAll(requireBuild);

const installs = inject('pgmqInstalls');
const real = (release: string) => installs.find((i) => i.release === release && (i.form === 'sql' || release === '1.4.4'));
const tag = () => randomBytes(3).toString('hex');
const tmuxDescribe = tmuxAvailable() ? describe : describe.skip;

const stores: { name: string; url: () => Promise<string> }[] = [
  {
    name: "smq's compat schema",
    url: async () => {
      const url = await createDatabase(inject('pgUrl'), `toptopics_${tag()}`);
      await installSchema(url);
      return url;
    },
  },
];
const r113 = real('1.13.0');
if (r113) stores.push({ name: r113.label, url: () => clonePgmq(r113.template, `toptopics_113_${tag()}`) });

tmuxDescribe.each(stores)('the topics view of smq top on $name (real terminal)', (store) => {
  const p = `tt${tag()}`;
  const [eu, all, audit] = [`${p}_eu`, `${p}_all`, `${p}_audit`];
  let url: string;
  let c: pg.Client;

  beforeAll(async () => {
    url = await store.url();
    c = new pg.Client({ connectionString: url });
    await c.connect();
    for (const q of [eu, all, audit]) await c.query('SELECT pgmq.create($1)', [q]);
    for (const [pattern, q] of [
      ['orders.*.created', eu],
      ['orders.#', all],
      ['audit.#', audit],
    ]) {
      await c.query('SELECT pgmq.bind_topic($1, $2)', [pattern, q]);
    }
  });
  afterAll(async () => {
    await c?.end();
  });

  const stored = async () => {
    const out: number[] = [];
    for (const q of [eu, all, audit])
      out.push((await c.query(`SELECT count(*)::int AS n FROM pgmq.${pg.escapeIdentifier(`q_${q}`)}`)).rows[0].n);
    return out;
  };

  test('t lists the bindings; a tested key names the queues it reaches and marks its bindings; nothing is sent', async () => {
    const t = await topOn(url, p, { width: 120, height: 24 });
    t.keys('t');
    let screen = await t.waitFor('topic bindings · 3 bindings · t tests a routing key (sends nothing)');
    expect(screen).toMatch(/PATTERN▲ +→ QUEUE +BOUND AT +AGE/);
    expect(screen).toMatch(new RegExp(`^› audit\\.# +→ ${audit} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} +\\S+$`, 'm'));
    expect(screen).toMatch(new RegExp(`^  orders\\.\\*\\.created +→ ${eu} `, 'm'));
    expect(lastLine(screen)).toMatch(/t test key · .*Esc back · \? help · \^C quit$/);

    t.keys('t');
    await t.waitFor('routing key: ');
    t.type('orders.eu.created');
    t.keys('Enter');
    screen = await t.waitFor(`key orders.eu.created reaches 2 queues: ${all}, ${eu} (via orders.#, orders.*.created)`);
    expect(screen).toMatch(new RegExp(`^  yes +orders\\.# +→ ${all} `, 'm'));
    expect(screen).toMatch(new RegExp(`^  yes +orders\\.\\*\\.created +→ ${eu} `, 'm'));
    expect(screen).toMatch(new RegExp(`^›  +audit\\.# +→ ${audit} `, 'm'));

    // The prompt keeps the key typed last: Ctrl-U clears it.
    t.keys('t', 'C-u');
    t.type('billing.paid');
    t.keys('Enter');
    await t.waitFor('key billing.paid reaches no queue: a topic send with it would store nothing');
    t.keys('t', 'C-u');
    t.type('orders.*');
    t.keys('Enter');
    screen = await t.waitFor(/key orders\.\*: .*(only letters|invalid characters)/);
    expect(await stored()).toEqual([0, 0, 0]);

    // Filter, then clear it; Down Enter (one burst) opens the second binding's queue; Esc comes back.
    t.keys('/');
    await t.waitFor('filter (regex): /');
    t.type('audit');
    t.keys('Enter');
    await t.waitFor('1 of 3 bindings · 1/1 · filter /audit/');
    t.keys('Escape');
    await t.waitFor('3 of 3 bindings · 1/3');
    t.keys('Down', 'Enter');
    await t.waitFor(`${all} · oldest first`);
    t.keys('Escape', '?');
    screen = await t.waitFor('Keys (topic bindings)');
    expect(screen).toMatch(/^t +test a routing key: which queues a topic send reaches$/m);
  });
});

tmuxDescribe('what smq top hides where the store lacks it', () => {
  const r144 = real('1.4.4');

  test.skipIf(!r144)(
    `real pgmq 1.4.4: no GROUPS, NOTIFY or LAST READ; F and t say what is missing${r144 ? '' : ` (${NO_RELEASES})`}`,
    async () => {
      const url = await clonePgmq(r144!.template, `top144_${tag()}`);
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const q = `t144${tag()}`;
      try {
        await c.query('SELECT pgmq.create($1)', [q]);
        await c.query('SELECT pgmq.send($1, $2::jsonb)', [q, '{"n":1}']);
        await c.query('SELECT * FROM pgmq.read($1, 600, 1)', [q]);
      } finally {
        await c.end();
      }
      const t = await topOn(url, q, { width: 200, height: 24 });
      let screen = await t.waitFor(/NAME▲ +READY/);
      expect(screen).not.toMatch(/GROUPS|NOTIFY/);
      expect(lastLine(screen)).not.toContain('t topics');
      t.keys('t');
      await t.waitFor("the store has no topic routing: it needs pgmq 1.11+ or smq's compat schema (smq init)");
      t.keys('Enter');
      screen = await t.waitFor(`${q} · oldest first`);
      expect(screen).toMatch(/ID +STATE +READS +AGE +VISIBLE +BODY/);
      expect(screen).not.toMatch(/LAST READ|groups|notify/);
      expect(lastLine(screen)).not.toContain('F groups');
      t.keys('F');
      await t.waitFor("the store has no FIFO groups: they need pgmq 1.9+ or smq's compat schema (smq init)");
      t.keys('?');
      screen = await t.waitFor('Keys (queue view)');
      expect(screen).not.toMatch(/^F +/m);
      t.keys('Escape', 'Enter');
      screen = await t.waitFor('body (JSON)');
      expect(screen).toMatch(/^read count +1$/m);
      expect(screen).not.toContain('last read');
    },
  );

  test('SmoothMQ: no GROUPS or NOTIFY; F and t say what is missing; LAST READ is delivered_at', async () => {
    const tmp = makeTempDir('smq-top113-');
    try {
      const file = join(tmp.dir, 'smoothmq.sqlite');
      const b = await openBackend({ kind: 'sqlite', path: file }, { create: true });
      try {
        await b.createQueue('jobs');
        await b.send('jobs', { body: 'x' });
        await b.receive('jobs', { qty: 1, vtSec: 600 }); // delivered_at: LAST READ has something to show
      } finally {
        await b.close();
      }
      const t = startTop(['--sqlite', file, '--interval', '1'], { width: 160, height: 24 });
      let screen = await t.waitFor(/^1 of 1 queue · 1\/1$/m);
      expect(screen).not.toMatch(/GROUPS|NOTIFY/);
      t.keys('t');
      await t.waitFor('the store has no topic routing');
      t.keys('Enter', 'F');
      screen = await t.waitFor('the store has no FIFO groups');
      expect(screen).toMatch(/ID +STATE +TRIES +AGE +VISIBLE +LAST READ +BODY/);
    } finally {
      killTop();
      tmp.cleanup();
    }
  });
});
