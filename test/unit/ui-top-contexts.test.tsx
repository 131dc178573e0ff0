// smq top over several stores: `:` lists the contexts, Enter or a digit switches (the header
// names the current one), a store that cannot connect says so in one line and top stays
// where it was, and keys typed in one burst after the switch reach the new store's screen.
import { describe, expect, test, vi } from 'vitest';
import { FakeBackend } from '../helpers/ui/fake-backend.js';
import { KEYS, renderElement, useFakeTimersForInk, type Harness } from '../helpers/ui/render.js';
import { ContextsTop } from '../../src/ui/components/ContextsTop.js';
import type { ContextsSetup, ContextStore } from '../../src/ui/model/contexts.js';
import { SmqError } from '../../src/errors.js';

useFakeTimersForInk();
let h: Harness | undefined;

function stores() {
  const prod = new FakeBackend({ kind: 'pgmq' });
  prod.addQueue('orders');
  prod.addMessages('orders', ['{"n":1}']);
  const local = new FakeBackend({ kind: 'sqlite' });
  local.addQueue('smooth_jobs');
  local.addMessages('smooth_jobs', ['a', 'b']);
  return { prod, local };
}

async function renderContexts(opts: { failures?: ContextsSetup['failures'] } = {}) {
  const { prod, local } = stores();
  const opened: string[] = [];
  const storeOf = (backend: FakeBackend, connection: string, readOnly = false): ContextStore => ({ backend, connection, readOnly });
  const setup: ContextsSetup = {
    entries: [
      { name: 'prod', kind: 'pgmq', location: 'postgres://ops:***@db1:5432/app', readOnly: false },
      { name: 'down', kind: 'pgmq', location: 'postgres://ops@127.0.0.1:1/app', readOnly: false },
      { name: 'local', kind: 'sqlite', location: 'sqlite:/tmp/smooth.db', readOnly: true },
    ],
    current: 'prod',
    failures: opts.failures ?? [],
    open: async (name) => {
      opened.push(name);
      if (name === 'down') throw new SmqError('connection', 'cannot connect to 127.0.0.1:1: connection refused');
      if (name === 'local') return storeOf(local, 'sqlite:/tmp/smooth.db', true);
      return storeOf(prod, 'postgres://ops:***@db1:5432/app');
    },
  };
  const first = storeOf(prod, 'postgres://ops:***@db1:5432/app');
  h = renderElement(<ContextsTop setup={setup} first={first} intervalMs={2000} size={{ columns: 120, rows: 30 }} />, vi);
  await h.settle();
  return { h, opened, prod, local };
}

describe('contexts', () => {
  test('the header names the context; : lists them with store, mode, masked connection and state', async () => {
    const { h } = await renderContexts();
    expect(h.frame()).toContain('smq top [prod] pgmq · postgres://ops:***@db1:5432/app');
    expect(h.frame()).toContain(': context');
    await h.press(':');
    const f = h.frame();
    expect(f).toContain('contexts · 3 stores · on prod');
    expect(f).toMatch(/NAME\s+STORE\s+MODE\s+CONNECTION\s+STATE/);
    expect(f).toMatch(/› prod\s+pgmq\s+read-write\s+postgres:\/\/ops:\*\*\*@db1:5432\/app\s+current/);
    expect(f).toMatch(/ {2}local\s+sqlite\s+read-only\s+sqlite:\/tmp\/smooth\.db\s+-/);
    await h.press(KEYS.escape);
    expect(h.frame()).toContain('orders');
    expect(h.frame()).not.toContain('contexts ·');
  });

  test('Enter switches: the other store, its queues, its read-only; the first stays open', async () => {
    const { h, opened } = await renderContexts();
    await h.press(':', KEYS.down, KEYS.down, KEYS.enter);
    await h.settle();
    const f = h.frame();
    expect(opened).toEqual(['local']);
    expect(f).toContain('smq top [local]');
    expect(f).toContain('READ-ONLY');
    expect(f).toContain('sqlite · sqlite:/tmp/smooth.db');
    expect(f).toContain('smooth_jobs');
    expect(f).not.toContain('orders');
    expect(f).toContain('context local: sqlite:/tmp/smooth.db');
    await h.press(':');
    expect(h.frame()).toMatch(/prod\s+pgmq\s+read-write\s+\S+\s+connected/);
    await h.press('1');
    await h.settle();
    expect(h.frame()).toContain('smq top [prod]');
    expect(h.frame()).toContain('orders');
  });

  test('a store that cannot connect: one line, the picker says why, top stays on its store', async () => {
    const { h } = await renderContexts();
    await h.press(':', '2');
    await h.settle();
    const f = h.frame();
    expect(f).toMatch(/down\s+pgmq\s+read-write\s+\S+\s+cannot connect to 127\.0\.0\.1:1/);
    expect(f).toContain('context down: cannot connect to 127.0.0.1:1: connection refused');
    await h.press(KEYS.escape);
    expect(h.frame()).toContain('smq top [prod]');
    expect(h.frame()).toContain('orders');
  });

  test('keys typed in one burst after the switch act on the new store', async () => {
    const { h } = await renderContexts();
    await h.paste(`:3${KEYS.enter}`);
    await h.settle();
    await h.advance(50);
    const f = h.frame();
    expect(f).toContain('smq top [local]');
    expect(f).toMatch(/smooth_jobs · oldest first/);
  });

  test('a failure before top started is said once', async () => {
    const { h } = await renderContexts({ failures: [{ name: 'down', error: new SmqError('connection', 'connection refused') }] });
    expect(h.frame()).toContain('started on prod · context down: cannot connect: connection refused');
    await h.press(':');
    expect(h.frame()).toMatch(/down\s+.*cannot connect: connection refused/);
  });
});
