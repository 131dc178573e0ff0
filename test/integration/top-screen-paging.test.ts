// What smq top's queue view says about where it is (issue 18): absolute rows, paging before
// a jump, g/G, notices that expire, a jump past the end; and width given to what has
// content. The built `smq top` in tmux against the suite's PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import { openBackend } from '../../src/backends/index.js';
import type { Backend } from '../../src/backends/types.js';
import { tmuxAvailable } from '../helpers/tmux.js';
import { uniqueQueue } from '../helpers/backends.js';
import { killTop, requireBuild, topOn } from '../helpers/top-screen.js';

afterEach(killTop);
beforeAll(requireBuild);

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
