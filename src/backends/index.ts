// Opens the Backend a Target names. The one place that knows both implementations.
import { callTimeout, guardBackend, isCallTimeout, withDeadline } from './deadline.js';
import { describeTarget, type Target } from './target.js';
import type { Backend } from './types.js';

export interface OpenOptions {
  /** Enforced by the connection itself (Postgres default_transaction_read_only; SQLite opened read-only). */
  readonly readOnly?: boolean;
  /** SmoothMQ tenant (default 1). */
  readonly tenant?: number;
  /** SQLite: create the file (with SmoothMQ's DDL) when it does not exist. Default false. */
  readonly create?: boolean;
  /** Connection timeout; an unreachable server fails within this. Default 5000 ms. */
  readonly connectTimeoutMs?: number;
  /** pgmq: pool size (default 4). */
  readonly poolSize?: number;
  /** pgmq: default_transaction_isolation of every connection (default: the server's). */
  readonly isolation?: 'read-committed' | 'repeatable-read' | 'serializable';
  /**
   * pgmq: one caller drives this backend in a tight loop (a tester worker). Everything runs
   * on one dedicated connection through a lean protocol path (pgmq/wire.ts) instead of a pool.
   */
  readonly dedicated?: boolean;
  /**
   * Deadline of every call, opening included (see deadline.ts): a call that gets no answer
   * within it rejects with an SmqError of kind 'timeout' (isCallTimeout). Undefined: no
   * deadline. SQLite's busy timeout becomes this too (a locked file). A dedicated pgmq
   * backend enforces it per statement on its connection (the tester's hot path stays lean).
   */
  readonly callTimeoutMs?: number;
}

export async function openBackend(target: Target, options: OpenOptions = {}): Promise<Backend> {
  const ms = options.callTimeoutMs;
  if (ms === undefined) return openUnguarded(target, options);
  const location = describeTarget(target);
  const opening = openUnguarded(target, options);
  let backend: Backend;
  try {
    backend = await withDeadline(opening, ms, () => callTimeout(location, ms));
  } catch (e) {
    // Opened after all, too late: nobody will use it.
    if (isCallTimeout(e)) opening.then((b) => b.close(), () => undefined);
    throw e;
  }
  return options.dedicated ? backend : guardBackend(backend, ms, location);
}

async function openUnguarded(target: Target, options: OpenOptions): Promise<Backend> {
  if (target.kind === 'sqlite') {
    const { openSqliteBackend } = await import('./sqlite/backend.js');
    return openSqliteBackend(target.path, options);
  }
  const { openPgmqBackend } = await import('./pgmq/backend.js');
  return openPgmqBackend(target.url, options);
}

export type { Backend } from './types.js';
export * from './types.js';
