// Keys that arrive in one chunk: parsed into single presses, each acting on the state the
// one before it left (the end-to-end versions, through tmux and real Postgres, are in
// test/integration/top-keys.test.ts).
import { describe, expect, test, vi } from 'vitest';
import { incompleteTail, parseKeys } from '../../src/ui/model/keyParse.js';
import { ESC_WAIT_MS, HOLD_MS, KeyRouter } from '../../src/ui/hooks/useKeys.js';
import type { Message, PeekOptions } from '../../src/backends/types.js';
import { FakeBackend } from '../helpers/ui/fake-backend.js';
import { KEYS, renderTop, useFakeTimersForInk, type Harness } from '../helpers/ui/render.js';

describe('parseKeys', () => {
  const names = (text: string) =>
    parseKeys(text).map(({ input, key }) =>
      [input, ...Object.keys(key).filter((k) => (key as Record<string, boolean>)[k])].filter((p) => p !== '').join('+'),
    );

  test('escape sequences, Enter and typed characters of one chunk are separate presses', () => {
    expect(names('\u001b[B\u001b[B\u001b[B\r')).toEqual(['downArrow', 'downArrow', 'downArrow', 'return']);
    expect(names('\u001b[Bdy')).toEqual(['downArrow', 'd', 'y']);
    expect(names('/q1[0-9]+$')).toEqual(['/', 'q', '1', '[', '0', '-', '9', ']', '+', '$']);
    expect(names('\u001b[6~'.repeat(3))).toEqual(['pageDown', 'pageDown', 'pageDown']);
    expect(names('\u001b[5~\u001b[1~\u001b[4~\u001b[H\u001b[F\u001bOA\u001bOB')).toEqual([
      'pageUp',
      'home',
      'end',
      'home',
      'end',
      'upArrow',
      'downArrow',
    ]);
  });

  test('ESC not starting a sequence is Escape, then the next key (not Meta+key)', () => {
    expect(names('\u001bj')).toEqual(['escape', 'j']);
    expect(names('\u001b')).toEqual(['escape']);
    expect(names('\u001b\u001b')).toEqual(['escape', 'escape']);
    expect(names('\u001b\u001b[A')).toEqual(['escape', 'upArrow']);
    expect(names('\u001b\r')).toEqual(['escape', 'return']);
  });

  test('control keys, Backspace and Delete, modifiers, keys top does not use', () => {
    expect(names('\u0003')).toEqual(['c+ctrl']);
    expect(names('\u0015')).toEqual(['u+ctrl']);
    expect(names('\u007f\b')).toEqual(['backspace', 'backspace']);
    expect(names('\u001b[3~')).toEqual(['delete']);
    expect(names('\u001b[1;5A')).toEqual(['upArrow+ctrl']);
    expect(names('\u001b[Z')).toEqual(['tab+shift']);
    expect(names('\t')).toEqual(['tab']);
    expect(names('\u001b[15~x\u001b[2~')).toEqual(['x']); // F5 and Insert: nothing
    expect(names('G')).toEqual(['G+shift']);
    expect(names('👍🏽é')).toEqual(['👍', '🏽', 'é']);
    expect(names('a\nb')).toEqual(['a', '\n', 'b']);
  });
});

test('incompleteTail finds an escape sequence cut at the end of a read', () => {
  expect(incompleteTail('\u001b[B\u001b[')).toBe(3);
  expect(incompleteTail('\u001b[B\u001b[1;')).toBe(3);
  expect(incompleteTail('j\u001b')).toBe(1);
  expect(incompleteTail('\u001bO')).toBe(0);
  expect(incompleteTail('\u001b[B')).toBe(-1);
  expect(incompleteTail('\u001bj')).toBe(-1);
  expect(incompleteTail('plain')).toBe(-1);
});

describe('a chunk of keys in smq top', () => {
  useFakeTimersForInk();
  let h: Harness | undefined;

  function pgmq(queues: readonly string[], n: number) {
    const b = new FakeBackend({ kind: 'pgmq' });
    for (const q of queues) b.addQueue(q);
    b.addMessages(
      queues[0]!,
      Array.from({ length: n }, (_, i) => JSON.stringify({ n: i + 1 })),
    );
    return b;
  }
  const selectedId = (frame: string) => /^› +(\d+) /m.exec(frame)?.[1];

  /** peek answers only when the test says so. */
  function gatePeek(b: FakeBackend) {
    const original = b.peek.bind(b);
    const waiting: Array<() => void> = [];
    b.peek = (queue: string, options: PeekOptions): Promise<Message[]> =>
      new Promise((resolve, reject) => waiting.push(() => original(queue, options).then(resolve, reject)));
    return {
      get waiting() {
        return waiting.length;
      },
      release: () => waiting.splice(0).forEach((go) => go()),
    };
  }

  test('Down Down Down Enter opens the fourth queue', async () => {
    const b = pgmq(['a', 'b', 'c', 'd', 'e'], 0);
    h = await renderTop(b, { timers: vi });
    await h.paste(`${KEYS.down}${KEYS.down}${KEYS.down}${KEYS.enter}`);
    await h.settle();
    expect(h.frame()).toContain('d · oldest first');
  });

  test('Down Down d y deletes the third message, the one highlighted when d was read', async () => {
    const b = pgmq(['orders'], 5);
    h = await renderTop(b, { timers: vi });
    await h.press(KEYS.enter);
    await h.settle();
    await h.paste(`${KEYS.down}${KEYS.down}dy`);
    await h.settle();
    expect(b.callsOf('delete').map((c) => c.args)).toEqual([['orders', [3n]]]);
    expect(h.frame()).toContain('deleted message 3 in orders');
  });

  test('keys typed after a delete wait for the reloaded page: Down d y Down d y deletes two neighbours', async () => {
    const b = pgmq(['orders'], 5);
    h = await renderTop(b, { timers: vi });
    await h.press(KEYS.enter);
    await h.settle();
    await h.paste(`${KEYS.down}dy${KEYS.down}dy`);
    await h.settle();
    // After 2 is deleted the page reads 1 3 4 5 with the second row (3) highlighted; Down is 4.
    expect(b.callsOf('delete').map((c) => c.args[1])).toEqual([[2n], [4n]]);
  });

  test('PgDn x3 while each page loads slowly: three pages, in order', async () => {
    const b = pgmq(['orders'], 40);
    // 16 rows: 7 messages a page.
    h = await renderTop(b, { timers: vi, size: { columns: 120, rows: 16 } });
    await h.press(KEYS.enter);
    await h.settle();
    expect(h.frame()).toContain('rows 1–7 of 40');
    const gate = gatePeek(b);
    await h.paste(KEYS.pageDown.repeat(3));
    for (let i = 0; i < 3; i++) {
      expect(gate.waiting).toBe(1); // one page asked for at a time
      gate.release();
      await h.settle();
    }
    expect(h.frame()).toContain('rows 22–28 of 40');
    expect(selectedId(h.frame())).toBe('22');
  });

  test(`a screen that never loads holds keys for ${HOLD_MS} ms, then they act on what is shown`, async () => {
    const b = pgmq(['orders', 'other'], 20);
    h = await renderTop(b, { timers: vi, size: { columns: 120, rows: 16 } });
    await h.press(KEYS.enter);
    await h.settle();
    gatePeek(b); // never released: the next page does not come
    await h.paste(`${KEYS.pageDown}${KEYS.escape}j`);
    await h.advance(HOLD_MS - 100);
    expect(h.frame()).toContain('orders · oldest first');
    await h.advance(200);
    expect(h.frame()).toContain('NAME▲');
    expect(h.frame()).toMatch(/› other\s/);
  });

  test('an arrow key cut between two reads is still one arrow key (40 of them: 40 rows)', async () => {
    const names = Array.from({ length: 50 }, (_, i) => `q${String(i).padStart(3, '0')}`);
    const b = pgmq(names, 0);
    h = await renderTop(b, { timers: vi });
    // Every read ends inside a sequence: "\e[B…\e[" then "B\e[B…\e[" and so on.
    const all = KEYS.down.repeat(40);
    for (let at = 0; at < all.length; at += 7) await h.paste(all.slice(at, at + 7));
    await h.advance(ESC_WAIT_MS);
    expect(h.frame()).toMatch(/› q040\s/);
    expect(h.frame()).toContain('NAME▲'); // nothing typed as a sort key ('B')
  });

  test('a lone Esc is the Escape key once nothing follows it', async () => {
    const b = pgmq(['orders'], 3);
    h = await renderTop(b, { timers: vi });
    await h.press(KEYS.enter);
    await h.settle();
    await h.paste(KEYS.escape);
    expect(h.frame()).toContain('orders · oldest first');
    await h.advance(ESC_WAIT_MS);
    expect(h.frame()).toContain('NAME▲');
  });

  test('Ctrl-C in a chunk quits at once, whatever waits before it', async () => {
    const b = pgmq(['orders'], 20);
    h = await renderTop(b, { timers: vi });
    await h.press(KEYS.enter);
    await h.settle();
    gatePeek(b);
    await h.paste(`${KEYS.pageDown}jjj${KEYS.ctrlC}`);
    expect(h.exits.count).toBe(1);
  });

  test('a paste into a prompt is one piece of text, and Enter after it submits', async () => {
    const b = pgmq(['orders', 'payments'], 0);
    h = await renderTop(b, { timers: vi });
    await h.paste('/^pay\rj');
    await h.settle();
    expect(h.frame()).toContain('1 of 2 queues · 1/1 · filter /^pay/');
    expect(h.frame()).not.toContain('filter (regex)');
  });
});

describe('a paste the terminal brackets (bracketed paste mode, which top turns on)', () => {
  useFakeTimersForInk();
  const START = '\u001b[200~';
  const END = '\u001b[201~';
  function queue(n: number) {
    const b = new FakeBackend({ kind: 'pgmq' });
    b.addQueue('orders');
    b.addMessages(
      'orders',
      Array.from({ length: n }, (_, i) => JSON.stringify({ n: i + 1 })),
    );
    return b;
  }
  const ids = async (b: FakeBackend) => (await b.peek('orders', { limit: 100, state: 'all' })).map((m) => Number(m.id));

  test('a pretty-printed body pasted into the send prompt is its text, line breaks and all: no key of it runs', async () => {
    // Before, its line breaks were Enter and the rest ran as keys: `o`, `d`, `y` deleted a message.
    const b = queue(5);
    const h = await renderTop(b, { timers: vi });
    await h.press(KEYS.enter);
    await h.settle();
    await h.press('s');
    await h.settle();
    await h.paste(`${START}{\r  "body": "do"\r}${END}`);
    await h.settle();
    expect(await ids(b)).toEqual([1, 2, 3, 4, 5]);
    expect(h.frame()).toContain('send to orders: {   "body": "do" }');
  });

  test('cut between reads, the paste is still one piece of text', async () => {
    const b = queue(2);
    const h = await renderTop(b, { timers: vi });
    await h.press(KEYS.enter);
    await h.settle();
    await h.press('s');
    await h.settle();
    for (const part of ['\u001b[20', '0~{"a":\r', '1}\u001b[2', '01~']) await h.paste(part);
    await h.settle();
    expect(h.frame()).toContain('send to orders: {"a": 1}');
    expect(await ids(b)).toEqual([1, 2]);
  });

  test('pasted on a screen (no prompt open): ignored, and said so; the keys after it work', async () => {
    const b = queue(3);
    const h = await renderTop(b, { timers: vi });
    await h.press(KEYS.enter);
    await h.settle();
    await h.paste(`${START}dy${KEYS.down}dy${END}j`);
    await h.settle();
    expect(await ids(b)).toEqual([1, 2, 3]);
    expect(h.frame()).toContain('pasted text ignored: paste into a prompt');
    expect(h.frame()).toMatch(/^› +2 /m);
  });
});

describe('KeyRouter', () => {
  test('a key held down on a busy screen: at most 500 of its presses are kept, also those that come after the screen started on them', async () => {
    const router = new KeyRouter();
    let presses = 0;
    let pendingTick: number | undefined;
    router.requestCommit = (tick) => (pendingTick = tick);
    router.targetChanged(Symbol('list'), { handler: () => (presses += 1), active: true, layer: 0, ready: true, text: false });
    const commit = async () => {
      await Promise.resolve(); // the router pumps in a microtask
      if (pendingTick === undefined) return false;
      const tick = pendingTick;
      pendingTick = undefined;
      router.committed(tick, false);
      return true;
    };
    router.feed('j'.repeat(600));
    await commit(); // the screen has taken the first j of the run
    router.feed('j'.repeat(600)); // the key is still held down
    while (await commit());
    expect(presses).toBe(500);
    router.dispose();
  });
});
