// The queue list of smq top, rendered through the shared wrapper with a fake backend and
// fake timers.
import { describe, expect, test, vi } from 'vitest';
import { FakeBackend } from '../helpers/ui/fake-backend.js';
import { KEYS, renderTop, useFakeTimersForInk, type Harness } from '../helpers/ui/render.js';
import { encodeDriverName } from '../../src/ui/model/names.js';
import { cellWidth } from '../../src/text/width.js';

useFakeTimersForInk();
let h: Harness | undefined;

function pgmq() {
  const b = new FakeBackend({ kind: 'pgmq' });
  b.addQueue('orders');
  b.addQueue('emails');
  b.addQueue('payments');
  b.addMessages('orders', ['{"n":1}', '{"n":2}', '{"n":3}']);
  b.addMessages('emails', ['{"to":"a"}']);
  return b;
}

/** The data lines of the table (after the title line), trimmed. */
function tableRows(frame: string): string[] {
  const lines = frame.split('\n');
  const title = lines.findIndex((l) => /^\s+NAME/.test(l) || /^\s+TENANT/.test(l));
  const out: string[] = [];
  for (const l of lines.slice(title + 1)) {
    if (l.trim() === '' || l.includes('↑↓')) break;
    out.push(l);
  }
  return out;
}
const names = (frame: string) => tableRows(frame).map((l) => l.replace(/^[› ] /, '').split(/\s+/)[0]);
const selectedName = (frame: string) =>
  tableRows(frame)
    .find((l) => l.startsWith('›'))
    ?.slice(2)
    .split(/\s+/)[0];

describe('queue list', () => {
  test('header: backend, server, schema, masked connection, interval, totals, health', async () => {
    h = await renderTop(pgmq(), { timers: vi });
    const f = h.frame();
    expect(f).toContain('smq top pgmq · postgres://smq:***@localhost:5432/smq · PostgreSQL 15.99 · smq compat schema 1.5');
    expect(f).toMatch(/every 2s · last \d\d:\d\d:\d\d · 3 queues · ready 4 · in flight 0 · delayed 0 · total 4/);
    expect(f).toContain('health: oldest transaction 0s · dead tuples 0');
    expect(f).not.toContain('READ-ONLY');
  });

  test('pgmq rows: every column, ARCHIVED, sparkline, sorted by name', async () => {
    h = await renderTop(pgmq(), { timers: vi });
    const f = h.frame();
    expect(f).toMatch(/NAME▲\s+READY\s+IN FLIGHT\s+DELAYED\s+TOTAL\s+OLDEST\s+IN\/s\s+OUT\/s\s+ARCHIVED\s+NOTIFY\s+DEPTH 1m/);
    expect(f).not.toContain('FAILED');
    expect(f).not.toContain('TENANT');
    expect(names(f)).toEqual(['emails', 'orders', 'payments']);
    expect(tableRows(f)[1]).toMatch(/orders\s+3\s+0\s+0\s+3\s+1s\s+-\s+-\s+0\s+-\s+▃/); // notifications off; 3 messages: low on a scale of at least 10
  });

  test('SmoothMQ rows: FAILED instead of ARCHIVED, TENANT when more than one tenant', async () => {
    const b = new FakeBackend({ kind: 'sqlite' });
    b.addQueue('jobs', { tenant: 1 });
    b.addQueue('jobs', { tenant: 2 });
    b.addMessages('jobs', ['x'], { state: 'failed' }, 2);
    h = await renderTop(b, { timers: vi });
    const f = h.frame();
    expect(f).toMatch(/TENANT\s+NAME▲?\s+READY.*FAILED/);
    expect(f).not.toContain('ARCHIVED');
    expect(tableRows(f).map((l) => l.trim().replace(/^› /, '').split(/\s+/).slice(0, 2))).toEqual([
      ['1', 'jobs'],
      ['2', 'jobs'],
    ]);
  });

  test('one tenant: no TENANT column', async () => {
    const b = new FakeBackend({ kind: 'sqlite' });
    b.addQueue('jobs', { tenant: 1 });
    h = await renderTop(b, { timers: vi });
    expect(h.frame()).not.toContain('TENANT');
  });

  test('pgmq-driver names are shown decoded, with their tenant', async () => {
    const b = new FakeBackend({ kind: 'pgmq' });
    b.addQueue(encodeDriverName(1, 'orders'));
    b.addQueue(encodeDriverName(2, 'orders'));
    h = await renderTop(b, { timers: vi });
    const rows = tableRows(h.frame());
    expect(rows[0]).toMatch(/^› 1\s+orders\s/);
    expect(rows[1]).toMatch(/^ {2}2\s+orders\s/);
    expect(h.frame()).not.toContain('tnt_');
  });

  test("a tenant filter keeps only that tenant's driver queues", async () => {
    const b = new FakeBackend({ kind: 'pgmq' });
    b.addQueue(encodeDriverName(1, 'orders'));
    b.addQueue(encodeDriverName(2, 'orders'));
    b.addQueue(encodeDriverName(2, 'mail'));
    h = await renderTop(b, { timers: vi, tenantFilter: '2' });
    expect(h.frame()).toContain('2 of 2 queues');
    expect(tableRows(h.frame()).map((l) => l.slice(2).split(/\s+/)[0])).toEqual(['mail', 'orders']);
    expect(h.frame()).not.toContain('TENANT');
  });

  test('estimated counts carry ~', async () => {
    const b = pgmq();
    b.addQueue('huge', { estimated: true });
    b.addMessages('huge', ['{}', '{}']);
    h = await renderTop(b, { timers: vi });
    const huge = tableRows(h.frame()).find((l) => l.includes('huge'))!;
    expect(huge).toMatch(/huge\s+~2\s+~0\s+~0\s+~2/);
    expect(h.frame()).toContain('total ~6');
  });

  test('control characters in names are shown escaped, never raw', async () => {
    const b = new FakeBackend({ kind: 'sqlite' });
    b.addQueue('evil\u001b[2J\u001b]0;title\u0007\r');
    h = await renderTop(b, { timers: vi });
    const f = h.frame();
    expect(f).toContain('evil\\e[2J\\e]0;title\\u{7}\\r');
    expect(f).not.toContain('\u001b[2J');
    expect(f).not.toContain('\u0007');
    expect(f).not.toContain('\r');
  });

  test('names that differ by an invisible character do not look the same', async () => {
    const b = new FakeBackend({ kind: 'sqlite' });
    b.addQueue('orders');
    b.addQueue('ord\u200bers');
    b.addQueue('orders\ufeff');
    h = await renderTop(b, { timers: vi });
    expect(names(h.frame()).sort()).toEqual(['ord\\u{200b}ers', 'orders', 'orders\\u{feff}']);
    expect(h.frame()).not.toMatch(/\p{Cf}/u);
  });
});

describe('rates across refreshes', () => {
  test('IN/s and OUT/s from the change between two refreshes', async () => {
    const b = pgmq();
    h = await renderTop(b, { timers: vi });
    expect(tableRows(h.frame())[1]).toMatch(/orders(\s+\S+){5}\s+-\s+-/);
    // 2 s later: 10 more sent, 3 gone.
    b.addMessages(
      'orders',
      Array.from({ length: 10 }, () => '{}'),
    );
    b.consume('orders', 3);
    await h.advance(2000);
    const orders = tableRows(h.frame()).find((l) => l.includes('orders'))!;
    // in = 10 / 2 s = 5.0; out = 3 / 2 s = 1.5
    expect(orders).toMatch(/orders\s+10\s+0\s+0\s+10\s+\S+\s+5\.0\s+1\.5\s/);
    expect(h.frame()).toContain('in 5.0/s · out 1.5/s');
  });

  test('without an enqueue counter the net change is shown approximate (~)', async () => {
    const b = new FakeBackend({ kind: 'sqlite' });
    b.addQueue('jobs');
    h = await renderTop(b, { timers: vi });
    b.addMessages('jobs', ['a', 'b', 'c', 'd']);
    await h.advance(2000);
    expect(tableRows(h.frame())[0]).toMatch(/jobs\s+4\s+0\s+0\s+4\s+\S+\s+~2\.0\s+~0\s+0/);
  });

  test('a queue that appears later starts without a rate; one that goes disappears', async () => {
    const b = pgmq();
    h = await renderTop(b, { timers: vi });
    b.queues.delete('/payments');
    b.addQueue('newq');
    b.addMessages('newq', ['{}']);
    await h.advance(2000);
    expect(names(h.frame())).toEqual(['emails', 'newq', 'orders']);
    expect(tableRows(h.frame())[1]).toMatch(/newq(\s+\S+){5}\s+-\s+-/);
    expect(tableRows(h.frame())[2]).toMatch(/orders(\s+\S+){5}\s+0\s+0\s/);
  });

  test('the depth sparkline grows one sample per refresh', async () => {
    const b = pgmq();
    h = await renderTop(b, { timers: vi });
    for (let i = 0; i < 5; i++) {
      b.addMessages(
        'orders',
        Array.from({ length: 10 }, () => '{}'),
      );
      await h.advance(2000);
    }
    const spark = tableRows(h.frame())
      .find((l) => l.includes('orders'))!
      .slice(-15);
    expect(spark.replace(/\s/g, '').length).toBeGreaterThanOrEqual(3);
    expect(spark.endsWith('█')).toBe(true);
  });
});

describe('sorting, filtering, navigation', () => {
  test('a column key sorts by it (largest first); again reverses; < and > walk columns', async () => {
    h = await renderTop(pgmq(), { timers: vi });
    await h.press('T');
    expect(names(h.frame())).toEqual(['orders', 'emails', 'payments']);
    expect(h.frame()).toContain('TOTAL▼');
    await h.press('T');
    expect(names(h.frame())).toEqual(['payments', 'emails', 'orders']);
    expect(h.frame()).toContain('TOTAL▲');
    await h.press('<');
    expect(h.frame()).toContain('DELAYED▼');
    await h.press('>', '>');
    expect(h.frame()).toContain('OLDEST▼');
  });

  test('/ filters by regex as you type; Enter keeps it; Esc clears', async () => {
    h = await renderTop(pgmq(), { timers: vi });
    await h.press('/');
    await h.paste('^(or|pay)');
    expect(names(h.frame())).toEqual(['orders', 'payments']);
    await h.press(KEYS.enter);
    expect(h.frame()).toContain('2 of 3 queues · 1/2 · filter /^(or|pay)/');
    await h.press(KEYS.escape);
    expect(names(h.frame())).toHaveLength(3);
  });

  test('an invalid regex is shown, not thrown, and hides nothing', async () => {
    h = await renderTop(pgmq(), { timers: vi });
    await h.press('/', '(');
    expect(h.frame()).toMatch(/filter \/\(\/: invalid regex: .*Unterminated group.*\(showing all\)/i);
    expect(names(h.frame())).toHaveLength(3);
    await h.press(KEYS.backspace, 'm');
    expect(names(h.frame())).toEqual(['emails', 'payments']);
  });

  test('j/k and arrows move the selection; it stays on its queue across refreshes and sorts', async () => {
    const b = pgmq();
    h = await renderTop(b, { timers: vi });
    expect(selectedName(h.frame())).toBe('emails');
    await h.press('j');
    expect(selectedName(h.frame())).toBe('orders');
    await h.press(KEYS.down, KEYS.down);
    expect(selectedName(h.frame())).toBe('payments');
    await h.press('k');
    expect(selectedName(h.frame())).toBe('orders');
    await h.press('T'); // orders moves to the top, still selected
    expect(selectedName(h.frame())).toBe('orders');
    b.addQueue('aaa');
    await h.advance(2000);
    expect(selectedName(h.frame())).toBe('orders');
    await h.press('g');
    expect(selectedName(h.frame())).toBe('orders');
    await h.press('G');
    expect(selectedName(h.frame())).toBe('payments');
  });

  test('keys that arrive in one chunk are each handled, after the screen caught up', async () => {
    h = await renderTop(pgmq(), { timers: vi });
    await h.paste('jj');
    expect(selectedName(h.frame())).toBe('payments');
    await h.paste('k/^or');
    expect(h.frame()).toContain('filter (regex): /^or');
    expect(names(h.frame())).toEqual(['orders']);
    expect(selectedName(h.frame())).toBe('orders');
  });

  test('a long list scrolls to keep the selection on screen', async () => {
    const b = new FakeBackend();
    for (let i = 0; i < 50; i++) b.addQueue(`q${String(i).padStart(2, '0')}`);
    h = await renderTop(b, { timers: vi, size: { columns: 100, rows: 20 } });
    expect(names(h.frame())[0]).toBe('q00');
    await h.press(KEYS.pageDown, KEYS.pageDown);
    const shown = names(h.frame());
    expect(shown).toContain(selectedName(h.frame()));
    expect(shown[0]).not.toBe('q00');
    expect(h.frame().split('\n').length).toBeLessThanOrEqual(19);
  });

  test('80 columns: least important columns dropped, every line fits', async () => {
    h = await renderTop(pgmq(), { timers: vi, size: { columns: 80, rows: 24 } });
    const f = h.frame();
    expect(f).toMatch(/NAME▲\s+READY\s+IN FLIGHT/);
    expect(f).not.toContain('DEPTH 1m');
    expect(f).not.toContain('ARCHIVED');
    for (const line of f.split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(80);
  });
});

describe('refresh loop', () => {
  test('refreshes every interval; + and - change it, never below 0.5 s', async () => {
    const b = pgmq();
    h = await renderTop(b, { timers: vi });
    expect(b.callsOf('listQueues')).toHaveLength(1);
    await h.advance(2000);
    expect(b.callsOf('listQueues')).toHaveLength(2);
    await h.press('-', '-', '-', '-', '-');
    expect(h.frame()).toContain('every 0.5s');
    const before = b.callsOf('listQueues').length;
    await h.advance(500);
    expect(b.callsOf('listQueues').length).toBe(before + 1);
    await h.press('+');
    expect(h.frame()).toContain('every 1s');
  });

  test('Space pauses (no refreshes at all) and resumes with a refresh; r refreshes now', async () => {
    const b = pgmq();
    h = await renderTop(b, { timers: vi });
    await h.press(' ');
    expect(h.frame()).toContain('PAUSED');
    const n = b.callsOf('listQueues').length;
    await h.advance(20_000);
    expect(b.callsOf('listQueues')).toHaveLength(n);
    await h.press('r');
    expect(b.callsOf('listQueues')).toHaveLength(n + 1);
    await h.press(' ');
    expect(b.callsOf('listQueues')).toHaveLength(n + 2);
    expect(h.frame()).toContain('every 2s');
  });

  test('the exact threshold is passed to listQueues', async () => {
    const b = pgmq();
    h = await renderTop(b, { timers: vi, exactThreshold: 5000 });
    expect(b.callsOf('listQueues')[0]!.args[0]).toEqual({ exactThreshold: 5000 });
  });

  test('database outage: shown on screen, retried, recovers by itself', async () => {
    const b = pgmq();
    h = await renderTop(b, { timers: vi });
    b.failWith = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    await h.advance(2000);
    expect(h.frame()).toMatch(
      /DATABASE UNREACHABLE since \d\d:\d\d:\d\d · 1 failed attempt, retrying · data from \d\d:\d\d:\d\d · connect ECONNREFUSED 127\.0\.0\.1/,
    );
    // The old rows stay visible.
    expect(names(h.frame())).toEqual(['emails', 'orders', 'payments']);
    await h.advance(1000);
    await h.advance(2000);
    expect(h.frame()).toContain('3 failed attempts');
    b.failWith = undefined;
    b.addQueue('back');
    await h.advance(2000);
    expect(h.frame()).not.toContain('UNREACHABLE');
    expect(names(h.frame())).toContain('back');
  });

  test('an outage at start-up says so, and info arrives once the database does', async () => {
    const b = pgmq();
    b.failWith = new Error('no route to host');
    h = await renderTop(b, { timers: vi });
    expect(h.frame()).toContain('no data yet: the database is unreachable');
    b.failWith = undefined;
    await h.advance(1000);
    expect(h.frame()).toContain('PostgreSQL 15.99');
    expect(names(h.frame())).toHaveLength(3);
  });

  test('-n N quits after N refreshes', async () => {
    h = await renderTop(pgmq(), { timers: vi, maxRefreshes: 3 });
    expect(h.exits.count).toBe(0);
    await h.advance(2000);
    expect(h.exits.count).toBe(0);
    await h.advance(2000);
    expect(h.exits.count).toBe(1);
  });

  test('q quits from the list, Ctrl-C from anywhere', async () => {
    h = await renderTop(pgmq(), { timers: vi });
    await h.press('q');
    expect(h.exits.count).toBe(1);
  });

  test('Ctrl-C quits even from a prompt', async () => {
    h = await renderTop(pgmq(), { timers: vi });
    await h.press('/', KEYS.ctrlC);
    expect(h.exits.count).toBe(1);
  });

  test('? on a small terminal: every key and its words whole, the rest reached by scrolling', async () => {
    const t = await renderTop(pgmq(), { timers: vi, size: { columns: 60, rows: 15 } });
    h = t;
    await t.press('?');
    const seen = new Set<string>();
    const lines = () => t.frame().split('\n');
    const helpRows = () =>
      lines().slice(
        lines().findIndex((l) => l.startsWith('Keys (')) + 1,
        lines().findIndex((l) => l.includes('closes this help')),
      );
    expect(helpRows().length).toBeGreaterThan(0);
    for (let step = 0; step < 40; step++) {
      for (const row of helpRows()) {
        expect(row, row).not.toContain('…');
        expect(cellWidth(row)).toBeLessThanOrEqual(60);
        seen.add(row);
      }
      await t.press('j');
    }
    // Every key of the list screen appeared whole on some line.
    const all = [...seen].join('\n');
    for (const keys of ['↑/↓ j/k', 'PgUp/PgDn', 'g/G Home/End', 'Enter', 'Space', 'Ctrl-C', 'Ctrl-D', 'P ', ': ', '? '])
      expect(all).toContain(keys);
    expect(all).toMatch(/Ctrl-D +drop the queue/);
    expect(t.frame()).toMatch(/↑\/↓ scroll/);
    expect(lines().length).toBeLessThanOrEqual(15);
    await t.press(KEYS.escape);
    expect(t.frame()).not.toContain('Keys (queue list)');
  });

  test('a short terminal: the frame fits, the header gives way line by line, the list and the keys stay', async () => {
    for (const rows of [6, 7, 8, 9, 10, 12]) {
      const t = await renderTop(pgmq(), { timers: vi, size: { columns: 100, rows } });
      h = t;
      const frame = t.frame();
      const lines = frame.split('\n');
      // One line below the frame stays free (see TopApp): more would scroll the first off.
      expect(lines.length, `${rows} rows:\n${frame}`).toBeLessThanOrEqual(rows - 1);
      expect(frame, `${rows} rows`).toMatch(/› emails/);
      expect(lines.at(-1), `${rows} rows`).toContain('q quit');
      if (rows >= 7) expect(frame, `${rows} rows`).toContain('every 2s');
      if (rows >= 8) expect(frame, `${rows} rows`).toContain('health:');
      if (rows >= 9) expect(frame, `${rows} rows`).toContain('smq top');
      // The lines it has go to queues: a screen of 12 rows shows all three.
      if (rows >= 12) expect(frame).toMatch(/orders[\s\S]*payments|payments[\s\S]*orders/);
      t.unmount();
      h = undefined;
    }
  });

  test('? shows the keys; Esc closes', async () => {
    h = await renderTop(pgmq(), { timers: vi });
    await h.press('?');
    expect(h.frame()).toContain('Keys (queue list)');
    expect(h.frame()).toMatch(/\/\s+filter by name \(regex\)/);
    await h.press(KEYS.escape);
    expect(h.frame()).not.toContain('Keys (queue list)');
    expect(names(h.frame())).toHaveLength(3);
  });
});
