// Two queues side by side whose names differ only by an escape: one holding a real ESC
// (made by another program: smq refuses control characters in names it creates) and one
// holding the text `\e`. The built `smq top` in tmux on the suite's PostgreSQL must draw
// them differently (a backslash in a name is doubled), and the name typed to confirm a
// purge is read as the list writes it: the other queue's shown name is refused, the
// queue's own purges it and only it.
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { openBackend } from '../../src/backends/index.js';
import type { Backend } from '../../src/backends/types.js';
import { uniqueQueue } from '../helpers/backends.js';
import { tmuxAvailable } from '../helpers/tmux.js';
import { killTop, requireBuild, topOn } from '../helpers/top-screen.js';

afterEach(killTop);
beforeAll(requireBuild);

describe.skipIf(!tmuxAvailable())('smq top: a real ESC and the text \\e in two queue names (real terminal, real Postgres)', () => {
  const url = inject('pgUrl');
  const prefix = uniqueQueue('names');
  const real = `${prefix}_ev\u001b[2Jil`;
  const literal = `${prefix}_ev\\e[2Jil`;
  let backend: Backend;
  let client: pg.Client;

  beforeAll(async () => {
    backend = await openBackend({ kind: 'pgmq', url });
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('SELECT pgmq.create($1)', [real]);
    await backend.createQueue(literal);
    for (const q of [real, literal]) await backend.send(q, { body: '{"n":1}' });
  });
  afterAll(async () => {
    for (const q of [real, literal]) await client?.query('SELECT pgmq.drop_queue($1)', [q]).catch(() => undefined);
    await backend?.close();
    await client?.end();
  });

  const total = async (q: string) => (await backend.queueStats(q)).total;

  test('the list shows them differently; typing the other queue’s shown name is refused, its own purges it alone', async () => {
    const t = await topOn(url, prefix, { width: 140, height: 20 });
    // ESC sorts before a backslash: the real one is first, and highlighted.
    const screen = await t.waitFor(`  ${prefix}_ev\\\\e[2Jil`);
    expect(screen).toContain(`› ${prefix}_ev\\e[2Jil `);

    t.keys('Down');
    await t.waitFor(`› ${prefix}_ev\\\\e[2Jil`);
    t.keys('P');
    await t.waitFor('Type the queue name to confirm');
    t.type(`${prefix}_ev\\e[2Jil`); // what the list shows for the other one (and this one's raw text)
    t.keys('Enter');
    await t.waitFor('purge cancelled: the name did not match');
    expect([await total(real), await total(literal)]).toEqual([1, 1]);

    t.keys('P');
    await t.waitFor('Type the queue name to confirm');
    t.type(`${prefix}_ev\\\\e[2Jil`); // what the list shows for this one
    t.keys('Enter');
    await t.waitFor(/purged 1 message from /);
    expect([await total(real), await total(literal)]).toEqual([1, 0]);
  });
});
