// The classes a tester run sorts messages into, and the checker's counts and options
// (checker.ts holds the per-message state).

export type SendOutcome = 'acked' | 'uncertain';

export const EXAMPLE_CLASSES = [
  'lost',
  'doubleDequeued',
  'duplicated',
  'redelivered',
  'resurrected',
  'unexpected',
  'uncertain',
  'notDeleted',
  'groupOverlap',
  'reordered',
] as const;
export type ExampleClass = (typeof EXAMPLE_CLASSES)[number];

/** Every class of the reports' tables (text and HTML), in the HTML's order: those with examples, and those without. */
export const TABLE_CLASSES = ['ok', ...EXAMPLE_CLASSES, 'notDrained', 'foreign'] as const;
export type TableClass = (typeof TABLE_CLASSES)[number];

/** Each class as the reports name it (text and HTML), and what it means in a few words. */
export const CLASS_WORDS: Readonly<Record<TableClass, { readonly label: string; readonly meaning: string }>> = {
  ok: { label: 'ok', meaning: 'delivered and deleted (or archived) once by the tester' },
  lost: { label: 'lost', meaning: 'acknowledged by the queue, never delivered' },
  doubleDequeued: { label: 'double-dequeue', meaning: 'delivered to two receivers at once' },
  duplicated: { label: 'duplicated', meaning: 'exists twice (a copy, or acknowledged twice)' },
  redelivered: { label: 'redelivered', meaning: 'delivered again after its lease ran out' },
  resurrected: { label: 'resurrected', meaning: 'came back after its delete was acknowledged' },
  unexpected: { label: 'unexpected', meaning: 'delivered but never sent by this run' },
  uncertain: { label: 'uncertain', meaning: 'the send failed or its answer was lost' },
  notDeleted: {
    label: 'not deleted',
    meaning: 'delivered, but never deleted by the tester: its delete failed, or found no row (deleted by another client)',
  },
  groupOverlap: {
    label: 'group overlap',
    meaning: 'FIFO: delivered while a message of its group, delivered by another call, was leased and not acknowledged',
  },
  reordered: { label: 'reordered', meaning: 'FIFO: delivered before an earlier message of its group (same sender) was acknowledged' },
  notDrained: {
    label: 'not drained',
    meaning:
      'acknowledged by the queue, not received before the run ended (no receivers, interrupted) or still in the queue: not judged as lost',
  },
  foreign: { label: 'foreign', meaning: 'without this run’s id: received and handed back, or found in the queue; never deleted' },
};

/**
 * A message named in a report: sender and sequence, the queue's id of the message when a
 * delivery showed it, and (--topic) the bound queue of the copy.
 */
export interface MessageRef {
  readonly sender: number;
  readonly seq: number;
  readonly id?: string;
  readonly queue?: string;
}

export interface CheckerCounts {
  /** Sends the queue acknowledged. */
  readonly sent: number;
  /** Sends that failed or timed out (their messages are uncertain). */
  readonly sendFailed: number;
  /** Deliveries of this run's messages (redeliveries and duplicates included). */
  readonly received: number;
  /** Distinct messages delivered at least once. */
  readonly receivedUnique: number;
  /** Distinct messages whose delete (or archive) succeeded. */
  readonly acknowledged: number;
  /**
   * Acknowledgements of a message (one per message and attempt) made by a delete (or archive)
   * call that failed with an error; the calls themselves are calls.ackFailed.
   */
  readonly ackFailed: number;
  /**
   * Acknowledgements of a message whose call answered without removing its row: the row was
   * gone already (deleted by another client). No call failed.
   */
  readonly ackNotFound: number;
  // One class per message:
  readonly ok: number;
  readonly lost: number;
  readonly doubleDequeued: number;
  /** The queue held the message twice: another copy under a new id, or two successful deletes. */
  readonly duplicated: number;
  readonly redelivered: number;
  readonly resurrected: number;
  readonly unexpected: number;
  readonly uncertain: number;
  /**
   * Acknowledged sends not (yet) delivered: when loss was not judged (interrupted, send-only,
   * a failed run), or when the message was found still in the queue at the end.
   */
  readonly notDrained: number;
  /**
   * Delivered, but never deleted by the tester (no delete of it succeeded), and in no worse
   * class: not ok. Not a violation of the queue (a warning says why); of them:
   */
  readonly notDeleted: number;
  /** ...their delete failed (an error; the row stays unless removed otherwise), */
  readonly notDeletedAckFailed: number;
  /** ...their delete found no row (another client deleted it). The rest were never acknowledged. */
  readonly notDeletedNotFound: number;
  // FIFO groups (--groups; checker-fifo.ts), counted beside a message's class above:
  /** Delivered while a message of its group, delivered by another call, was leased and not acknowledged. */
  readonly groupOverlap: number;
  /** Delivered before an earlier-sent message of its group (same sender) was acknowledged, outside its batch. */
  readonly reordered: number;
}

export interface CheckerSummary {
  readonly counts: CheckerCounts;
  readonly examples: Readonly<Record<ExampleClass, readonly MessageRef[]>>;
  /** A drain of an earlier run (sendsUnknown): each sender's sequence numbers below its highest seen that never came. */
  readonly gaps?: readonly {
    readonly sender: number;
    readonly highest: number;
    readonly missing: number;
    readonly examples: readonly number[];
  }[];
}

export interface CheckerOptions {
  readonly senders: number;
  /** Messages per sender when the run has a fixed count (--messages); open-ended otherwise. */
  readonly capacityPerSender?: number | undefined;
  /** Queue-clock times are kept as uint32 ms after this epoch ms (range ~49 days). Default: now - 7 days. */
  readonly clockBaseMs?: number;
  readonly maxExamples?: number;
  /**
   * A drain of an earlier run's messages (--senders 0 --run-id): their sends were not seen
   * here, so a delivered message of the run is judged by its deliveries alone, never
   * unexpected, and one found in the queue is not drained.
   */
  readonly sendsUnknown?: boolean;
  /** --groups: the FIFO checker (checker-fifo.ts), fed the same events by the collector; its counts join the summary. */
  readonly fifo?: FifoJudge | undefined;
}

/** What a row found in the queue after the run says about its message. */
export type FoundInQueue = 'notDrained' | 'resurrected' | 'duplicated' | 'unexpected' | 'uncertain' | 'known';

/** Lost, double-dequeued, duplicated, resurrected, unexpected, group-overlapping and reordered messages fail a run; the rest do not. */
export function hasViolations(counts: CheckerCounts): boolean {
  const fifo = counts.groupOverlap + counts.reordered;
  return counts.lost + counts.doubleDequeued + counts.duplicated + counts.resurrected + counts.unexpected + fifo > 0;
}

/** The FIFO checker's final count (checker-fifo.ts). */
export interface FifoSummary {
  readonly groupOverlap: number;
  readonly reordered: number;
  readonly examples: { readonly groupOverlap: readonly MessageRef[]; readonly reordered: readonly MessageRef[] };
}

/** What the delivery checker asks of the FIFO checker. */
export interface FifoJudge {
  readonly violationsSoFar: number;
  /** delivered: whether the run ever delivered (sender, seq). */
  summarize(delivered: (sender: number, seq: number) => boolean): FifoSummary;
}
