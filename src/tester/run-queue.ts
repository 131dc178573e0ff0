// The run's queue: made ready before any worker starts (created, or an existing one checked
// for what the run may do to it), and after the run dropped when the run created it.
import type { Backend, ServerInfo } from '../backends/index.js';
import { validateQueueName } from '../backends/names.js';
import { SmqError } from '../errors.js';
import type { TesterConfig } from './config.js';
import { checkConnections } from './connections.js';
import { checkListenSupport } from './listen.js';
import { errorText } from './failures.js';
import { END_CALL_HURRIED_MS, type AfterRunCalls } from './verify.js';
import { withDeadline } from './lifecycle.js';

/** The queue a run uses: --queue, or a fresh one named after the run. */
export function runQueueName(config: TesterConfig, runId: string): string {
  // --topic: the first bound queue stands for the run's (fanout.ts creates and drops them all).
  return config.queue ?? config.fanout?.binds[0]?.queue ?? `smq_tester_${runId.replace(/-/g, '_')}`.toLowerCase();
}

/** What the run did to its queue; `created` is set as soon as it is true, so that a failure after it still drops the queue. */
export interface RunQueue {
  readonly name: string;
  created: boolean;
  /** Its drop was asked for (it may not have ended); dropped: it did. */
  dropping?: boolean;
  dropped: boolean;
}

export interface PreparedQueue {
  readonly info: ServerInfo;
  readonly messagesBefore: number;
  /** Receivers ask for this run's messages only (see WorkerSetup.receiveByRunId). */
  readonly receiveByRunId: boolean;
}

/**
 * Refuses what the run cannot do on this store (a usage problem: exit 2) before creating
 * anything it can refuse earlier; creates the queue (senders) or finds it (a drain).
 */
export async function prepareQueue(backend: Backend, c: TesterConfig, queue: RunQueue): Promise<PreparedQueue> {
  validateQueueName(backend.kind, queue.name);
  if (c.ack === 'archive' && !backend.capabilities.archive) {
    throw new SmqError('usage', '--ack archive needs a store with an archive', { hint: 'use --ack delete' });
  }
  const info = await backend.info();
  checkFifoSupport(backend, c, info);
  checkListenSupport(backend, c, info);
  await checkConnections(backend, c.senders, c.receivers, c.listen);
  if (c.senders > 0) queue.created = await backend.createQueue(queue.name, { visibilityTimeoutSec: c.vtSec, maxRetries: -1 });
  const before = await backend.queueStats(queue.name); // a drain (--senders 0): throws queue-not-found
  const messagesBefore = before.total;
  // A drain (--senders 0) is meant for a queue that holds messages: it deletes only its run's.
  if (messagesBefore > 0 && !c.allowForeign && c.senders > 0) {
    // Its messages are someone's: the run would take them in turns with their consumers.
    throw new SmqError('usage', `the queue ${queue.name} holds ${messagesBefore} message(s) from before the run`, {
      hint: 'name an empty queue (or none: a fresh one), or give --allow-foreign: the tester then leaves them untouched (pgmq 1.4: hands them back)',
    });
  }
  // Others' messages in the queue: receivers take only this run's where the store can filter
  // (normal runs keep the plain receive, whose speed is what is measured).
  const receiveByRunId = messagesBefore > 0 && backend.capabilities.receiveByRunId;
  // Every receive uses up one of a SmoothMQ message's tries: a handed-back message would
  // reach its limit and fail, never to be delivered to its own consumer (unless the
  // receivers never take it: the store filters by run id).
  if (messagesBefore > 0 && !receiveByRunId && before.maxRetries !== undefined && before.maxRetries >= 0) {
    throw new SmqError(
      'usage',
      `the queue ${queue.name} gives each message ${before.maxRetries} tries, and holds ${messagesBefore} message(s) from before the run`,
      {
        hint: 'receiving them would use up their tries: use an empty queue, or one with unlimited tries (max_retries -1)',
      },
    );
  }
  return { info, messagesBefore, receiveByRunId };
}

/** --groups and the grouped reads need what this pgmq offers: refused (exit 2) before anything is created. */
function checkFifoSupport(backend: Backend, c: TesterConfig, info: ServerInfo): void {
  const caps = backend.capabilities;
  const read = c.read ?? 'plain';
  const refuse = (what: string, hint: string) => {
    throw new SmqError('usage', `${what}, and this store (${info.schema}) has none`, { hint });
  };
  if ((c.groups ?? 0) > 0 && !caps.headers)
    refuse('--groups tags messages with the x-pgmq-group header', 'pgmq 1.5 added headers, 1.9 FIFO groups');
  if (read.startsWith('grouped') && (!caps.groups || !backend.receiveGrouped)) {
    refuse(`--read ${read} needs pgmq's grouped reads (pgmq 1.9+)`, 'use --read plain or poll, or upgrade pgmq');
  }
  if (read === 'grouped-head' && !caps.groupedHead)
    refuse('--read grouped-head needs read_grouped_head (pgmq 1.12+)', 'use --read grouped or grouped-rr');
}

/** Only the fresh queue of the run is dropped; a queue named with --queue is the user's. */
export function dropsQueue(c: TesterConfig, queue: RunQueue): boolean {
  return queue.created && c.queue === undefined && !c.keep;
}

/** A queue the run created to drop after it and has not dropped yet; maybe: its drop is under way. */
export interface LeftQueue {
  readonly name: string;
  readonly maybe: boolean;
}

/** The queues the run created to drop after it, not dropped yet (--topic: the bound queues it created, not yet being dropped). */
export function queuesLeft(c: TesterConfig, queue: RunQueue, fanoutCreated: readonly string[] | undefined): LeftQueue[] {
  if (fanoutCreated) return c.keep ? [] : fanoutCreated.map((name) => ({ name, maybe: false }));
  return dropsQueue(c, queue) && !queue.dropped ? [{ name: queue.name, maybe: queue.dropping === true }] : [];
}

/** After the run: drops the run's own queue; returns the warning when it could not. */
export async function dropRunQueue(
  backend: Backend,
  c: TesterConfig,
  queue: RunQueue,
  calls: AfterRunCalls,
  reachable: boolean,
): Promise<string | undefined> {
  if (!dropsQueue(c, queue)) return undefined;
  try {
    if (!reachable) throw new SmqError('connection', 'the database is unreachable');
    queue.dropping = true;
    await calls.call('dropping the queue', () => backend.dropQueue(queue.name));
    queue.dropped = true;
    return undefined;
  } catch (e) {
    return `the queue ${queue.name} created for the run was not dropped: ${errorText(e)}`;
  }
}

/** The run failed before its report: its own queue goes, without waiting long (best effort). */
export async function abandonRunQueue(backend: Backend, c: TesterConfig, queue: RunQueue): Promise<void> {
  if (!dropsQueue(c, queue) || queue.dropped) return;
  queue.dropping = true;
  await withDeadline(backend.dropQueue(queue.name), END_CALL_HURRIED_MS, 'dropping the queue').catch(() => undefined);
}
