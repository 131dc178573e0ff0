// Backend factories for the contract suites: one real Postgres (the suite's own server)
// and one real SQLite file per test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { openBackend, type OpenOptions } from '../../src/backends/index.js';
import type { Backend, BackendKind } from '../../src/backends/types.js';
import { clonePgmq } from './real-pgmq.js';

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

/** One clone per real install and test file, made when a test first asks for it. */
const clones = new Map<string, Promise<string>>();
function realPgmqFixture(label: string, template: string): () => BackendFixture {
  return () => {
    const url = () => {
      let u = clones.get(label);
      if (!u) {
        u = clonePgmq(template, `contract_${label.replace(/[^a-z0-9]+/gi, '_')}_${randomBytes(3).toString('hex')}`.toLowerCase());
        clones.set(label, u);
      }
      return u;
    };
    return {
      kind: 'pgmq',
      location: template,
      open: async (options) => openBackend({ kind: 'pgmq', url: await url() }, options),
      cleanup: () => {},
    };
  };
}

/**
 * The contract suite's stores: both backends, pgmq once more with a dedicated connection (the
 * lean protocol path the tester's workers use, pgmq/wire.ts), and every real pgmq install of
 * the release matrix (when SMQ_TEST_PGMQ_DIR is set).
 */
export const CONTRACT_FIXTURES: Record<string, () => BackendFixture> = {
  pgmq: fixtures.pgmq,
  'pgmq (dedicated connection)': () => {
    const fx = fixtures.pgmq();
    return { ...fx, open: (options) => fx.open({ dedicated: true, ...options }) };
  },
  sqlite: fixtures.sqlite,
  ...Object.fromEntries(inject('pgmqInstalls').map((i) => [i.label, realPgmqFixture(i.label, i.template)])),
};
