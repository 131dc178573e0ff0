// Backend factories for the contract suites: one real Postgres (the suite's own server)
// and one real SQLite file per test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { openBackend, type OpenOptions } from '../../src/backends/index.js';
import type { Backend, BackendKind } from '../../src/backends/types.js';

export interface BackendFixture {
  readonly kind: BackendKind;
  /** Opens another backend on the same store (a second client / connection). */
  open(options?: OpenOptions): Promise<Backend>;
  /** Where the store is: a postgres URL or a file path. */
  readonly location: string;
  cleanup(): void;
}

export function uniqueQueue(prefix = 't'): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

export function makeTempDir(prefix = 'smq-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const fixtures: Record<BackendKind, () => BackendFixture> = {
  pgmq: () => {
    const url = inject('pgUrl');
    return {
      kind: 'pgmq',
      location: url,
      open: (options) => openBackend({ kind: 'pgmq', url }, options),
      cleanup: () => {},
    };
  },
  sqlite: () => {
    const tmp = makeTempDir();
    const path = join(tmp.dir, 'smoothmq.sqlite');
    return {
      kind: 'sqlite',
      location: path,
      open: (options) => openBackend({ kind: 'sqlite', path }, { create: true, ...options }),
      cleanup: tmp.cleanup,
    };
  },
};

export const BACKEND_KINDS: BackendKind[] = ['pgmq', 'sqlite'];

/**
 * The contract suite's stores: both backends, and pgmq once more with a dedicated
 * connection (the lean protocol path the tester's workers use, pgmq/wire.ts).
 */
export const CONTRACT_FIXTURES: Record<string, () => BackendFixture> = {
  pgmq: fixtures.pgmq,
  'pgmq (dedicated connection)': () => {
    const fx = fixtures.pgmq();
    return { ...fx, open: (options) => fx.open({ dedicated: true, ...options }) };
  },
  sqlite: fixtures.sqlite,
};
