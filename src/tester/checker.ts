// The delivery checker: classifies every message of a run from what senders and receivers
// report. It is pure (no I/O, no clock) so it can be tested as a function of its inputs.
//
// Memory: per message (sender, seq) it keeps 15 bytes in typed arrays, no object or
// string: 2 bytes of flags, 1 byte delivery count, two uint32 times in ms on the queue's
// clock (latest delivery start and latest lease end), and a 32-bit hash of the queue id of
// its first delivery (a delivery under another id is a second copy: duplicated). 10
// million messages take 150 MB.
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

export * from './classes.js';

export const CHUNK_BITS = 16;
export const CHUNK_SIZE = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_SIZE - 1;
/** Sequence numbers are uint31 (they travel as JSON numbers; 2^31 per sender is plenty). */
export const MAX_SEQ = 2 ** 31 - 1;
/** With an open-ended run (--duration), how far past a sender's last reported send a delivery may be. */
const GROW_SLACK_CHUNKS = 16;
const OUT_OF_RANGE_DEDUP_LIMIT = 100_000;
const PENDING_ID_LIMIT = 10_000;

const SEND_MASK = 0b11;
const SEND_NONE = 0;
const SEND_ACKED = 1;
const SEND_UNCERTAIN = 2;
const F_DELETED = 1 << 2;
const F_DOUBLE = 1 << 3;
const F_REDELIVERED = 1 << 4;
const F_RESURRECTED = 1 << 5;
const F_ACK_FAILED = 1 << 6;
/** Found in the queue when the run ended (acknowledged and never delivered: not lost). */
const F_IN_QUEUE = 1 << 7;
/** The queue held it twice: a second copy under another id, or a second successful delete. */
const F_DUPLICATED = 1 << 8;

interface Chunk {
  readonly flags: Uint16Array;
  readonly deliveries: Uint8Array;
  readonly lastStart: Uint32Array;
  readonly maxLeaseEnd: Uint32Array;
  /** idHash of the first delivery's queue id; 0: none seen. */
  readonly firstId: Uint32Array;
}

const BYTES_PER_MESSAGE = 15;

function newChunk(size: number): Chunk {
  return {
    flags: new Uint16Array(size),
    deliveries: new Uint8Array(size),
    lastStart: new Uint32Array(size),
    maxLeaseEnd: new Uint32Array(size),
    firstId: new Uint32Array(size),
  };
}

/** FNV-1a of a queue id's text, never 0 (0 means "no id"). Two ids colliding: 1 in 2^32. */
function idHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0 || 1;
}


const isIndex = (v: number) => Number.isInteger(v) && v >= 0;

export class DeliveryChecker {
  readonly senders: number;
  private readonly capacity: number | undefined;
  private readonly sendsUnknown: boolean;
  private readonly clockBaseMs: number;
  private readonly maxExamples: number;
  private readonly chunks: (Chunk | undefined)[][];
  /** Highest sequence reported sent per sender (open-ended runs grow up to a slack past it). */
  private readonly highestReported: Int32Array;
  private bytes = 0;

  private sentCount = 0;
  private sendFailedCount = 0;
  private deliveryCount = 0;
  private uniqueCount = 0;
  private deletedCount = 0;
  private ackFailedCount = 0;
  private ackedDeliveredCount = 0;
  private outOfRangeCount = 0;
  private readonly outOfRangeSeen = new Set<string>();
  /** Senders whose thread died: what they sent last was never reported (uncertain, not unexpected). */
  private readonly unreportedSenders = new Set<number>();
  /** Queue ids of deliveries whose send was not reported yet, to name them if they stay unexpected. */
  private readonly pendingIds = new Map<number, string>();
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
    this.capacity = options.capacityPerSender;
    this.sendsUnknown = options.sendsUnknown === true;
    this.clockBaseMs = options.clockBaseMs ?? Date.now() - 7 * 86_400_000;
    this.maxExamples = options.maxExamples ?? 10;
    this.chunks = Array.from({ length: this.senders }, () => []);
    this.highestReported = new Int32Array(this.senders).fill(-1);
  }

  /** Bytes held in per-message typed arrays. */
  get byteLength(): number {
    return this.bytes;
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
  get deliveries(): number {
    return this.deliveryCount;
  }
  /** Violations seen so far that no later event can undo (double-dequeue, duplicate, resurrection, out-of-range). */
  get violationsSoFar(): number {
    return this.detected.doubleDequeued.length + this.detected.duplicated.length + this.detected.resurrected.length + this.outOfRangeCount;
  }

  private toClock(ms: number): number {
    const rel = Math.round(ms - this.clockBaseMs);
    if (!(rel > 0)) return 0; // also NaN
    return rel > 0xffffffff ? 0xffffffff : rel;
  }

  private inRange(sender: number, seq: number): boolean {
    if (!isIndex(sender) || sender >= this.senders || !isIndex(seq) || seq > MAX_SEQ) return false;
    return this.capacity === undefined || seq < this.capacity;
  }

  private chunk(sender: number, seq: number, grow: boolean): Chunk | undefined {
    const perSender = this.chunks[sender]!;
    const ci = seq >>> CHUNK_BITS;
    const existing = perSender[ci];
    if (existing || !grow) return existing;
    if (this.capacity === undefined && !this.sendsUnknown) {
      const limit = (Math.max(0, this.highestReported[sender]!) >>> CHUNK_BITS) + GROW_SLACK_CHUNKS;
      if (ci > limit) return undefined;
    }
    // The last chunk of a fixed-size sender holds only what is needed.
    const size = this.capacity === undefined ? CHUNK_SIZE : Math.min(CHUNK_SIZE, this.capacity - ci * CHUNK_SIZE);
    const c = newChunk(size);
    this.bytes += size * BYTES_PER_MESSAGE;
    while (perSender.length < ci) perSender.push(undefined);
    perSender[ci] = c;
    return c;
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
    if (!this.inRange(sender, firstSeq) || !this.inRange(sender, firstSeq + count - 1)) {
      throw new RangeError(`send report out of range: sender ${sender}, seq ${firstSeq}+${count}`);
    }
    const last = firstSeq + count - 1;
    if (last > this.highestReported[sender]!) this.highestReported[sender] = last;
    const state = outcome === 'acked' ? SEND_ACKED : SEND_UNCERTAIN;
    for (let seq = firstSeq; seq <= last; seq++) {
      const c = this.chunk(sender, seq, true)!;
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
    if (!this.inRange(sender, seq)) return this.outOfRange(sender, seq, id);
    const c = this.chunk(sender, seq, true);
    if (!c) return this.outOfRange(sender, seq, id);
    const i = seq & CHUNK_MASK;
    const f = c.flags[i]!;
    const n = c.deliveries[i]!;
    const s = this.toClock(startMs);
    const e = this.toClock(leaseUntilMs);
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
        this.example(this.listOf(flag), ref());
      }
      if (s > c.lastStart[i]!) c.lastStart[i] = s;
      if (e > c.maxLeaseEnd[i]!) c.maxLeaseEnd[i] = e;
    }
    if (n < 255) c.deliveries[i] = n + 1;
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
    this.example(this.listOf(flag), ref);
  }

  /**
   * A receiver's delete (or archive) of (sender, seq): ok when the queue removed it. A second
   * successful one means a second row: under another queue id than the first delivery's, a
   * second copy (duplicated); under the same id, the row came back after its delete
   * (resurrected). Without ids it is counted a duplicate.
   */
  recordAck(sender: number, seq: number, ok: boolean, id?: string): void {
    if (!this.inRange(sender, seq)) return;
    // (Receivers only acknowledge what they received, so the slot normally exists; when it
    // does not, allocate it anyway so that an event means the same whatever came before.)
    const c = this.chunk(sender, seq, true);
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
      c.flags[i] = f | F_ACK_FAILED;
      this.ackFailedCount += 1;
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
    if (!this.inRange(sender, seq)) {
      this.outOfRange(sender, seq, id);
      return 'unexpected';
    }
    const c = this.chunk(sender, seq, true);
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
  summarize(options: { judgeLoss: boolean }): CheckerSummary {
    let ok = 0;
    let lost = 0;
    let doubleDequeued = 0;
    let duplicated = 0;
    let redelivered = 0;
    let resurrected = 0;
    let unexpected = this.outOfRangeCount;
    let uncertain = 0;
    let notDrained = 0;
    let notDeleted = 0;
    const lostExamples: MessageRef[] = [];
    const uncertainExamples: MessageRef[] = [];
    const unexpectedExamples = [...this.detected.unexpected];
    for (let sender = 0; sender < this.senders; sender++) {
      const perSender = this.chunks[sender]!;
      for (let ci = 0; ci < perSender.length; ci++) {
        const c = perSender[ci];
        if (!c) continue;
        const { flags, deliveries } = c;
        for (let i = 0; i < flags.length; i++) {
          const f = flags[i]!;
          const n = deliveries[i]!;
          const state = f & SEND_MASK;
          if (state === SEND_NONE && n === 0 && !(f & F_IN_QUEUE)) continue;
          if (n > 0 && !(f & F_DELETED)) notDeleted += 1;
          if (f & F_DOUBLE) doubleDequeued += 1;
          else if (f & F_DUPLICATED) duplicated += 1;
          else if (f & F_RESURRECTED) resurrected += 1;
          else if (state === SEND_NONE && this.sendsUnknown) {
            if (n === 0) notDrained += 1;
            else if (f & F_REDELIVERED) redelivered += 1;
            else ok += 1;
          }
          else if (state === SEND_NONE && this.unreportedSenders.has(sender)) {
            uncertain += 1;
            if (uncertainExamples.length < this.maxExamples) uncertainExamples.push({ sender, seq: ci * CHUNK_SIZE + i });
          } else if (state === SEND_NONE) {
            unexpected += 1;
            if (unexpectedExamples.length < this.maxExamples) {
              const seq = ci * CHUNK_SIZE + i;
              const id = this.pendingIds.get(sender * 2 ** 32 + seq);
              unexpectedExamples.push(id === undefined ? { sender, seq } : { sender, seq, id });
            }
          } else if (state === SEND_UNCERTAIN) {
            uncertain += 1;
            if (uncertainExamples.length < this.maxExamples) uncertainExamples.push({ sender, seq: ci * CHUNK_SIZE + i });
          } else if (n === 0) {
            if (options.judgeLoss && !(f & F_IN_QUEUE)) {
              lost += 1;
              if (lostExamples.length < this.maxExamples) lostExamples.push({ sender, seq: ci * CHUNK_SIZE + i });
            } else {
              notDrained += 1;
            }
          } else if (f & F_REDELIVERED) redelivered += 1;
          else ok += 1;
        }
      }
    }
    return {
      counts: {
        sent: this.sentCount,
        sendFailed: this.sendFailedCount,
        received: this.deliveryCount,
        receivedUnique: this.uniqueCount,
        acknowledged: this.deletedCount,
        ackFailed: this.ackFailedCount,
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
      },
      examples: {
        lost: lostExamples,
        doubleDequeued: [...this.detected.doubleDequeued],
        duplicated: [...this.detected.duplicated],
        redelivered: [...this.detected.redelivered],
        resurrected: [...this.detected.resurrected],
        unexpected: unexpectedExamples,
        uncertain: uncertainExamples,
      },
    };
  }
}
