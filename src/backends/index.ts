// Opens the Backend a Target names. The one place that knows both implementations; the
// shared types (OpenOptions included) live in types.ts, which imports neither.
import { callTimeout, guardBackend, isCallTimeout, withDeadline } from './deadline.js';
import { describeTarget, type Target } from './target.js';
import type { Backend, InstallOptions, OpenOptions, PgmqInstall } from './types.js';

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
    if (isCallTimeout(e))
      opening.then(
        (b) => b.close(),
        () => undefined,
      );
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

/**
 * smq init on PostgreSQL: the pgmq extension when the server has it, else smq's
 * pgmq-compatible schema. Idempotent. (A SQLite file is made by openBackend with create.)
 */
export async function installPgmq(url: string | undefined, options: InstallOptions): Promise<PgmqInstall & { readonly location: string }> {
  const pgmq = await import('./pgmq/init.js');
  return pgmq.installPgmq(url, options);
}

export { redactSecrets } from './secrets.js';
export { LACKS, lacking, need, type Feature } from './features.js';
export type { Backend } from './types.js';
export * from './types.js';
/** The largest whole number of seconds (or count) either store takes: PostgreSQL's integer. */
export { MAX_WHOLE } from './validate.js';
