// The delivery checker: classifies every message of a run from what senders and receivers
// report. It is pure (no I/O, no clock) so it can be tested as a function of its inputs.
//
// Memory: 15 bytes per message in typed arrays (checker-slots.ts); 10 million take 150 MB.
//
// Order of events: the checker expects deliveries and acknowledgements in the order they
// happened on the process's monotonic clock (delivery keyed by the start of its receive
// call, acknowledgement by the end of its delete call); OrderedEventMerger provides that
// order across receivers. Send outcomes may come at any time.
//
// Double-dequeue is judged on the queue's own clock: a delivery that starts (pgmq
// last_read_at, SmoothMQ delivered_at) while an earlier delivery's lease (pgmq vt,
// SmoothMQ deliver_at) has not expired. Receive calls that overlap in time can reach the
// database in the other order; a delivery whose start is earlier than one already seen is
// therefore judged against that later one (its own lease must end before the later start).

import type { CheckerOptions, CheckerSummary, FoundInQueue, MessageRef, SendOutcome } from './classes.js';
import {
  CHUNK_MASK,
  F_ACK_FAILED,
  F_ACK_NOT_FOUND,
  F_DELETED,
  F_DOUBLE,
  F_DUPLICATED,
  F_IN_QUEUE,
  F_REDELIVERED,
  F_RESURRECTED,
  idHash,
  isIndex,
  SEND_ACKED,
  SEND_MASK,
  SEND_NONE,
  SEND_UNCERTAIN,
  SlotTable,
  toClock,
  type Chunk,
} from './checker-slots.js';
import { isNotDeleted, tallyMessages, type TallyEach, type TallyEvery } from './checker-tally.js';

export * from './classes.js';
export { CHUNK_BITS, CHUNK_SIZE, MAX_SEQ } from './checker-slots.js';

const OUT_OF_RANGE_DEDUP_LIMIT = 100_000;
const PENDING_ID_LIMIT = 10_000;

export class DeliveryChecker {
  readonly senders: number;
  private readonly sendsUnknown: boolean;
  private readonly clockBaseMs: number;
  private readonly maxExamples: number;
  /** Messages flagged double-dequeued, duplicated or resurrected so far (each flag once per message). */
  private flaggedSoFar = 0;
  private readonly slots: SlotTable;
  private readonly fifo: CheckerOptions['fifo'];

  private sentCount = 0;
  private sendFailedCount = 0;
  private deliveryCount = 0;
  private uniqueCount = 0;
  private deletedCount = 0;
  private ackFailedCount = 0;
  private ackNotFoundCount = 0;
  private ackedDeliveredCount = 0;
  private outOfRangeCount = 0;
  private readonly outOfRangeSeen = new Set<string>();
  /** Senders whose thread died: what they sent last was never reported (uncertain, not unexpected). */
  private readonly unreportedSenders = new Set<number>();
  /** Queue ids of deliveries whose send was not reported yet, to name them if they stay unexpected. */
  private readonly pendingIds = new Map<number, string>();
  /** Queue ids of messages whose delete did not remove them, to name them if they stay not deleted. */
  private readonly notDeletedIds = new Map<number, string>();
  private readonly detected: Record<'doubleDequeued' | 'duplicated' | 'redelivered' | 'resurrected' | 'unexpected', MessageRef[]> = {
    doubleDequeued: [],
    duplicated: [],
    redelivered: [],
    resurrected: [],
    unexpected: [],
  };

  constructor(options: CheckerOptions) {
    if (!isIndex(options.senders)) throw new RangeError('senders must be a whole number');
    this.senders = options.senders;
    this.sendsUnknown = options.sendsUnknown === true;
    this.clockBaseMs = options.clockBaseMs ?? Date.now() - 7 * 86_400_000;
    this.maxExamples = options.maxExamples ?? 10;
    this.slots = new SlotTable(this.senders, options.capacityPerSender, this.sendsUnknown);
    this.fifo = options.fifo;
  }

  /** Bytes held in per-message typed arrays. */
  get byteLength(): number {
    return this.slots.byteLength;
  }
  /** Sends acknowledged by the queue. */
  get ackedSends(): number {
    return this.sentCount;
  }
  get uncertainSends(): number {
    return this.sendFailedCount;
  }
  /** Acknowledged sends delivered at least once: the drain is complete when this reaches ackedSends. */
  get ackedDelivered(): number {
    return this.ackedDeliveredCount;
  }
  /** Distinct messages whose delete (or archive) succeeded. */
  get ackedDeletes(): number {
    return this.deletedCount;
  }
  get deliveries(): number {
    return this.deliveryCount;
  }
  /**
   * Grows whenever the drain makes progress: a message delivered for the first time, or an
   * acknowledged send found delivered. Redeliveries leave it as it is (drain.ts).
   */
  get progressMark(): number {
    return this.uniqueCount + this.ackedDeliveredCount;
  }
  /** (sender, seq) is a message this run may hold (in range) that no delivery has shown yet. */
  awaitsFirstDelivery(sender: number, seq: number): boolean {
    return this.slots.deliveriesOf(sender, seq) === 0;
  }
  /** Violations seen so far that no later event can undo (double-dequeue, duplicate, resurrection, out-of-range). */
  get violationsSoFar(): number {
    const fifo = this.fifo?.violationsSoFar ?? 0;
    return this.flaggedSoFar + this.outOfRangeCount + fifo;
  }

  private example(list: MessageRef[], ref: MessageRef): void {
    if (list.length < this.maxExamples) list.push(ref);
  }

  private outOfRange(sender: number, seq: number, id: string | undefined): void {
    const key = `${sender}:${seq}`;
    if (this.outOfRangeSeen.has(key)) return;
    if (this.outOfRangeSeen.size < OUT_OF_RANGE_DEDUP_LIMIT) this.outOfRangeSeen.add(key);
    this.outOfRangeCount += 1;
    this.example(this.detected.unexpected, id === undefined ? { sender, seq } : { sender, seq, id });
  }

  /** A sender's outcome for messages firstSeq .. firstSeq+count-1. */
  recordSend(sender: number, firstSeq: number, count: number, outcome: SendOutcome): void {
    if (count <= 0) return;
    if (!this.slots.inRange(sender, firstSeq) || !this.slots.inRange(sender, firstSeq + count - 1)) {
      throw new RangeError(`send report out of range: sender ${sender}, seq ${firstSeq}+${count}`);
    }
    const last = firstSeq + count - 1;
    this.slots.reported(sender, last);
    const state = outcome === 'acked' ? SEND_ACKED : SEND_UNCERTAIN;
    for (let seq = firstSeq; seq <= last; seq++) {
      const c = this.slots.chunk(sender, seq, true)!;
      const i = seq & CHUNK_MASK;
      const f = c.flags[i]!;
      if ((f & SEND_MASK) !== SEND_NONE) continue; // reported once; a repeat changes nothing
      c.flags[i] = f | state;
      if (state === SEND_ACKED) {
        this.sentCount += 1;
        if (c.deliveries[i]! > 0) this.ackedDeliveredCount += 1;
      } else {
        this.sendFailedCount += 1;
      }
      if (this.pendingIds.size > 0) this.pendingIds.delete(sender * 2 ** 32 + seq);
    }
  }

  /**
   * A delivery of (sender, seq): startMs and leaseUntilMs on the queue's clock.
   * Call in the order receive calls started (see OrderedEventMerger). deliveredBefore: the
   * queue's read count says it handed the message out before, in a delivery the tester never
   * saw (a receive whose answer was lost with its connection); its first delivery seen here
   * is then a redelivery, not an ok one.
   */
  recordDelivery(sender: number, seq: number, startMs: number, leaseUntilMs: number, id?: string, deliveredBefore = false): void {
    this.deliveryCount += 1;
    if (!this.slots.inRange(sender, seq)) return this.outOfRange(sender, seq, id);
    const c = this.slots.chunk(sender, seq, true);
    if (!c) return this.outOfRange(sender, seq, id);
    const i = seq & CHUNK_MASK;
    const f = c.flags[i]!;
    const n = c.deliveries[i]!;
    const s = toClock(startMs, this.clockBaseMs);
    const e = toClock(leaseUntilMs, this.clockBaseMs);
    const ref = (): MessageRef => (id === undefined ? { sender, seq } : { sender, seq, id });
    const h = id === undefined ? 0 : idHash(id);
    if (n === 0) {
      c.lastStart[i] = s;
      c.maxLeaseEnd[i] = e;
      c.firstId[i] = h;
      this.uniqueCount += 1;
      if ((f & SEND_MASK) === SEND_ACKED) this.ackedDeliveredCount += 1;
      else if ((f & SEND_MASK) === SEND_NONE && id !== undefined && this.pendingIds.size < PENDING_ID_LIMIT) {
        this.pendingIds.set(sender * 2 ** 32 + seq, id);
      }
      if (deliveredBefore && !(f & F_REDELIVERED)) {
        c.flags[i] = f | F_REDELIVERED;
        this.example(this.detected.redelivered, ref());
      }
    } else {
      let flag: number;
      if (h !== 0 && c.firstId[i] !== 0 && h !== c.firstId[i]) {
        // Another row with the same key: the queue holds the message twice (whether or not
        // the first copy's lease or delete came before).
        flag = F_DUPLICATED;
      } else if (f & F_DELETED) {
        flag = F_RESURRECTED;
      } else {
        const last = c.lastStart[i]!;
        // In order: does it start inside a lease already given? Out of order: does its own
        // lease reach past the start of the later delivery we already saw?
        const overlaps = s >= last ? s < c.maxLeaseEnd[i]! : e > last;
        flag = overlaps ? F_DOUBLE : F_REDELIVERED;
      }
      if (!(f & flag)) {
        c.flags[i] = f | flag;
        this.flagged(flag);
        this.example(this.listOf(flag), ref());
      }
      if (s > c.lastStart[i]!) c.lastStart[i] = s;
      if (e > c.maxLeaseEnd[i]!) c.maxLeaseEnd[i] = e;
    }
    if (n < 255) c.deliveries[i] = n + 1;
  }

  /** Whether the tally (checker-tally.ts) puts (sender, seq) in the notDeleted class. */
  private notDeletedClass(sender: number, seq: number): boolean {
    const c = this.slots.inRange(sender, seq) ? this.slots.chunk(sender, seq, false) : undefined;
    if (!c) return false;
    const i = seq & CHUNK_MASK;
    return isNotDeleted(c.flags[i]!, c.deliveries[i]!, this.sendsUnknown);
  }

  private listOf(flag: number): MessageRef[] {
    if (flag === F_RESURRECTED) return this.detected.resurrected;
    if (flag === F_DOUBLE) return this.detected.doubleDequeued;
    if (flag === F_DUPLICATED) return this.detected.duplicated;
    return this.detected.redelivered;
  }

  private flagOnce(c: Chunk, i: number, flag: number, ref: MessageRef): void {
    const f = c.flags[i]!;
    if (f & flag) return;
    c.flags[i] = f | flag;
    this.flagged(flag);
    this.example(this.listOf(flag), ref);
  }

  /** A message newly flagged: the live count of violations (the examples stop at maxExamples). */
  private flagged(flag: number): void {
    if (flag !== F_REDELIVERED) this.flaggedSoFar += 1;
  }

  /**
   * A receiver's delete (or archive) of (sender, seq): ok when the queue removed it. A second
   * successful one means a second row: under another queue id than the first delivery's, a
   * second copy (duplicated); under the same id, the row came back after its delete
   * (resurrected). Without ids it is counted a duplicate. Not ok: the call failed, or
   * (notFound) it answered without removing the row, which was gone already.
   */
  recordAck(sender: number, seq: number, ok: boolean, id?: string, notFound = false): void {
    if (!this.slots.inRange(sender, seq)) return;
    // (Receivers only acknowledge what they received, so the slot normally exists; when it
    // does not, allocate it anyway so that an event means the same whatever came before.)
    const c = this.slots.chunk(sender, seq, true);
    if (!c) return;
    const i = seq & CHUNK_MASK;
    const f = c.flags[i]!;
    if (ok) {
      if (!(f & F_DELETED)) {
        c.flags[i] = f | F_DELETED;
        this.deletedCount += 1;
      } else {
        const sameRow = id !== undefined && c.firstId[i] !== 0 && idHash(id) === c.firstId[i];
        this.flagOnce(c, i, sameRow ? F_RESURRECTED : F_DUPLICATED, id === undefined ? { sender, seq } : { sender, seq, id });
      }
    } else {
      c.flags[i] = f | (notFound ? F_ACK_NOT_FOUND : F_ACK_FAILED);
      if (notFound) this.ackNotFoundCount += 1;
      else this.ackFailedCount += 1;
      if (id !== undefined && this.notDeletedIds.size < PENDING_ID_LIMIT) this.notDeletedIds.set(sender * 2 ** 32 + seq, id);
    }
  }

  /**
   * A row carrying this run's id, read back from the queue after the run. again: the same key
   * was already found in another row of this read-back. Says what the row means:
   * - acknowledged and never delivered: in the queue, not lost ("notDrained");
   * - its delete succeeded: the row came back ("resurrected"), or, under another id than the
   *   delivered one, or found twice, a second copy ("duplicated");
   * - never sent: "unexpected" (a sender that died: "uncertain");
   * - otherwise delivered and not yet deleted, nothing new ("known").
   */
  recordInQueue(sender: number, seq: number, id: string, again = false): FoundInQueue {
    if (!this.slots.inRange(sender, seq)) {
      this.outOfRange(sender, seq, id);
      return 'unexpected';
    }
    const c = this.slots.chunk(sender, seq, true);
    if (!c) {
      this.outOfRange(sender, seq, id);
      return 'unexpected';
    }
    const i = seq & CHUNK_MASK;
    const f = c.flags[i]!;
    const state = f & SEND_MASK;
    const ref = { sender, seq, id };
    const otherCopy = again || (c.deliveries[i]! > 0 && c.firstId[i] !== 0 && c.firstId[i] !== idHash(id));
    if (otherCopy) {
      this.flagOnce(c, i, F_DUPLICATED, ref);
      return 'duplicated';
    }
    if (f & F_DELETED) {
      this.flagOnce(c, i, F_RESURRECTED, ref);
      return 'resurrected';
    }
    if (state === SEND_NONE && this.sendsUnknown) {
      c.flags[i] = f | F_IN_QUEUE;
      return c.deliveries[i] === 0 ? 'notDrained' : 'known';
    }
    if (state === SEND_NONE) {
      c.flags[i] = f | F_IN_QUEUE;
      if (c.deliveries[i] === 0 && this.pendingIds.size < PENDING_ID_LIMIT) this.pendingIds.set(sender * 2 ** 32 + seq, id);
      return this.unreportedSenders.has(sender) ? 'uncertain' : 'unexpected';
    }
    if (state === SEND_ACKED && c.deliveries[i] === 0) {
      c.flags[i] = f | F_IN_QUEUE;
      return 'notDrained';
    }
    return 'known';
  }

  /**
   * The sender's thread died: sends it made after its last report are unknown. A delivery of
   * one of them is uncertain, not unexpected.
   */
  recordSenderLost(sender: number): void {
    if (isIndex(sender) && sender < this.senders) this.unreportedSenders.add(sender);
  }

  /** A delivery carrying this run's id whose sender or sequence cannot be read. */
  recordMalformed(id: string, delivered = true): void {
    if (delivered) this.deliveryCount += 1;
    this.outOfRangeCount += 1;
    this.example(this.detected.unexpected, { sender: -1, seq: -1, id });
  }

  /**
   * Classifies every message. judgeLoss: false when a run could not drain (interrupted,
   * or no receivers); undelivered acknowledged sends are then "notDrained", not lost.
   */
  summarize(options: { judgeLoss: boolean; each?: TallyEach; every?: TallyEvery | undefined }): CheckerSummary {
    const t = tallyMessages({
      chunks: this.slots.chunks,
      sendsUnknown: this.sendsUnknown,
      unreportedSenders: this.unreportedSenders,
      pendingIds: this.pendingIds,
      maxExamples: this.maxExamples,
      judgeLoss: options.judgeLoss,
      each: options.each,
      every: options.every,
      outOfRange: this.outOfRangeCount,
      unexpectedExamples: this.detected.unexpected,
      notDeletedIds: this.notDeletedIds,
    });
    // A suspicion waiting for a message the run delivered and never acknowledged stands.
    const fifo = this.fifo?.summarize((sender, seq) => (this.slots.deliveriesOf(sender, seq) ?? 0) > 0);
    return {
      counts: {
        sent: this.sentCount,
        sendFailed: this.sendFailedCount,
        received: this.deliveryCount,
        receivedUnique: this.uniqueCount,
        acknowledged: this.deletedCount,
        ackFailed: this.ackFailedCount,
        ackNotFound: this.ackNotFoundCount,
        ok: t.ok,
        lost: t.lost,
        doubleDequeued: t.doubleDequeued,
        duplicated: t.duplicated,
        redelivered: t.redelivered,
        resurrected: t.resurrected,
        unexpected: t.unexpected,
        uncertain: t.uncertain,
        notDrained: t.notDrained,
        notDeleted: t.notDeleted,
        notDeletedAckFailed: t.notDeletedAckFailed,
        notDeletedNotFound: t.notDeletedNotFound,
        groupOverlap: fifo?.groupOverlap ?? 0,
        reordered: fifo?.reordered ?? 0,
      },
      examples: {
        lost: t.lostExamples,
        doubleDequeued: [...this.detected.doubleDequeued],
        duplicated: [...this.detected.duplicated],
        // A message redelivered and never deleted is not deleted, not redelivered.
        redelivered: this.detected.redelivered.filter((r) => !this.notDeletedClass(r.sender, r.seq)),
        resurrected: [...this.detected.resurrected],
        unexpected: t.unexpectedExamples,
        uncertain: t.uncertainExamples,
        notDeleted: t.notDeletedExamples,
        groupOverlap: fifo?.examples.groupOverlap ?? [],
        reordered: fifo?.examples.reordered ?? [],
      },
      ...(this.sendsUnknown ? { gaps: t.gaps } : {}),
    };
  }
}
