// The tester's integration tests run the built code (dist/), so that the worker threads
// load the real worker.js exactly as `smq tester` does. Types come from src/.
import { mkdtempSync, rmSync } from 'node:fs';
import { afterEach, inject } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as TesterModule from '../../src/tester/index.js';
import type * as BackendsModule from '../../src/backends/index.js';
import type { TesterConfig } from '../../src/tester/index.js';

const dist = (path: string) => new URL(`../../dist/${path}`, import.meta.url).href;

export const loadTester = () => import(/* @vite-ignore */ dist('tester/index.js')) as Promise<typeof TesterModule>;
export const loadBackends = () => import(/* @vite-ignore */ dist('backends/index.js')) as Promise<typeof BackendsModule>;

/** Defaults of a small, quick run; tests override what they are about. */
export function baseConfig(target: TesterConfig['target'], patch: Partial<TesterConfig> = {}): TesterConfig {
  return {
    target,
    senders: 2,
    receivers: 2,
    messagesPerSender: 300,
    sizeBytes: 200,
    batch: 5,
    vtSec: 30,
    ratePerSec: 0,
    warmupMs: 0,
    keep: false,
    ack: 'delete',
    drainTimeoutMs: 5000,
    dequeue: 'safe',
    connectTimeoutMs: 5000,
    ...patch,
  };
}

export function tempSqlite(): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'smq-tester-test-'));
  return { path: join(dir, 'q.sqlite'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export type TesterStore = { name: string; target: () => TesterConfig['target']; create: boolean };

/**
 * The two stores a tester test runs on: a fresh SQLite file (removed after each test) and the
 * suite's Postgres. Registers its own afterEach cleanup in the calling test file.
 */
export function testerStores(): TesterStore[] {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0).reverse()) c();
  });
  return [
    {
      name: 'sqlite',
      create: true,
      target: () => {
        const t = tempSqlite();
        cleanups.push(t.cleanup);
        return { kind: 'sqlite', path: t.path };
      },
    },
    { name: 'pgmq', create: false, target: () => ({ kind: 'pgmq', url: inject('pgUrl') }) },
  ];
}
