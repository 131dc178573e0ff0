import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { FakeBackend } from '../../src/ui/testing/fake-backend.js';
import { KEYS, renderTop, type Harness } from '../../src/ui/testing/render.js';

let h: Harness | undefined;
beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2025-01-02T03:04:05Z') });
});
afterEach(() => {
  h?.unmount();
  h = undefined;
  vi.useRealTimers();
});

function pgmq() {
  const b = new FakeBackend({ kind: 'pgmq' });
  b.addQueue('orders');
  b.addQueue('emails');
  b.addQueue('payments');
  b.addMessages('orders', ['{"n":1}', '{"n":2}', '{"n":3}']);
  b.addMessages('emails', ['{"to":"a"}']);
  return b;
}

describe('queue list', () => {
  test('renders header and rows', async () => {
    const b = pgmq();
    h = await renderTop(b, { timers: vi });
    const f = h.frame();
    console.log(f);
    expect(f).toContain('smq top');
    expect(f).toContain('orders');
  });
});
