// After every run the tester reads the queue back (issue 13 item 16): a message the run
// acknowledged that is in the queue again was resurrected (its delete did not stick), a
// second row of one message is a duplicate, a row of this run that was never sent is
// unexpected, and an acknowledged send never received but found there is not lost.
// Deliveries alone cannot tell: such a row may stay invisible for a whole lease after the
// drain has ended. reconcile() is the whole step after the run: the count left in the queue,
// then the read-back, each call with a deadline and retried over a lost connection.
import type { Backend, Message } from '../backends/index.js';
import { isSmqError } from '../errors.js';
import { decodeBody } from './body.js';
import { errorText } from './failures.js';
import type { DeliveryChecker, FoundInQueue } from './checker.js';
import { withDeadline } from './lifecycle.js';
import { retryLostConnection } from './retry.js';

/** After the run: calls that failed on a lost connection are retried for this long (a restart settling). */
const END_RETRY_MS = 5000;
/** ... and for this long after an interrupt, which must end quickly. */
const END_RETRY_INTERRUPTED_MS = 300;
/** The main thread's own calls after the run wait at most this long for an answer (a hung server)... */
const END_CALL_MS = 10_000;
/** ... and this long after Ctrl-C or a failure. */
export const END_CALL_HURRIED_MS = 1000;

/** Rows read back at most (a queue holding more is read in part, and the report says so). */
export const READ_BACK_LIMIT = 200_000;
const PAGE = 1000;

export interface ReadBack {
  /** Rows read. */
  readonly scanned: number;
  /** The queue held more than READ_BACK_LIMIT rows: the rest were not judged. */
  readonly truncated: boolean;
  /** Rows without this run's id. */
  readonly foreign: number;
  /** This run's rows, by what they say about their message. */
  readonly found: Readonly<Record<FoundInQueue | 'malformed', number>>;
}

/**
 * Reads every row of the queue (visible or not, oldest first) into the checker. within: wraps
 * each page's call (a deadline: a store that stops answering must not hold the report back).
 */
export async function readBack(
  backend: Backend,
  queue: string,
  runId: string,
  checker: DeliveryChecker,
  within: (read: Promise<Message[]>) => Promise<Message[]> = (read) => read,
  senderOffset = 0,
): Promise<ReadBack> {
  const found: Record<FoundInQueue | 'malformed', number> = {
    notDrained: 0,
    resurrected: 0,
    duplicated: 0,
    unexpected: 0,
    uncertain: 0,
    known: 0,
    malformed: 0,
  };
  // Keys of this run met in this read-back: a second row with the same key is a second copy.
  const keys = new Set<number>();
  let scanned = 0;
  let foreign = 0;
  let afterId: bigint | undefined;
  for (;;) {
    const page = await within(
      backend.peek(queue, { limit: PAGE, state: 'all', order: 'oldest', ...(afterId !== undefined ? { afterId } : {}) }),
    );
    for (const m of page) {
      const body = decodeBody(m.body, runId);
      if (body.kind === 'foreign') {
        foreign += 1;
      } else if (body.kind === 'malformed') {
        checker.recordMalformed(String(m.id), false);
        found.malformed += 1;
      } else {
        const key = body.sender * 2 ** 32 + body.seq;
        const again = keys.has(key);
        keys.add(key);
        // A fan-out run: this queue's copies are the lanes from senderOffset on (fanout.ts).
        found[checker.recordInQueue(body.sender + senderOffset, body.seq, String(m.id), again)] += 1;
      }
    }
    scanned += page.length;
    if (page.length < PAGE) return { scanned, truncated: false, foreign, found };
    if (scanned >= READ_BACK_LIMIT) return { scanned, truncated: true, foreign, found };
    afterId = page[page.length - 1]!.id;
  }
}

/** What the read-back adds to the report's warnings. receivers: how many the run had (0: none ran). */
export function readBackWarnings(r: ReadBack, receivers = 1): string[] {
  const out: string[] = [];
  if (r.found.notDrained > 0 && receivers === 0) {
    out.push(
      `${r.found.notDrained} acknowledged message(s) are still in the queue: no receiver ran (--receivers 0), so they were not drained; not judged as lost`,
    );
  } else if (r.found.notDrained > 0) {
    out.push(
      `${r.found.notDrained} acknowledged message(s) were never received but are still in the queue ` +
        `(claimed by a receive whose answer was lost, or not yet visible): not counted as lost`,
    );
  }
  if (r.truncated) out.push(`the queue was read back in part (${r.scanned} rows): rows after them were not judged`);
  return out;
}

export const isLostConnection = (e: unknown) => isSmqError(e) && e.kind === 'connection';

/** The main thread's calls after the run: each with a deadline, retried over a lost connection until one shared end. */
export interface AfterRunCalls {
  /** call() answered within the deadline (a hung server must not hold the report back), retried. */
  call<T>(what: string, call: () => Promise<T>): Promise<T>;
  /** fn retried as it is (it sets deadlines of its own, given callMs). */
  retrying<T>(fn: () => Promise<T>): Promise<T>;
  readonly callMs: number;
}

/** failed: a worker already gave up on the store (or died): no waiting for it to come back. */
export function afterRunCalls(x: { failed: boolean; interrupted: boolean; outageTimeoutMs: number }): AfterRunCalls {
  const retryMs = x.failed ? 0 : x.interrupted ? END_RETRY_INTERRUPTED_MS : Math.min(END_RETRY_MS, x.outageTimeoutMs);
  const retryUntil = Date.now() + retryMs;
  // Every call now has a deadline of its own: a hung server must not hold the report back.
  const callMs = x.failed || x.interrupted ? END_CALL_HURRIED_MS : END_CALL_MS;
  const retrying = <T>(fn: () => Promise<T>) => retryLostConnection(retryUntil, fn);
  return { callMs, retrying, call: (what, call) => retrying(() => withDeadline(call(), callMs, what)) };
}

export interface Reconciliation {
  /** Messages left in the queue (null: it could not be read). */
  readonly messagesAfter: number | null;
  /** false: the store stopped answering (nothing more is asked of it). */
  readonly reachable: boolean;
  /** Why the run cannot back a verdict, and whether loss is judged, after what the queue said. */
  readonly failure: string | undefined;
  readonly judgeLoss: boolean;
  /** Rows without this run's id. */
  readonly foreignInQueue: number;
  readonly warnings: string[];
}

/**
 * After the run: how many messages are left, and the read-back into the checker. failure and
 * judgeLoss as the run ended; workerFailed: a worker gave up or died (no read-back then).
 */
export async function reconcile(
  backend: Backend,
  queue: string,
  runId: string,
  checker: DeliveryChecker,
  calls: AfterRunCalls,
  x: { failure: string | undefined; judgeLoss: boolean; workerFailed: boolean; senderOffset?: number; receivers?: number },
): Promise<Reconciliation> {
  let { failure, judgeLoss } = x;
  let messagesAfter: number | null;
  let reachable = true;
  let foreignInQueue = 0;
  const warnings: string[] = [];
  try {
    messagesAfter = (await calls.call('reading the queue', () => backend.queueStats(queue))).total;
  } catch (e) {
    messagesAfter = null;
    reachable = !isLostConnection(e);
    // Whatever the workers saw, a store that does not answer now cannot back a verdict.
    failure ??= `the queue cannot be read after the run: ${errorText(e)}`;
    judgeLoss = false;
  }
  // Read the queue back after every run: a row of this run that is there again (a delete
  // that did not stick), twice, or never sent is judged; an acknowledged send never
  // received but still there (claimed by a receive whose answer was lost) is not lost.
  if (reachable && !x.workerFailed) {
    try {
      const pageWithin = (read: Promise<Message[]>) => withDeadline(read, calls.callMs, 'reading the queue back');
      const back = await calls.retrying(() => readBack(backend, queue, runId, checker, pageWithin, x.senderOffset));
      foreignInQueue = back.foreign;
      warnings.push(...readBackWarnings(back, x.receivers));
    } catch (e) {
      reachable = !isLostConnection(e);
      const missing = checker.ackedSends - checker.ackedDelivered;
      if (judgeLoss && missing > 0) {
        failure = `cannot check the queue for the ${missing} acknowledged message(s) not received: ${errorText(e)}`;
        judgeLoss = false;
      } else {
        warnings.push(`the queue could not be read back after the run: ${errorText(e)}`);
      }
    }
  }
  return { messagesAfter, reachable, failure, judgeLoss, foreignInQueue, warnings };
}
