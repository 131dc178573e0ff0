// Top's questions on a narrow terminal: a question that does not fit wraps onto more lines
// (the queue name and the question mark whole, what is typed on its own line), and the
// frame stays one line shorter than the terminal.
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, test, vi } from 'vitest';
import { cellWidth } from '../../src/text/width.js';
import { FakeBackend } from '../helpers/ui/fake-backend.js';
import { KEYS, renderTop, useFakeTimersForInk, type Harness } from '../helpers/ui/render.js';

useFakeTimersForInk();

const SIZES = [
  { columns: 60, rows: 15 },
  { columns: 40, rows: 10 },
] as const;

function backend() {
  const b = new FakeBackend({ kind: 'pgmq' });
  b.addQueue('top_a');
  b.addMessages(
    'top_a',
    Array.from({ length: 200 }, (_, i) => JSON.stringify({ n: i })),
  );
  b.addQueue('top_b');
  return b;
}

/** The frame's text with its lines joined by spaces (a wrapped question reads as one). */
const joined = (frame: string) =>
  stripVTControlCharacters(frame)
    .split('\n')
    .map((l) => l.trim())
    .join(' ')
    .replace(/ +/g, ' ');

function expectFits(h: Harness, size: { columns: number; rows: number }) {
  const lines = stripVTControlCharacters(h.frame()).split('\n');
  expect(lines.length).toBeLessThanOrEqual(size.rows - 1);
  for (const line of lines) expect(cellWidth(line), line).toBeLessThanOrEqual(size.columns);
}

describe.each(SIZES)('questions at $columns x $rows', (size) => {
  test('Ctrl-D: the drop question is whole, the typed name on its own line', async () => {
    const h = await renderTop(backend(), { timers: vi, size });
    await h.press('\u0004');
    await h.settle();
    expect(joined(h.frame())).toContain('Drop queue top_a and its 200 messages? Type its name to confirm:');
    expectFits(h, size);
    // The body's view is cut at its bottom, not squeezed: its first line, the list's bar, stays whole.
    expect(stripVTControlCharacters(h.frame())).toMatch(/^2 of 2 queues · 1\/2 *$/m);
    await h.paste('top_a');
    const f = stripVTControlCharacters(h.frame());
    expect(f).toMatch(/^> top_a/m);
    expect(f).not.toContain('…top_a');
    expectFits(h, size);
    await h.press(KEYS.escape);
    expectFits(h, size);
  });

  test('P: the purge question is whole', async () => {
    const h = await renderTop(backend(), { timers: vi, size });
    await h.press('P');
    await h.settle();
    expect(joined(h.frame())).toContain('Purge deletes EVERY message of top_a. Type the queue name to confirm:');
    expectFits(h, size);
    await h.paste('top_a');
    expect(stripVTControlCharacters(h.frame())).toMatch(/^> top_a/m);
    expectFits(h, size);
  });

  test('m: the move prompt is whole, the target typed after it', async () => {
    const h = await renderTop(backend(), { timers: vi, size });
    await h.press(KEYS.enter);
    await h.settle();
    await h.press('m');
    await h.settle();
    expect(joined(h.frame())).toContain('Move message 1 from top_a to queue:');
    expectFits(h, size);
    await h.paste('top_b');
    // On one line with its label where the two fit, else on a line of its own.
    expect(stripVTControlCharacters(h.frame())).toMatch(size.columns >= 60 ? /to queue: top_b/ : /^> top_b/m);
    expectFits(h, size);
  });
});

describe.each(SIZES)('status lines at $columns x $rows', (size) => {
  test('a long answer wraps onto a second line (at most three) instead of losing its end', async () => {
    const h = await renderTop(backend(), { timers: vi, size });
    await h.press(KEYS.enter);
    await h.settle();
    await h.press('m');
    await h.settle();
    await h.paste('no_such_queue_anywhere');
    await h.press(KEYS.enter);
    await h.settle();
    const text = joined(h.frame());
    // (The fake store cannot move: its error is the end of the line that must not be lost.)
    expect(text).toMatch(/move message 1 to no_such_queue_anywhere failed: b\.moveMessages is not a function Enter open/);
    expectFits(h, size);
    // The next short status takes one line again, and the view has its lines back.
    await h.press('c');
    await h.settle();
    expectFits(h, size);
  });
});
