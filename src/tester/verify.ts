// After every run the tester reads the queue back (issue 13 item 16): a message the run
// acknowledged that is in the queue again was resurrected (its delete did not stick), a
// second row of one message is a duplicate, a row of this run that was never sent is
// unexpected, and an acknowledged send never received but found there is not lost.
// Deliveries alone cannot tell: such a row may stay invisible for a whole lease after the
// drain has ended.
import type { Backend, Message } from '../backends/index.js';
import { decodeBody } from './body.js';
import type { DeliveryChecker, FoundInQueue } from './checker.js';

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
    const page = await within(backend.peek(queue, { limit: PAGE, state: 'all', order: 'oldest', ...(afterId !== undefined ? { afterId } : {}) }));
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
        found[checker.recordInQueue(body.sender, body.seq, String(m.id), again)] += 1;
      }
    }
    scanned += page.length;
    if (page.length < PAGE) return { scanned, truncated: false, foreign, found };
    if (scanned >= READ_BACK_LIMIT) return { scanned, truncated: true, foreign, found };
    afterId = page[page.length - 1]!.id;
  }
}

/** What the read-back adds to the report's warnings. */
export function readBackWarnings(r: ReadBack): string[] {
  const out: string[] = [];
  if (r.found.notDrained > 0) {
    out.push(
      `${r.found.notDrained} acknowledged message(s) were never received but are still in the queue ` +
        `(claimed by a receive whose answer was lost, or not yet visible): not counted as lost`,
    );
  }
  if (r.truncated) out.push(`the queue was read back in part (${r.scanned} rows): rows after them were not judged`);
  return out;
}
