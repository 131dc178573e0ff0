// The delivery checker's final count (DeliveryChecker.summarize): one pass over every
// message's slot (checker-slots.ts), each message put in exactly one class.
import type { CheckerCounts, MessageRef } from './classes.js';
import {
  CHUNK_SIZE,
  F_ACK_FAILED,
  F_ACK_NOT_FOUND,
  F_DELETED,
  F_DOUBLE,
  F_DUPLICATED,
  F_IN_QUEUE,
  F_REDELIVERED,
  F_RESURRECTED,
  SEND_ACKED,
  SEND_MASK,
  SEND_NONE,
  SEND_UNCERTAIN,
  type Chunk,
} from './checker-slots.js';

/** Told each message found lost, resurrected or duplicated (the failover's words, servers.ts). */
export type TallyEach = (cls: 'lost' | 'resurrected' | 'duplicated', sender: number, seq: number) => void;

export type TallyEvery = (cls: string, sender: number, seq: number, sent: boolean) => void;

export interface TallyInput {
  /** Per sender, its chunks (undefined: never touched). */
  readonly chunks: readonly (readonly (Chunk | undefined)[])[];
  /** A drain of an earlier run: sends were never seen. */
  readonly sendsUnknown: boolean;
  /** Senders whose thread died: their unreported messages are uncertain. */
  readonly unreportedSenders: ReadonlySet<number>;
  /** Queue ids of deliveries whose send was never reported (key sender * 2^32 + seq). */
  readonly pendingIds: ReadonlyMap<number, string>;
  readonly maxExamples: number;
  /** false: acknowledged sends never delivered are notDrained, not lost. */
  readonly judgeLoss: boolean;
  readonly each?: TallyEach | undefined;
  /** Told every message's final class, and whether its send was acknowledged (fan-out: per-queue counts). */
  readonly every?: TallyEvery | undefined;
  /** Deliveries already counted unexpected (out of range, malformed), and their examples. */
  readonly outOfRange: number;
  readonly unexpectedExamples: readonly MessageRef[];
  /** Queue ids of messages whose delete did not remove them (key sender * 2^32 + seq). */
  readonly notDeletedIds?: ReadonlyMap<number, string>;
}

/**
 * The notDeleted class: delivered, never deleted by the tester (its deletes failed, found no
 * row, or never came), and nothing worse: a message of the run whose send was acknowledged
 * (or, draining an earlier run, unknown), neither double-dequeued, duplicated nor resurrected.
 */
export function isNotDeleted(f: number, deliveries: number, sendsUnknown: boolean): boolean {
  if (deliveries === 0 || f & (F_DELETED | F_DOUBLE | F_DUPLICATED | F_RESURRECTED)) return false;
  const state = f & SEND_MASK;
  return state === SEND_ACKED || (state === SEND_NONE && sendsUnknown);
}

export type Tally = Pick<
  CheckerCounts,
  | 'ok'
  | 'lost'
  | 'doubleDequeued'
  | 'duplicated'
  | 'redelivered'
  | 'resurrected'
  | 'unexpected'
  | 'uncertain'
  | 'notDrained'
  | 'notDeleted'
  | 'notDeletedAckFailed'
  | 'notDeletedNotFound'
> & {
  readonly notDeletedExamples: MessageRef[];
  readonly lostExamples: MessageRef[];
  readonly uncertainExamples: MessageRef[];
  readonly unexpectedExamples: MessageRef[];
  /** sendsUnknown: each sender's gaps below the highest sequence number seen (SequenceGaps). */
  readonly gaps: SequenceGaps[];
};

/**
 * A drain of an earlier run (sendsUnknown): a sender numbers its messages 0, 1, 2, … so the
 * numbers below the highest one seen (delivered or found in the queue) that never came are
 * gaps: lost, or messages whose send failed in the earlier run, or that a receiver of it took.
 * The drain cannot tell which; it names them.
 */
export interface SequenceGaps {
  readonly sender: number;
  readonly highest: number;
  readonly missing: number;
  /** The first few missing sequence numbers. */
  readonly examples: number[];
}

const GAP_EXAMPLES = 5;

export function tallyMessages(x: TallyInput): Tally {
  let ok = 0;
  let lost = 0;
  let doubleDequeued = 0;
  let duplicated = 0;
  let redelivered = 0;
  let resurrected = 0;
  let unexpected = x.outOfRange;
  let uncertain = 0;
  let notDrained = 0;
  let notDeleted = 0;
  let notDeletedAckFailed = 0;
  let notDeletedNotFound = 0;
  const notDeletedExamples: MessageRef[] = [];
  const lostExamples: MessageRef[] = [];
  const uncertainExamples: MessageRef[] = [];
  const unexpectedExamples = [...x.unexpectedExamples];
  const gaps: SequenceGaps[] = [];
  for (let sender = 0; sender < x.chunks.length; sender++) {
    const perSender = x.chunks[sender]!;
    if (x.sendsUnknown) {
      const g = sequenceGaps(sender, perSender);
      if (g) gaps.push(g);
    }
    for (let ci = 0; ci < perSender.length; ci++) {
      const c = perSender[ci];
      if (!c) continue;
      const { flags, deliveries } = c;
      for (let i = 0; i < flags.length; i++) {
        const f = flags[i]!;
        const n = deliveries[i]!;
        const state = f & SEND_MASK;
        if (state === SEND_NONE && n === 0 && !(f & F_IN_QUEUE)) continue;
        const before = x.every && {
          ok,
          lost,
          doubleDequeued,
          duplicated,
          redelivered,
          resurrected,
          unexpected,
          uncertain,
          notDrained,
          notDeleted,
        };
        // Delivered, never deleted by the tester (isNotDeleted): counted below, with why.
        let undeleted = false;
        if (f & F_DOUBLE) doubleDequeued += 1;
        else if (f & F_DUPLICATED) {
          duplicated += 1;
          x.each?.('duplicated', sender, ci * CHUNK_SIZE + i);
        } else if (f & F_RESURRECTED) {
          resurrected += 1;
          x.each?.('resurrected', sender, ci * CHUNK_SIZE + i);
        } else if (state === SEND_NONE && x.sendsUnknown) {
          if (n === 0) notDrained += 1;
          else if (!(f & F_DELETED)) undeleted = true;
          else if (f & F_REDELIVERED) redelivered += 1;
          else ok += 1;
        } else if (state === SEND_NONE && x.unreportedSenders.has(sender)) {
          uncertain += 1;
          if (uncertainExamples.length < x.maxExamples) uncertainExamples.push({ sender, seq: ci * CHUNK_SIZE + i });
        } else if (state === SEND_NONE) {
          unexpected += 1;
          if (unexpectedExamples.length < x.maxExamples) {
            const seq = ci * CHUNK_SIZE + i;
            const id = x.pendingIds.get(sender * 2 ** 32 + seq);
            unexpectedExamples.push(id === undefined ? { sender, seq } : { sender, seq, id });
          }
        } else if (state === SEND_UNCERTAIN) {
          uncertain += 1;
          if (uncertainExamples.length < x.maxExamples) uncertainExamples.push({ sender, seq: ci * CHUNK_SIZE + i });
        } else if (n === 0) {
          if (x.judgeLoss && !(f & F_IN_QUEUE)) {
            lost += 1;
            x.each?.('lost', sender, ci * CHUNK_SIZE + i);
            if (lostExamples.length < x.maxExamples) lostExamples.push({ sender, seq: ci * CHUNK_SIZE + i });
          } else {
            notDrained += 1;
          }
        } else if (!(f & F_DELETED)) undeleted = true;
        else if (f & F_REDELIVERED) redelivered += 1;
        else ok += 1;
        if (undeleted) {
          // Why: a delete that found no row says the row is gone; else one failed; else none was made.
          notDeleted += 1;
          if (f & F_ACK_NOT_FOUND) notDeletedNotFound += 1;
          else if (f & F_ACK_FAILED) notDeletedAckFailed += 1;
          if (notDeletedExamples.length < x.maxExamples) {
            const seq = ci * CHUNK_SIZE + i;
            const id = x.notDeletedIds?.get(sender * 2 ** 32 + seq);
            notDeletedExamples.push(id === undefined ? { sender, seq } : { sender, seq, id });
          }
        }
        if (before) {
          const now = { ok, lost, doubleDequeued, duplicated, redelivered, resurrected, unexpected, uncertain, notDrained, notDeleted };
          const cls = (Object.keys(now) as (keyof typeof now)[]).find((k) => now[k] !== before[k]) ?? 'none';
          x.every!(cls, sender, ci * CHUNK_SIZE + i, state === SEND_ACKED);
        }
      }
    }
  }
  return {
    ok,
    lost,
    doubleDequeued,
    duplicated,
    redelivered,
    resurrected,
    unexpected,
    uncertain,
    notDrained,
    notDeleted,
    notDeletedAckFailed,
    notDeletedNotFound,
    notDeletedExamples,
    lostExamples,
    uncertainExamples,
    unexpectedExamples,
    gaps,
  };
}

/** A sender's gaps below its highest sequence number seen (delivered or found in the queue); undefined: none. */
function sequenceGaps(sender: number, perSender: readonly (Chunk | undefined)[]): SequenceGaps | undefined {
  const seen = (c: Chunk | undefined, i: number) => c !== undefined && (c.deliveries[i]! > 0 || (c.flags[i]! & F_IN_QUEUE) !== 0);
  let highest = -1;
  let count = 0;
  for (let ci = 0; ci < perSender.length; ci++) {
    const c = perSender[ci];
    if (!c) continue;
    for (let i = 0; i < c.flags.length; i++) {
      if (!seen(c, i)) continue;
      count += 1;
      highest = ci * CHUNK_SIZE + i;
    }
  }
  const missing = highest + 1 - count;
  if (missing <= 0) return undefined;
  const examples: number[] = [];
  for (let seq = 0; seq < highest && examples.length < GAP_EXAMPLES; seq++) {
    if (!seen(perSender[Math.floor(seq / CHUNK_SIZE)], seq % CHUNK_SIZE)) examples.push(seq);
  }
  return { sender, highest, missing, examples };
}
