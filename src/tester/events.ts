// Receivers report deliveries and acknowledgements as packed Float64Arrays (no object per
// message), and the main thread replays them into the checker in time order.
//
// One event = EVENT_STRIDE numbers: kind, sender, seq, a, b, key, c.
//   delivery: a = delivery start, b = lease end (ms, queue clock); key = start of the receive call (µs, monotonic)
//             c = end of the receive call (µs, monotonic)
//   redelivery: the same, for a delivery whose read count says the queue handed it out before
//   ackOk, ackFailed (the call failed), ackNotFound (the call answered without removing the row):
//             a = b = 0;                                          key = end of the delete call (µs, monotonic)
//             c = start of the delete call (µs, monotonic)
// (The FIFO checker, checker-fifo.ts, needs both ends of each call: it judges an order only
// when the calls did not overlap.)
// The queue ids of deliveries travel beside them in a BigInt64Array (0 for acks).

export const EVENT_STRIDE = 7;
export const EventKind = { delivery: 0, ackOk: 1, ackFailed: 2, redelivery: 3, ackNotFound: 4 } as const;
export type EventKind = (typeof EventKind)[keyof typeof EventKind];

/** A growable buffer of events, cut into transferable arrays at each flush. */
export class EventBuffer {
  private data = new Float64Array(EVENT_STRIDE * 1024);
  private ids = new BigInt64Array(1024);
  private n = 0;

  get length(): number {
    return this.n;
  }

  push(kind: EventKind, sender: number, seq: number, a: number, b: number, keyUs: number, id: bigint, c = 0): void {
    if (this.n === this.ids.length) {
      const data = new Float64Array(this.data.length * 2);
      data.set(this.data);
      this.data = data;
      const ids = new BigInt64Array(this.ids.length * 2);
      ids.set(this.ids);
      this.ids = ids;
    }
    const o = this.n * EVENT_STRIDE;
    const d = this.data;
    d[o] = kind;
    d[o + 1] = sender;
    d[o + 2] = seq;
    d[o + 3] = a;
    d[o + 4] = b;
    d[o + 5] = keyUs;
    d[o + 6] = c;
    this.ids[this.n] = id;
    this.n += 1;
  }

  /** Copies the events out (exact size, ready to transfer) and empties the buffer. */
  take(): { events: Float64Array; ids: BigInt64Array } {
    const events = this.data.slice(0, this.n * EVENT_STRIDE);
    const ids = this.ids.slice(0, this.n);
    this.n = 0;
    return { events, ids };
  }
}

export interface EventBatch {
  readonly events: Float64Array;
  readonly ids: BigInt64Array;
  /** Every later event of this source has a key at or after this (µs). */
  readonly watermarkUs: number;
}

/** keyUs and source (the receiver) tell the calls apart: a receive call's deliveries share both. */
export type EventSink = (
  kind: EventKind,
  sender: number,
  seq: number,
  a: number,
  b: number,
  id: bigint,
  c: number,
  keyUs: number,
  source: number,
) => void;

interface Source {
  readonly batches: EventBatch[];
  /** Index of the next event in batches[0]. */
  pos: number;
  watermarkUs: number;
}

/**
 * Merges the event streams of several receivers into one stream in key order. Each source's
 * own events are in key order, and its watermark promises that nothing earlier will follow;
 * an event is released once every source's watermark has passed it.
 */
export class OrderedEventMerger {
  private readonly sources: Source[];

  constructor(
    sourceCount: number,
    private readonly sink: EventSink,
  ) {
    this.sources = Array.from({ length: sourceCount }, () => ({ batches: [], pos: 0, watermarkUs: -Infinity }));
  }

  push(source: number, batch: EventBatch): void {
    const s = this.sources[source];
    if (!s) throw new RangeError(`no event source ${source}`);
    if (batch.events.length > 0) s.batches.push(batch);
    if (batch.watermarkUs > s.watermarkUs) s.watermarkUs = batch.watermarkUs;
  }

  /** The source will send nothing more. */
  finish(source: number): void {
    const s = this.sources[source];
    if (s) s.watermarkUs = Infinity;
  }

  /** Events waiting for a watermark. */
  get pending(): number {
    let n = 0;
    for (const s of this.sources) {
      for (const b of s.batches) n += b.events.length / EVENT_STRIDE;
      n -= s.pos / EVENT_STRIDE;
    }
    return n;
  }

  /** Replays every event that can no longer be preceded by another; returns how many. */
  release(): number {
    let watermark = Infinity;
    for (const s of this.sources) if (s.watermarkUs < watermark) watermark = s.watermarkUs;
    let released = 0;
    for (;;) {
      let best: Source | undefined;
      let bestIndex = -1;
      let bestKey = Infinity;
      for (let i = 0; i < this.sources.length; i++) {
        const s = this.sources[i]!;
        const b = s.batches[0];
        if (!b) continue;
        const key = b.events[s.pos + 5]!;
        if (key < bestKey) {
          best = s;
          bestIndex = i;
          bestKey = key;
        }
      }
      if (!best || bestKey >= watermark) return released;
      const b = best.batches[0]!;
      const e = b.events;
      const o = best.pos;
      this.sink(e[o] as EventKind, e[o + 1]!, e[o + 2]!, e[o + 3]!, e[o + 4]!, b.ids[o / EVENT_STRIDE]!, e[o + 6]!, bestKey, bestIndex);
      released += 1;
      best.pos += EVENT_STRIDE;
      if (best.pos >= e.length) {
        best.batches.shift();
        best.pos = 0;
      }
    }
  }
}
