// The queue view, the message detail and the actions of smq top, through the shared
// render wrapper with a fake backend and fake timers.
import { cellWidth } from '../../src/text/width.js';
import { describe, expect, test, vi } from 'vitest';
import type { Backend } from '../../src/backends/types.js';
import { FakeBackend } from '../helpers/ui/fake-backend.js';
import { KEYS, renderTop, useFakeTimersForInk, type Harness } from '../helpers/ui/render.js';

useFakeTimersForInk();
let h: Harness | undefined;

function pgmq(n = 3) {
  const b = new FakeBackend({ kind: 'pgmq' });
  b.addQueue('orders');
  b.addMessages(
    'orders',
    Array.from({ length: n }, (_, i) => JSON.stringify({ n: i + 1 })),
    { headers: { 'x-trace': 'abc' } },
  );
  return b;
}

/** Ids of the message rows on screen, in order. */
function ids(frame: string): string[] {
  const lines = frame.split('\n');
  const title = lines.findIndex((l) => /^\s+ID STATE/.test(l));
  const out: string[] = [];
  for (const l of lines.slice(title + 1)) {
    const m = /^[› ] +(\d+) /.exec(l);
    if (!m) break;
    out.push(m[1]!);
  }
  return out;
}
const selectedId = (frame: string) => /^› +(\d+) /m.exec(frame)?.[1];

async function openQueue(b: Backend, opts: Partial<Parameters<typeof renderTop>[1]> = {}) {
  h = await renderTop(b, { timers: vi, ...opts });
  await h.press(KEYS.enter);
  await h.settle();
  return h;
}

describe('a long action', () => {
  test('its notice stays until it ends, and a key that cannot act meanwhile says why', async () => {
    // Before, "delete message 1…" went after 5 s and the line stayed empty; a d pressed then did nothing, silently.
    const b = pgmq(3);
    let release!: () => void;
    const original = b.delete.bind(b);
    b.delete = (queue, ids) => new Promise((resolve, reject) => (release = () => original(queue, ids).then(resolve, reject)));
    await openQueue(b);
    await h!.press('d');
    await h!.press('y');
    expect(h!.frame()).toContain('delete message 1…');
    await h!.advance(12_000);
    expect(h!.frame()).toContain('delete message 1…');
    await h!.press('d');
    await h!.advance(6_000);
    expect(h!.frame()).toMatch(/delete message 1… still running: try again when it is done/);
    release();
    await h!.settle();
    expect(h!.frame()).toContain('deleted message 1 in orders');
  });
});

describe('the highlight stays on its message', () => {
  test('messages removed above it (a consumer, another operator): the same message stays highlighted, and keys move from it', async () => {
    // Before, the highlight kept its row number: ids 1 and 2 gone, it sat on 6, and `d y`
    // asked about and deleted a message the operator never pointed at.
    const b = pgmq(10);
    await openQueue(b);
    await h!.press(KEYS.down);
    await h!.press(KEYS.down);
    await h!.press(KEYS.down);
    expect(selectedId(h!.frame())).toBe('4');
    await b.delete('orders', [1n, 2n]);
    await h!.advance(2500);
    await h!.settle();
    expect(ids(h!.frame()).slice(0, 3)).toEqual(['3', '4', '5']);
    expect(selectedId(h!.frame())).toBe('4');
    await h!.press(KEYS.down);
    expect(selectedId(h!.frame())).toBe('5');
    await h!.press('g');
    expect(selectedId(h!.frame())).toBe('3');
  });

  test('the highlighted message itself gone: the one after it takes its place', async () => {
    const b = pgmq(5);
    await openQueue(b);
    await h!.press(KEYS.down);
    await b.delete('orders', [2n]);
    await h!.advance(2500);
    await h!.settle();
    expect(selectedId(h!.frame())).toBe('3');
  });
});

describe('queue view', () => {
  test('Enter opens the queue: messages with state, reads, headers, body preview; Esc goes back', async () => {
    const b = pgmq();
    await openQueue(b);
    const f = h!.frame();
    expect(f).toMatch(/orders · oldest first · all states · rows 1–3 of 3 · ready 3 · in flight 0/);
    expect(f).toMatch(/ID STATE\s+READS\s+AGE\s+VISIBLE HEADERS\s+BODY/);
    expect(f).toMatch(/› +1 ready\s+0\s+1s\s+now x-trace=abc\s+\{"n":1\}/);
    expect(ids(f)).toEqual(['1', '2', '3']);
    await h!.press(KEYS.escape);
    expect(h!.frame()).toContain('NAME▲');
  });

  test('peek only: opening a queue and a message never calls anything that changes them', async () => {
    const b = pgmq();
    await openQueue(b);
    await h!.press(KEYS.enter);
    await h!.advance(10_000);
    const methods = new Set(b.calls.map((c) => c.method));
    expect([...methods].sort()).toEqual(['health', 'info', 'listQueues', 'peek']);
  });

  test('keyset paging: PgDn asks for the page after the last id; PgUp goes back', async () => {
    const b = pgmq(12);
    // 16 rows: header 4, footer 2, last line kept free, 2 lines of chrome -> 7 messages a page.
    await openQueue(b, { size: { columns: 120, rows: 16 } });
    expect(ids(h!.frame())).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect(h!.frame()).toContain('rows 1–7 of 12');
    await h!.press(KEYS.pageDown);
    await h!.settle();
    expect(ids(h!.frame())).toEqual(['8', '9', '10', '11', '12']);
    expect(h!.frame()).toMatch(/rows 8–12 of 12 ·/);
    const lastPeek = b.callsOf('peek').at(-1)!.args[1];
    expect(lastPeek).toEqual({ limit: 8, order: 'oldest', state: 'all', afterId: 7n });
    await h!.press(KEYS.pageUp);
    await h!.settle();
    expect(ids(h!.frame())[0]).toBe('1');
  });

  test('moving past the last row loads the next page', async () => {
    const b = pgmq(12);
    await openQueue(b, { size: { columns: 120, rows: 16 } });
    await h!.press('j', 'j', 'j', 'j', 'j', 'j', 'j');
    await h!.settle();
    expect(selectedId(h!.frame())).toBe('8');
    await h!.press('k');
    await h!.settle();
    expect(selectedId(h!.frame())).toBe('7');
  });

  test('o toggles newest first; f filters by state', async () => {
    const b = pgmq(4);
    b.queues.get('/orders')!.messages[1]!.state = 'inflight';
    await openQueue(b);
    await h!.press('o');
    await h!.settle();
    expect(ids(h!.frame())).toEqual(['4', '3', '2', '1']);
    expect(h!.frame()).toContain('newest first');
    await h!.press('f', 'f');
    await h!.settle();
    expect(h!.frame()).toContain('only in flight');
    expect(ids(h!.frame())).toEqual(['2']);
    expect(b.callsOf('peek').at(-1)!.args[1]).toMatchObject({ state: 'inflight', order: 'newest' });
  });

  test('# jumps to an id', async () => {
    const b = pgmq(30);
    await openQueue(b, { size: { columns: 120, rows: 16 } });
    await h!.press('#');
    await h!.paste('20');
    await h!.press(KEYS.enter);
    await h!.settle();
    expect(ids(h!.frame())[0]).toBe('20');
    await h!.press('#');
    await h!.paste('abc');
    await h!.press(KEYS.enter);
    expect(h!.frame()).toContain('not a message id: abc');
  });

  test('bodies and headers with control characters are escaped', async () => {
    const b = new FakeBackend({ kind: 'sqlite' });
    b.addQueue('q');
    b.addMessages('q', ['hi\u001b[2J\u001b]52;c;AAAA\u0007\u009b1m'], { headers: { 'k\u001b': 'v\r' } });
    await openQueue(b);
    let f = h!.frame();
    expect(f).toContain('hi\\e[2J\\e]52;c;AAAA\\u{7}\\u{9b}1m');
    expect(f).toContain('k\\e=v\\r');
    await h!.press(KEYS.enter);
    await h!.settle();
    f = h!.frame();
    expect(f).toContain('hi\\e[2J');
    expect(f).toContain('k\\e: v\\r');
    expect(f).not.toMatch(/\u001b\[2J|\u001b\]|\u0007|\u009b|\r/);
  });
});

describe('message detail', () => {
  test('facts, headers, pretty JSON; scrolls', async () => {
    const b = new FakeBackend({ kind: 'pgmq' });
    b.addQueue('orders');
    const big = JSON.stringify({ id: 1, items: Array.from({ length: 30 }, (_, i) => ({ sku: `s${i}` })) });
    b.addMessages('orders', [big], { headers: { 'x-trace': 'abc' }, readCount: 2 });
    await openQueue(b, { size: { columns: 100, rows: 24 } });
    await h!.press(KEYS.enter);
    await h!.settle();
    let f = h!.frame();
    expect(f).toContain('orders · message 1');
    expect(f).toMatch(/read count\s+2/);
    expect(f).toMatch(/enqueued\s+2025-01-02 \d\d:\d\d:04\.000\s+\(1s ago\)/);
    expect(f).toContain('headers:');
    expect(f).toContain('x-trace: abc');
    expect(f).toContain('body (JSON)');
    expect(f).toContain('  "items": [');
    expect(f).not.toContain('"sku": "s29"');
    await h!.press('G');
    f = h!.frame();
    expect(f).toContain('"sku": "s29"');
    expect(f).not.toContain('read count');
    await h!.press('g');
    expect(h!.frame()).toContain('read count');
    await h!.press(KEYS.escape);
    expect(ids(h!.frame())).toEqual(['1']);
  });

  test('a message that is gone says so', async () => {
    const b = pgmq(1);
    await openQueue(b);
    await h!.press(KEYS.enter);
    await h!.settle();
    b.queues.get('/orders')!.messages = [];
    await h!.advance(2000);
    expect(h!.frame()).toContain('message 1 is not in the queue any more');
  });
});

describe('actions ask first', () => {
  test('delete: n cancels, y deletes and the list follows', async () => {
    const b = pgmq();
    await openQueue(b);
    await h!.press('j', 'd');
    expect(h!.frame()).toContain('Delete message 2 in orders? [y/N]');
    await h!.press('n');
    expect(h!.frame()).toContain('cancelled');
    expect(b.callsOf('delete')).toHaveLength(0);
    await h!.press('d', 'y');
    await h!.settle();
    expect(b.callsOf('delete')[0]!.args).toEqual(['orders', [2n]]);
    expect(h!.frame()).toContain('deleted message 2 in orders');
    expect(ids(h!.frame())).toEqual(['1', '3']);
  });

  test('delete from the detail goes back to the list', async () => {
    const b = pgmq();
    await openQueue(b);
    await h!.press(KEYS.enter);
    await h!.settle();
    await h!.press('d');
    expect(h!.frame()).toContain('Delete message 1 in orders?');
    await h!.press('y');
    await h!.settle();
    expect(h!.frame()).toContain('deleted message 1');
    expect(ids(h!.frame())).toEqual(['2', '3']);
  });

  test('archive on pgmq; SmoothMQ has none', async () => {
    const b = pgmq();
    await openQueue(b);
    await h!.press('a');
    expect(h!.frame()).toContain('Archive message 1 in orders?');
    await h!.press('y');
    await h!.settle();
    expect(b.callsOf('archive')[0]!.args).toEqual(['orders', [1n]]);
    expect(h!.frame()).toContain('archived message 1');
    h!.unmount();

    const s = new FakeBackend({ kind: 'sqlite' });
    s.addQueue('q');
    s.addMessages('q', ['x']);
    await openQueue(s);
    expect(h!.frame()).not.toContain('a archive');
    await h!.press('a');
    expect(h!.frame()).toContain('this backend has no archive');
    expect(s.callsOf('archive')).toHaveLength(0);
  });

  test('make visible now sets the visibility timeout to 0', async () => {
    const b = pgmq();
    b.queues.get('/orders')!.messages[0]!.state = 'inflight';
    await openQueue(b);
    await h!.press('v');
    expect(h!.frame()).toContain('Make visible now message 1 in orders?');
    await h!.press('y');
    await h!.settle();
    expect(b.callsOf('setVisibility')[0]!.args).toEqual(['orders', [1n], 0]);
    expect(h!.frame()).toContain('made visible message 1');
  });

  test('purge needs the queue name typed', async () => {
    const b = pgmq();
    await openQueue(b);
    await h!.press('P');
    expect(h!.frame()).toContain('Type the queue name to confirm');
    await h!.paste('order');
    await h!.press(KEYS.enter);
    expect(h!.frame()).toContain('purge cancelled: the name did not match');
    expect(b.callsOf('purgeQueue')).toHaveLength(0);
    await h!.press('P');
    await h!.paste('orders');
    await h!.press(KEYS.enter);
    await h!.settle();
    expect(b.callsOf('purgeQueue')).toHaveLength(1);
    expect(h!.frame()).toContain('purged 3 messages from orders');
    expect(h!.frame()).toContain('no messages');
  });

  test('a name typed fast with its Enter in one chunk still confirms', async () => {
    const b = pgmq();
    await openQueue(b);
    await h!.paste('Porders\r');
    await h!.settle();
    expect(b.callsOf('purgeQueue')).toHaveLength(1);
  });

  test('purge from the list works on the selected queue', async () => {
    const b = pgmq();
    h = await renderTop(b, { timers: vi });
    await h.press('P');
    await h.paste('orders');
    await h.press(KEYS.enter);
    await h.settle();
    expect(b.callsOf('purgeQueue')[0]!.args).toEqual(['orders']);
  });

  test('send: a small text input, shown parsed and asked about before sending; errors are shown', async () => {
    const b = pgmq();
    await openQueue(b);
    await h!.press('s');
    expect(h!.frame()).toContain('send to orders:');
    await h!.paste('{"hello":');
    await h!.press(KEYS.backspace);
    await h!.paste(': "world"}');
    expect(h!.frame()).toContain('{"hello": "world"}');
    await h!.press(KEYS.enter);
    await h!.settle();
    expect(h!.frame()).toContain('Send to orders: {"hello": "world"} (JSON object, 1 key, 18 bytes)? [y/N]');
    expect(b.callsOf('send')).toHaveLength(0);
    await h!.press('y');
    await h!.settle();
    expect(b.callsOf('send')[0]!.args).toEqual(['orders', { body: '{"hello": "world"}' }]);
    expect(h!.frame()).toContain('sent message 4 to orders');
    expect(ids(h!.frame())).toEqual(['1', '2', '3', '4']);

    await h!.press('s');
    await h!.paste('not json');
    await h!.press(KEYS.enter);
    await h!.settle();
    expect(h!.frame()).toContain('nothing sent: the body is not valid JSON (');
    expect(b.callsOf('send')).toHaveLength(1);
    // n (or Esc) at the question sends nothing.
    await h!.press('s');
    await h!.paste('[1, 2]');
    await h!.press(KEYS.enter);
    await h!.settle();
    expect(h!.frame()).toContain('(JSON array, 2 items, 6 bytes)? [y/N]');
    await h!.press('n');
    await h!.settle();
    expect(h!.frame()).toContain('cancelled: nothing sent');
    expect(b.callsOf('send')).toHaveLength(1);
  });

  test('send: a paste of 2,000 characters, and one of 6 KB in reads of 4 KB, arrive whole', async () => {
    const b = pgmq();
    await openQueue(b);
    const number = '9'.repeat(2000);
    await h!.press('s');
    const before = h!.frame().split('\n');
    await h!.paste(number);
    // The prompt stays one line (its start gives way to …): the screen keeps its shape.
    const during = h!.frame().split('\n');
    expect(during).toHaveLength(before.length);
    expect(during[0]).toBe(before[0]);
    expect(during.every((line) => cellWidth(line) <= 120)).toBe(true);
    expect(during.find((line) => line.startsWith('send to orders: '))).toMatch(/^send to orders: …9+ {2}/);
    await h!.press(KEYS.enter);
    await h!.settle();
    expect(h!.frame()).toContain('(JSON number, 2,000 bytes)? [y/N]');
    await h!.press('y');
    await h!.settle();
    expect(b.callsOf('send')[0]!.args).toEqual(['orders', { body: number }]);

    // A terminal hands a long paste over in several reads.
    const array = `[${Array.from({ length: 3000 }, () => '1').join(',')}]`;
    await h!.press('s');
    for (let at = 0; at < array.length; at += 4096) await h!.paste(array.slice(at, at + 4096));
    await h!.press(KEYS.enter);
    await h!.settle();
    expect(h!.frame()).toContain(`(JSON array, 3,000 items, ${array.length.toLocaleString('en-US')} bytes)? [y/N]`);
    await h!.press('y');
    await h!.settle();
    expect(b.callsOf('send')[1]!.args).toEqual(['orders', { body: array }]);
  });

  test('Esc in a prompt cancels it', async () => {
    const b = pgmq();
    await openQueue(b);
    await h!.press('s');
    await h!.paste('{}');
    await h!.press(KEYS.escape);
    expect(h!.frame()).toContain('cancelled');
    expect(b.callsOf('send')).toHaveLength(0);
  });
});

describe('read-only mode', () => {
  test('actions are off: no prompt, no call, and the keys are not offered', async () => {
    const b = new FakeBackend({ kind: 'pgmq', readOnly: true });
    b.addQueue('orders');
    b.addMessages('orders', ['{}']);
    await openQueue(b, { readOnly: true });
    const f = h!.frame();
    expect(f).toContain('READ-ONLY');
    expect(f).not.toContain('d delete');
    for (const key of ['d', 'a', 'v', 'P', 's']) {
      await h!.press(key);
      expect(h!.frame()).toContain('read-only: actions are disabled');
      expect(h!.frame()).not.toContain('[y/N]');
    }
    await h!.press('?');
    expect(h!.frame()).toContain('read-only: actions are off');
    expect(h!.frame()).not.toMatch(/delete the message/);
    const writes = b.calls.filter((c) => ['delete', 'archive', 'setVisibility', 'purgeQueue', 'send'].includes(c.method));
    expect(writes).toEqual([]);
  });
});

describe('SmoothMQ tenants', () => {
  test("a queue of another tenant is opened with that tenant's backend", async () => {
    const main = new FakeBackend({ kind: 'sqlite' });
    main.addQueue('jobs', { tenant: 1 });
    main.addQueue('jobs', { tenant: 2 });
    const t2 = new FakeBackend({ kind: 'sqlite' });
    t2.addQueue('jobs', { tenant: 2 });
    t2.addMessages('jobs', ['for tenant 2'], {}, 2);
    const opened: number[] = [];
    h = await renderTop(main, {
      timers: vi,
      backendForTenant: async (tenant) => {
        opened.push(tenant);
        return tenant === 2 ? t2 : main;
      },
    });
    await h.press('j', KEYS.enter);
    await h.settle();
    expect(opened).toEqual([2]);
    expect(h.frame()).toContain('jobs (tenant 2)');
    expect(h.frame()).toContain('for tenant 2');
    expect(h.frame()).toMatch(/TRIES/);
    expect(h.frame()).toMatch(/0\/5/);
  });
});

describe('keys typed ahead of a prompt', () => {
  test('what follows the Enter of a prompt goes to the screen after it', async () => {
    const b = pgmq();
    h = await renderTop(b, { timers: vi });
    await h.press('/');
    await h.paste('^ord\r\r');
    await h.settle();
    expect(h.frame()).not.toContain('filter (regex)');
    expect(h.frame()).toMatch(/ID STATE/);
  });
});

describe('N reads a read count in plain digits', () => {
  test.each(['0x10', '1e2', '0b1', '-1', '1.5', ' '])('%j is refused in one line, nothing marked', async (typed) => {
    // Before, Number() took 0x10 and 1e2 as 16 and 100.
    const b = pgmq(3);
    await openQueue(b);
    await h!.press('N');
    await h!.paste(typed);
    await h!.press(KEYS.enter);
    await h!.settle();
    expect(h!.frame()).toMatch(/not a read count: .* \(a whole number, 0 or more\)/);
    expect(h!.frame()).not.toContain('marked');
  });
});
