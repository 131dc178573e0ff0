// The FIFO checker (--groups): judges the order of every FIFO group from the same events as
// the delivery checker (checker.ts), replayed in time order (OrderedEventMerger). Pure: no
// I/O, no clock.
//
// A message's group and its place in its sender's lane of that group come from its sequence
// number (body.ts groupOf). Two classes, each counted once per message, beside its delivery
// class:
// - group overlap: delivered by one receive call while a message of the same group, delivered
//   by another call, was still leased (on the queue's clock: the later delivery started before
//   the earlier lease ended) and not acknowledged;
// - reordered: delivered while an earlier-sent message of its group from the same sender was
//   not acknowledged, unless that message came in the same call (a batch may carry several
//   consecutive messages of a group).
//
// "Not acknowledged" is judged on the tester's monotonic clock, only where the calls did not
// overlap: the earlier message's delete call started after the later receive call had
// returned (or never started). A delete that overlapped the receive may have come first in the
// database, so it is given the benefit of the doubt: a correct grouped read, whose next read
// follows a delete by a few microseconds, is never flagged. Until the delete is seen, the
// suspicion waits (Suspect); at the end, one whose message was never acknowledged is confirmed.
import type { FifoJudge, FifoSummary, MessageRef } from './classes.js';

/** One delivery of a receive call, as the checker gets it (events.ts). */
export interface FifoDelivery {
  readonly sender: number;
  readonly seq: number;
  /** Queue clock (ms): when the delivery started, when its lease ends. */
  readonly startMs: number;
  readonly leaseMs: number;
  /** The call: its receiver and start key (µs, monotonic) name it; its end (µs, monotonic). */
  readonly receiver: number;
  readonly callKeyUs: number;
  readonly callEndUs: number;
  readonly id?: string | undefined;
}

const OVERLAP = 0;
const REORDERED = 1;
type FifoClass = typeof OVERLAP | typeof REORDERED;

/** A message suspected of a violation: confirmed when what it waits for is acknowledged at deadlineUs or later, or never. */
interface Suspect {
  readonly cls: FifoClass;
  readonly ref: MessageRef;
  readonly deadlineUs: number;
}

/**
 * A delivered message of a group, until its acknowledgement or long after its lease: its
 * deliveries whose leases may still matter (a redelivery inside a lease is a double-dequeue,
 * and the first receiver still holds the message), and the overlaps waiting for it.
 */
interface OpenMessage {
  deliveries: FifoDelivery[];
  suspects: Suspect[];
}

/** A reordering waiting for the earlier messages of its lane (their k) to be acknowledged. */
interface LaneSuspect extends Suspect {
  readonly waiting: Set<number>;
}

/** One sender's messages of one group: which were acknowledged (or will never come). */
interface Lane {
  /** Every k below it is settled. */
  frontier: number;
  readonly settled: Set<number>;
  suspects: LaneSuspect[];
}

/** Kept per message this many ms past its lease: deliveries reach the checker out of start order by far less. */
const OPEN_KEEP_MS = 60_000;
/** Suspicions kept per message at most (a run that breaks the order everywhere needs no more to say so). */
const SUSPECTS_PER_MESSAGE = 1000;

/** A reordering looks back at most this many messages of its lane, and waits for at most this many. */
const SCAN_STEPS = 4096;
const SCAN_WAITING = 64;

const keyOf = (sender: number, seq: number) => sender * 2 ** 32 + seq;
const refOf = (x: FifoDelivery): MessageRef =>
  x.id === undefined ? { sender: x.sender, seq: x.seq } : { sender: x.sender, seq: x.seq, id: x.id };

export class FifoChecker implements FifoJudge {
  private readonly open = new Map<number, Map<number, OpenMessage>>();
  private readonly lanes = new Map<number, Lane>();
  private readonly flagged = [new Set<number>(), new Set<number>()];
  private readonly examples: [MessageRef[], MessageRef[]] = [[], []];
  /** The receive call being read: its deliveries are judged together (the batch exemption). */
  private call: FifoDelivery[] = [];
  private latestStartMs = 0;
  private pruneAtMs = 0;

  constructor(
    readonly groups: number,
    private readonly maxExamples = 10,
  ) {
    if (!Number.isSafeInteger(groups) || groups < 1) throw new RangeError('groups must be a whole number of 1 or more');
  }

  /** Messages found so far: group overlap, reordered (confirmed ones only). */
  get violationsSoFar(): number {
    return this.flagged[OVERLAP]!.size + this.flagged[REORDERED]!.size;
  }

  private laneOf(sender: number, group: number): Lane {
    const key = sender * this.groups + group;
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { frontier: 0, settled: new Set(), suspects: [] };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  private confirm(s: Suspect): void {
    const set = this.flagged[s.cls]!;
    const key = keyOf(s.ref.sender, s.ref.seq);
    if (set.has(key)) return;
    set.add(key);
    const list = this.examples[s.cls];
    if (list.length < this.maxExamples) list.push(s.ref);
  }

  /** A delivery, in the order of the receive calls' start (the merger's). */
  delivery(d: FifoDelivery): void {
    const first = this.call[0];
    if (first && (first.receiver !== d.receiver || first.callKeyUs !== d.callKeyUs)) this.flush();
    this.call.push(d);
  }

  /**
   * An acknowledgement (delete or archive) of (sender, seq), whether or not it succeeded: it
   * started at ackStartUs. A failed one may still have removed the message (its answer lost),
   * so it settles the message's suspicions too.
   */
  ack(sender: number, seq: number, ackStartUs: number, ok: boolean): void {
    this.flush();
    const { group, k } = this.place(seq);
    const open = this.open.get(group);
    const o = open?.get(keyOf(sender, seq));
    if (o) {
      for (const s of o.suspects) if (ackStartUs >= s.deadlineUs) this.confirm(s);
      o.suspects = [];
      if (ok) open!.delete(keyOf(sender, seq));
    }
    this.settle(this.laneOf(sender, group), k, ackStartUs);
  }

  /** A message that will never be delivered (its send failed): nothing waits for it. */
  absent(sender: number, seq: number): void {
    this.flush();
    const { group, k } = this.place(seq);
    this.settle(this.laneOf(sender, group), k, -Infinity);
  }

  private place(seq: number): { group: number; k: number } {
    return { group: seq % this.groups, k: Math.floor(seq / this.groups) };
  }

  private settle(lane: Lane, k: number, ackStartUs: number): void {
    if (k < lane.frontier || lane.settled.has(k)) return;
    lane.settled.add(k);
    while (lane.settled.delete(lane.frontier)) lane.frontier += 1;
    if (lane.suspects.length === 0) return;
    lane.suspects = lane.suspects.filter((s) => {
      if (!s.waiting.delete(k)) return true;
      if (ackStartUs >= s.deadlineUs) {
        this.confirm(s);
        return false;
      }
      return s.waiting.size > 0;
    });
  }

  /** Judges the receive call read so far. */
  private flush(): void {
    const call = this.call;
    if (call.length === 0) return;
    this.call = [];
    const inCall = new Set(call.map((d) => keyOf(d.sender, d.seq)));
    for (const d of call) {
      const { group, k } = this.place(d.seq);
      this.judgeOrder(d, group, k, inCall);
      this.judgeOverlap(d, group);
      if (d.startMs > this.latestStartMs) this.latestStartMs = d.startMs;
    }
    if (this.latestStartMs >= this.pruneAtMs) this.prune();
  }

  private judgeOrder(d: FifoDelivery, group: number, k: number, inCall: ReadonlySet<number>): void {
    const lane = this.laneOf(d.sender, group);
    const waiting = new Set<number>();
    // The nearest earlier messages first; a lane stuck behind a lost message is not scanned to its start each time.
    for (let j = k - 1, steps = 0; j >= lane.frontier && steps < SCAN_STEPS && waiting.size < SCAN_WAITING; j--, steps++) {
      if (!lane.settled.has(j) && !inCall.has(keyOf(d.sender, j * this.groups + group))) waiting.add(j);
    }
    if (waiting.size === 0) return;
    lane.suspects.push({ cls: REORDERED, ref: refOf(d), deadlineUs: d.callEndUs, waiting });
  }

  private judgeOverlap(d: FifoDelivery, group: number): void {
    let open = this.open.get(group);
    if (!open) {
      open = new Map();
      this.open.set(group, open);
    }
    const key = keyOf(d.sender, d.seq);
    // Overlaps of another message, found now, that wait for this one's acknowledgement.
    const mine: Suspect[] = [];
    for (const [otherKey, o] of open) {
      if (otherKey === key) continue;
      for (const e of o.deliveries) {
        if (e.receiver === d.receiver && e.callKeyUs === d.callKeyUs) continue;
        // The one that started inside the other's lease (queue clock) overlapped it.
        if (e.startMs <= d.startMs) {
          if (d.startMs < e.leaseMs && o.suspects.length < SUSPECTS_PER_MESSAGE) {
            o.suspects.push({ cls: OVERLAP, ref: refOf(d), deadlineUs: d.callEndUs });
          }
        } else if (e.startMs < d.leaseMs && mine.length < SUSPECTS_PER_MESSAGE) {
          mine.push({ cls: OVERLAP, ref: refOf(e), deadlineUs: e.callEndUs });
        }
      }
    }
    const o = open.get(key);
    if (!o) {
      open.set(key, { deliveries: [d], suspects: mine });
      return;
    }
    // A redelivery: the earlier deliveries whose lease has ended no longer matter.
    o.deliveries = [...o.deliveries.filter((e) => e.leaseMs > d.startMs), d];
    o.suspects.push(...mine);
  }

  /** Forgets messages whose leases ended long before the latest start, and that nothing waits on. */
  private prune(): void {
    const limit = this.latestStartMs - OPEN_KEEP_MS;
    for (const open of this.open.values()) {
      for (const [key, o] of open) if (o.suspects.length === 0 && o.deliveries.every((e) => e.leaseMs < limit)) open.delete(key);
    }
    this.pruneAtMs = this.latestStartMs + OPEN_KEEP_MS / 4;
  }

  /**
   * The final count. delivered: whether the run ever delivered (sender, seq); a suspicion still
   * waiting for a message that was delivered and never acknowledged is confirmed, one waiting
   * only for messages never delivered (lost, or never sent) is not.
   */
  summarize(delivered: (sender: number, seq: number) => boolean): FifoSummary {
    this.flush();
    for (const open of this.open.values()) for (const o of open.values()) for (const s of o.suspects) this.confirm(s);
    for (const [laneKey, lane] of this.lanes) {
      const sender = Math.floor(laneKey / this.groups);
      const group = laneKey % this.groups;
      for (const s of lane.suspects) {
        for (const k of s.waiting) {
          if (delivered(sender, k * this.groups + group)) {
            this.confirm(s);
            break;
          }
        }
      }
      lane.suspects = [];
    }
    for (const open of this.open.values()) for (const o of open.values()) o.suspects = [];
    return {
      groupOverlap: this.flagged[OVERLAP]!.size,
      reordered: this.flagged[REORDERED]!.size,
      examples: { groupOverlap: [...this.examples[OVERLAP]], reordered: [...this.examples[REORDERED]] },
    };
  }
}
