// Names that differ only by an escape: a queue holding a real ESC (or U+200B, U+202E) and one
// holding the text `\e` (`\u{200b}`, `\u{202e}`) must not look the same in top, and the name
// typed to confirm a purge or a drop is read as the list writes it: typing what the list shows
// for a queue confirms exactly that queue, never the other one.
import { describe, expect, test, vi } from 'vitest';
import { FakeBackend } from '../helpers/ui/fake-backend.js';
import { KEYS, renderTop, useFakeTimersForInk, type Harness } from '../helpers/ui/render.js';

useFakeTimersForInk();

const CTRL_D = '\u0004';

interface Pair {
  readonly kind: 'pgmq' | 'sqlite';
  /** The name with the real character. */
  readonly real: string;
  /** The name holding the escape's text. */
  readonly literal: string;
  /** How the list writes each. */
  readonly realShown: string;
  readonly literalShown: string;
}

const PAIRS: Pair[] = [
  { kind: 'pgmq', real: 'ev\u001b[2Jil', literal: 'ev\\e[2Jil', realShown: 'ev\\e[2Jil', literalShown: 'ev\\\\e[2Jil' },
  { kind: 'pgmq', real: 'zw\u200bq', literal: 'zw\\u{200b}q', realShown: 'zw\\u{200b}q', literalShown: 'zw\\\\u{200b}q' },
  { kind: 'sqlite', real: 'ab\u202ecd', literal: 'ab\\u{202e}cd', realShown: 'ab\\u{202e}cd', literalShown: 'ab\\\\u{202e}cd' },
];

function backendOf(p: Pair): FakeBackend {
  const b = new FakeBackend({ kind: p.kind });
  for (const name of [p.real, p.literal]) {
    b.addQueue(name);
    b.addMessages(name, [p.kind === 'pgmq' ? '{"n":1}' : 'x']);
  }
  return b;
}

/** The queue-name cell of every row of the list, as drawn. */
function listNames(frame: string): string[] {
  const lines = frame.split('\n');
  const title = lines.findIndex((l) => /^\s+NAME/.test(l));
  const out: string[] = [];
  for (const l of lines.slice(title + 1)) {
    if (l.trim() === '' || l.includes('↑↓')) break;
    out.push(l.replace(/^[› ] /, '').split(/\s+/)[0]!);
  }
  return out;
}
const selected = (frame: string) =>
  /^› (\S+)/m.exec(
    frame
      .split('\n')
      .filter((l) => l.startsWith('›'))
      .join('\n'),
  )?.[1];

/** Moves the highlight to the row drawn as `shown`. */
async function highlight(h: Harness, shown: string): Promise<void> {
  for (let i = 0; i < 5 && selected(h.frame()) !== shown; i++) await h.press('j');
  expect(selected(h.frame())).toBe(shown);
}

describe.each(PAIRS)('$kind: $realShown and $literalShown', (p) => {
  test('the list draws the two names differently: a backslash in a name is doubled', async () => {
    const h = await renderTop(backendOf(p), { timers: vi, size: { columns: 150, rows: 30 } });
    expect(listNames(h.frame()).sort()).toEqual([p.realShown, p.literalShown].sort());
  });

  test('the queue view and the message detail name the queue as the list does', async () => {
    const h = await renderTop(backendOf(p), { timers: vi, size: { columns: 150, rows: 30 } });
    await highlight(h, p.literalShown);
    await h.press(KEYS.enter);
    await h.settle();
    expect(h.frame()).toContain(`${p.literalShown} · oldest first`);
    await h.press(KEYS.enter);
    await h.settle();
    expect(h.frame()).toContain(p.literalShown);
  });

  for (const action of ['purge', 'drop'] as const) {
    const start = async (h: Harness) => {
      await h.press(action === 'purge' ? 'P' : CTRL_D);
      await h.settle();
      expect(h.frame()).toMatch(action === 'purge' ? /Type the queue name to confirm/ : /Type its name to confirm/);
    };
    const calls = (b: FakeBackend) => b.callsOf(action === 'purge' ? 'purgeQueue' : 'dropQueue').map((c) => c.args[0]);

    test(`${action}: the name holding the escape's text is confirmed by typing it as the list shows it, not by its raw text`, async () => {
      const b = backendOf(p);
      const h = await renderTop(b, { timers: vi, size: { columns: 150, rows: 30 } });
      await highlight(h, p.literalShown);
      // What the list shows for the other queue: refused.
      await start(h);
      await h.paste(`${p.realShown}\r`);
      await h.settle();
      expect(h.frame()).toContain(`${action} cancelled: the name did not match`);
      expect(calls(b)).toEqual([]);
      // What the list shows for this one.
      await start(h);
      await h.paste(`${p.literalShown}\r`);
      await h.settle();
      expect(calls(b)).toEqual([p.literal]);
    });

    test(`${action}: the name with the real character is confirmed by what the list shows for it`, async () => {
      const b = backendOf(p);
      const h = await renderTop(b, { timers: vi, size: { columns: 150, rows: 30 } });
      await highlight(h, p.realShown);
      await start(h);
      await h.paste(`${p.literalShown}\r`);
      await h.settle();
      expect(h.frame()).toContain(`${action} cancelled: the name did not match`);
      expect(calls(b)).toEqual([]);
      await start(h);
      await h.paste(`${p.realShown}\r`);
      await h.settle();
      expect(calls(b)).toEqual([p.real]);
    });
  }
});

/** FakeBackend with a move that only records where it was asked to move to. */
class MovingBackend extends FakeBackend {
  readonly moves: [string, string][] = [];
  async moveMessages(queue: string, target: string): Promise<number> {
    this.moves.push([queue, target]);
    return 1;
  }
}

describe('m (move): the target queue is read as the list writes names', () => {
  const setUp = async () => {
    const b = new MovingBackend({ kind: 'pgmq' });
    b.addQueue('a-src');
    b.addMessages('a-src', ['{"n":1}']);
    for (const name of ['ev\u001b[2Jil', 'ev\\e[2Jil']) b.addQueue(name);
    const h = await renderTop(b, { timers: vi, size: { columns: 150, rows: 30 } });
    await highlight(h, 'a-src');
    await h.press(KEYS.enter);
    await h.settle();
    return { b, h };
  };
  const moveTo = async (h: Harness, typed: string) => {
    await h.press('m');
    await h.settle();
    expect(h.frame()).toContain('to queue:');
    await h.paste(`${typed}\r`);
    await h.settle();
  };

  test('typing what the list shows for a queue moves to that queue', async () => {
    const { b, h } = await setUp();
    await moveTo(h, 'ev\\\\e[2Jil');
    expect(b.moves).toEqual([['a-src', 'ev\\e[2Jil']]);
    expect(h.frame()).toContain('moved 1 message from a-src to ev\\\\e[2Jil');
    await moveTo(h, 'ev\\e[2Jil');
    expect(b.moves[1]).toEqual(['a-src', 'ev\u001b[2Jil']);
    expect(h.frame()).toContain('moved 1 message from a-src to ev\\e[2Jil');
  });

  test('a backslash that starts no escape is refused with one line; nothing moves', async () => {
    const { b, h } = await setUp();
    await moveTo(h, 'ev\\x');
    expect(b.moves).toEqual([]);
    expect(h.frame()).toContain('move cancelled: ev\\x is not a name as the list writes it (a backslash is written \\\\)');
  });
});
