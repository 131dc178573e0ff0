// What deserves a colour on top's screens: messages and counts by state, and a queue whose
// head has stalled. Pure: the components map a tone to a colour (none under NO_COLOR,
// where the words and numbers say the same thing).
import type { Message } from '../../backends/types.js';
import type { ColumnId } from './columns.js';
import type { QueueRow } from './rows.js';

export type Tone = 'inflight' | 'delayed' | 'failed' | 'stalled';

/** Ink colour names, one per tone. */
export const TONE_COLOR: Record<Tone, string> = { inflight: 'yellow', delayed: 'blue', failed: 'red', stalled: 'red' };

/**
 * A head that has waited this long with nothing leaving the queue is stalled: no consumer,
 * or a consumer failing on the message at the head.
 */
export const STALLED_AFTER_SEC = 60;

export function isStalled(row: QueueRow): boolean {
  const s = row.stats;
  return s.ready > 0 && (s.oldestAgeSec ?? 0) >= STALLED_AFTER_SEC && row.rate.outPerSec === 0;
}

/** The tone of one cell of the queue list: a non-zero count of a state, a stalled head's age. */
export function queueCellTone(row: QueueRow, column: ColumnId): Tone | undefined {
  const s = row.stats;
  switch (column) {
    case 'inFlight':
      return s.inFlight > 0 ? 'inflight' : undefined;
    case 'delayed':
      return s.delayed > 0 ? 'delayed' : undefined;
    case 'failed':
      return (s.failed ?? 0) > 0 ? 'failed' : undefined;
    case 'oldest':
      return isStalled(row) ? 'stalled' : undefined;
    default:
      return undefined;
  }
}

/** The tone of a message's row in the queue view: its state (ready is plain). */
export function messageTone(m: Message): Tone | undefined {
  return m.state === 'ready' ? undefined : m.state;
}
