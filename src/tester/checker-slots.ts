// The delivery checker's per-message state (checker.ts): per sender, chunks of typed arrays
// indexed by sequence number, allocated by SlotTable, and the flag bits each message carries.
//
// Memory: per message (sender, seq) 15 bytes in typed arrays, no object or string: 2 bytes
// of flags, 1 byte delivery count, two uint32 times in ms on the queue's clock (latest
// delivery start and latest lease end), and a 32-bit hash of the queue id of its first
// delivery (a delivery under another id is a second copy: duplicated). 10 million messages
// take 150 MB.

export const CHUNK_BITS = 16;
export const CHUNK_SIZE = 1 << CHUNK_BITS;
export const CHUNK_MASK = CHUNK_SIZE - 1;
/** Sequence numbers are uint31 (they travel as JSON numbers; 2^31 per sender is plenty). */
export const MAX_SEQ = 2 ** 31 - 1;

export const SEND_MASK = 0b11;
export const SEND_NONE = 0;
export const SEND_ACKED = 1;
export const SEND_UNCERTAIN = 2;
export const F_DELETED = 1 << 2;
export const F_DOUBLE = 1 << 3;
export const F_REDELIVERED = 1 << 4;
export const F_RESURRECTED = 1 << 5;
export const F_ACK_FAILED = 1 << 6;
/** Found in the queue when the run ended (acknowledged and never delivered: not lost). */
export const F_IN_QUEUE = 1 << 7;
/** The queue held it twice: a second copy under another id, or a second successful delete. */
export const F_DUPLICATED = 1 << 8;
/** A delete (or archive) of it answered without removing its row: already gone (another client deleted it). */
export const F_ACK_NOT_FOUND = 1 << 9;

export interface Chunk {
  readonly flags: Uint16Array;
  readonly deliveries: Uint8Array;
  readonly lastStart: Uint32Array;
  readonly maxLeaseEnd: Uint32Array;
  /** idHash of the first delivery's queue id; 0: none seen. */
  readonly firstId: Uint32Array;
}

export const BYTES_PER_MESSAGE = 15;

export function newChunk(size: number): Chunk {
  return {
    flags: new Uint16Array(size),
    deliveries: new Uint8Array(size),
    lastStart: new Uint32Array(size),
    maxLeaseEnd: new Uint32Array(size),
    firstId: new Uint32Array(size),
  };
}

/** A time on the queue's clock (ms) as kept: uint32 ms after baseMs, clamped (NaN: 0). */
export function toClock(ms: number, baseMs: number): number {
  const rel = Math.round(ms - baseMs);
  if (!(rel > 0)) return 0; // also NaN
  return rel > 0xffffffff ? 0xffffffff : rel;
}

/** FNV-1a of a queue id's text, never 0 (0 means "no id"). Two ids colliding: 1 in 2^32. */
export function idHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0 || 1;
}

/** With an open-ended run (--duration), how far past a sender's last reported send a delivery may be. */
const GROW_SLACK_CHUNKS = 16;

export const isIndex = (v: number) => Number.isInteger(v) && v >= 0;

/** Every sender's chunks, allocated as messages are first met, and which (sender, seq) may exist. */
export class SlotTable {
  readonly chunks: (Chunk | undefined)[][];
  /** Highest sequence reported sent per sender (open-ended runs grow up to a slack past it). */
  private readonly highestReported: Int32Array;
  private bytes = 0;

  constructor(
    private readonly senders: number,
    private readonly capacity: number | undefined,
    private readonly sendsUnknown: boolean,
  ) {
    this.chunks = Array.from({ length: this.senders }, () => []);
    this.highestReported = new Int32Array(this.senders).fill(-1);
  }

  /** Bytes held in per-message typed arrays. */
  get byteLength(): number {
    return this.bytes;
  }

  /** A send up to seq was reported: an open-ended sender's chunks may grow past it. */
  reported(sender: number, seq: number): void {
    if (seq > this.highestReported[sender]!) this.highestReported[sender] = seq;
  }

  inRange(sender: number, seq: number): boolean {
    if (!isIndex(sender) || sender >= this.senders || !isIndex(seq) || seq > MAX_SEQ) return false;
    return this.capacity === undefined || seq < this.capacity;
  }

  /** How many deliveries (sender, seq) has had; null: no message this run can hold. */
  deliveriesOf(sender: number, seq: number): number | null {
    if (!this.inRange(sender, seq)) return null;
    return this.chunk(sender, seq, false)?.deliveries[seq & CHUNK_MASK] ?? 0;
  }

  chunk(sender: number, seq: number, grow: boolean): Chunk | undefined {
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
}
