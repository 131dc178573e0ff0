// --listen: receivers wait for the queue's insert notifications (pgmq 1.7+: a LISTEN on
// pgmq.q_<name>.INSERT, each receiver on a connection of its own) instead of polling an empty
// queue. Before any worker starts the run turns the notifications on for its queues (with
// --listen-throttle, default 0: one per inserting statement), and on a queue of the user's
// (--queue) puts the setting back after the run. A receiver whose read finds nothing waits
// for a notification or the fallback (--poll, else FALLBACK_MS), and then reads again.
import type { Backend, NotifyInsertSetting, ServerInfo } from '../backends/index.js';
import { SmqError } from '../errors.js';
import type { TesterConfig } from './config.js';
import { errorText } from './failures.js';

/** Without --poll, a waiting receiver reads again after this long even without a notification. */
export const FALLBACK_MS = 250;

/** The wait after an empty read when no notification comes (lost, throttled, or never sent). */
export const listenFallbackMs = (c: Pick<TesterConfig, 'pollSec'>): number => (c.pollSec !== undefined ? c.pollSec * 1000 : FALLBACK_MS);

/** What the run did to its queues' notification settings, to put back afterwards. */
export interface ListenSetup {
  readonly throttleMs: number;
  readonly fallbackMs: number;
  /** Queues of the user's whose setting the run changed: what it was (null: off). */
  readonly restore: { readonly queue: string; readonly before: number | null }[];
}

/** Refused (exit 2) before anything is created: a store without insert notifications. */
export function checkListenSupport(backend: Backend, c: TesterConfig, info: ServerInfo): void {
  if (!c.listen) return;
  if (!backend.capabilities.notifyInsert || !backend.listenInserts || !backend.setNotifyInsert || !backend.notifyInsertSettings) {
    throw new SmqError('usage', `--listen waits for insert notifications (pgmq 1.7+), and this store (${info.schema}) has none`, {
      hint: 'drop --listen (receivers then poll), or use --read poll on pgmq',
    });
  }
}

/**
 * Turns the notifications on for the run's queues (they exist now); returns the setup and the
 * one line to say when the store will never notify a queue (a name with capitals on real pgmq).
 */
export async function enableListen(
  backend: Backend,
  c: TesterConfig,
  queues: readonly { readonly name: string; readonly created: boolean }[],
  info: ServerInfo,
): Promise<{ setup: ListenSetup; warning: string | undefined } | undefined> {
  if (!c.listen) return undefined;
  const throttleMs = c.listenThrottleMs ?? 0;
  const fallbackMs = listenFallbackMs(c);
  const before = new Map<string, NotifyInsertSetting>();
  for (const s of await backend.notifyInsertSettings!()) before.set(s.queue.toLowerCase(), s);
  const restore: ListenSetup['restore'][number][] = [];
  for (const q of queues) {
    const was = before.get(q.name.toLowerCase());
    if (was?.throttleMs === throttleMs) continue;
    await backend.setNotifyInsert!(q.name, throttleMs);
    if (!q.created) restore.push({ queue: q.name, before: was ? was.throttleMs : null });
  }
  const capitals = backend.capabilities.notifyCapitals ? undefined : queues.find((q) => q.name !== q.name.toLowerCase());
  const warning = capitals
    ? `--listen: ${info.schema} never notifies a queue named with capitals (${capitals.name}): its receivers wake only by the ${fallbackMs} ms fallback`
    : undefined;
  return { setup: { throttleMs, fallbackMs, restore }, warning };
}

/** After the run: the user's queues get their settings back; returns the warning when one could not. */
export async function restoreListen(backend: Backend, setup: ListenSetup | undefined): Promise<string | undefined> {
  for (const r of setup?.restore ?? []) {
    try {
      await backend.setNotifyInsert!(r.queue, r.before);
    } catch (e) {
      return `the insert notifications of ${r.queue} were not put back (${r.before === null ? 'off' : `${r.before} ms`}): ${errorText(e)}`;
    }
  }
  return undefined;
}
