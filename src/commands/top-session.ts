// One store as `smq top` holds it: its backend (and, on a SmoothMQ file, the backends of the
// other tenants, opened when first needed), the connection as shown (password masked), and
// whether actions are off and why. Each context of top is one of these; top opens the one
// it starts on and the others when the operator switches to them, and closes all at the end.
import { existsSync } from 'node:fs';
import { openBackend, type Backend } from '../backends/index.js';
import { describeTarget, redactSecrets, secretsFor, type Target } from '../backends/target.js';
import { SmqError, usageError } from '../errors.js';
import { CONNECT_TIMEOUT_MS } from './context.js';

export interface TopSession {
  readonly backend: Backend;
  /** SmoothMQ: another tenant's backend (undefined where the store has no tenants). */
  readonly backendForTenant: ((tenant: number) => Promise<Backend>) | undefined;
  /** The connection, password masked. */
  readonly connection: string;
  readonly readOnly: boolean;
  readonly readOnlyReason: string;
  /** pgmq: only the queues of SmoothMQ's pgmq driver for this tenant (--tenant). */
  readonly tenantFilter: string | undefined;
  readonly close: () => Promise<void>;
}

export interface TopSessionOptions {
  readonly callTimeoutMs: number;
  /** --read-only, or the context's read-only. */
  readonly readOnly: boolean;
  /** Why, when readOnly (default: --read-only). */
  readonly readOnlyReason?: string | undefined;
  /** --tenant: a SmoothMQ file's tenant, or on pgmq the tenant whose queues are shown. */
  readonly tenant: number | undefined;
  /** Ask the store whether this role or file may write (interactive top only). */
  readonly checkWrites: boolean;
  readonly env: NodeJS.ProcessEnv;
}

export async function openTopSession(target: Target, o: TopSessionOptions): Promise<TopSession> {
  if (o.tenant !== undefined && !(Number.isSafeInteger(o.tenant) && o.tenant >= 1)) {
    throw usageError(`--tenant must be a positive integer, not ${String(o.tenant)}`);
  }
  if (target.kind === 'sqlite' && !existsSync(target.path)) {
    throw new SmqError('connection', `SQLite file ${JSON.stringify(target.path)} does not exist`, {
      hint: `create it with 'smq init --sqlite ${target.path}', or check the path`,
    });
  }
  // Without --tenant a SmoothMQ file shows every tenant's queues. On pgmq, --tenant picks
  // the queues SmoothMQ's pgmq driver keeps for that tenant (tnt_<hex>_<name>).
  const tenant = target.kind === 'sqlite' ? o.tenant : undefined;
  const tenantFilter = target.kind === 'pgmq' && o.tenant !== undefined ? String(o.tenant) : undefined;
  const open = (t: number | undefined) =>
    openBackend(target, {
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      // Every refresh, peek and action: a hung database shows as unreachable (the banner).
      callTimeoutMs: o.callTimeoutMs,
      readOnly: o.readOnly,
      ...(t === undefined ? {} : { tenant: t }),
    });
  const backend = await open(tenant);
  // SmoothMQ acts on one tenant per connection; the others are opened when first needed.
  const others = new Map<number, Promise<Backend>>();
  const mainTenant = tenant ?? 1;
  const backendForTenant = async (t: number): Promise<Backend> => {
    if (t === mainTenant) return backend;
    let b = others.get(t);
    if (!b) {
      b = open(t);
      others.set(t, b);
      b.catch(() => others.delete(t));
    }
    return b;
  };
  const close = async () => {
    const all = [backend, ...(await Promise.allSettled(others.values())).flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))];
    await Promise.allSettled([...new Set(all)].map((b) => b.close()));
  };
  // A role or file that may only read: top starts read-only and says why.
  const cannotWrite = o.readOnly || !o.checkWrites ? undefined : await backend.cannotWrite?.().catch(() => undefined);
  return {
    backend,
    backendForTenant: backend.capabilities.tenants ? backendForTenant : undefined,
    connection: describeTarget(target, o.env),
    readOnly: o.readOnly || cannotWrite !== undefined,
    readOnlyReason: cannotWrite ?? o.readOnlyReason ?? 'top was started with --read-only',
    tenantFilter,
    close,
  };
}

/**
 * An error of opening a store, as one line that holds none of its secrets (a context's URL
 * from the contexts file is not on the command line, where bin/smq finds the others).
 */
export function sessionError(e: unknown, target: Target, env: NodeJS.ProcessEnv): Error {
  const secrets = target.kind === 'pgmq' && target.url !== undefined ? secretsFor(['--url', target.url], env) : secretsFor([], env);
  if (e instanceof SmqError) {
    // The cause is kept for its code (ECONNREFUSED); its text is never shown.
    return new SmqError(e.kind, redactSecrets(e.message, secrets), {
      ...(e.hint === undefined ? {} : { hint: redactSecrets(e.hint, secrets) }),
      cause: e.cause,
    });
  }
  return new Error(redactSecrets(e instanceof Error ? e.message : String(e), secrets));
}
