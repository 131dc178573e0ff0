// No line of smq top is wider than the terminal as the terminal counts cells (Devanagari
// conjuncts and emoji with modifiers take more cells than Ink's string-width says), so
// none wraps and pushes the header off the screen. The tmux version is
// test/integration/top-width.test.ts.
import { expect, test, vi } from 'vitest';
import { cellWidth } from '../../src/text/width.js';
import { FakeBackend } from '../helpers/ui/fake-backend.js';
import { KEYS, renderTop, useFakeTimersForInk, type Harness } from '../helpers/ui/render.js';

useFakeTimersForInk();
let h: Harness | undefined;

const widest = (frame: string) => Math.max(...frame.split('\n').map(cellWidth));

test('a queue named in Devanagari, with emoji bodies: every line of every screen fits 120 cells', async () => {
  const name = 'नमस्ते'.repeat(26); // 104 cells for a terminal, 78 for string-width
  const b = new FakeBackend({ kind: 'sqlite' });
  b.addQueue(name);
  b.addMessages(name, [`${'👍🏽'.repeat(70)}`, `{"t":"${'👨‍👩‍👧🇫🇷'.repeat(30)}"}`]);
  h = await renderTop(b, { timers: vi });
  expect(widest(h.frame())).toBeLessThanOrEqual(120);
  await h.press(KEYS.enter);
  await h.settle();
  expect(h.frame()).toContain('👍🏽');
  expect(widest(h.frame())).toBeLessThanOrEqual(120);
  await h.press(KEYS.enter);
  await h.settle();
  expect(widest(h.frame())).toBeLessThanOrEqual(120);
  // The status line names the queue.
  await h.press('d');
  expect(h.frame()).toContain('[y/N]');
  expect(widest(h.frame())).toBeLessThanOrEqual(120);
  await h.press('y');
  await h.settle();
  expect(h.frame()).toContain('deleted message');
  expect(widest(h.frame())).toBeLessThanOrEqual(120);
});
