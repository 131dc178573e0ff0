// Message bodies of a tester run. Each is a JSON object (pgmq stores jsonb) that lets a
// receiver rebuild the message's history without any shared state:
//   r  run id            s  sender index       q  sequence number within the sender
//   t  send start (µs, process monotonic clock)
//   i  intended send time under --rate (µs, same clock), for coordinated-omission correction
//   g  FIFO group (--groups N: seq mod N; its x-pgmq-group header is "g<g>")
//   k  the message's place among its sender's messages of that group (seq div N)
//   p  padding up to --size bytes
// pgmq's jsonb reorders keys and adds spaces, so receivers parse, never slice.

export interface BodyFields {
  readonly runId: string;
  readonly sender: number;
  readonly seq: number;
  readonly sendStartUs: number;
  readonly intendedUs?: number | undefined;
  /** --groups: how many groups the run spreads its messages over (0 or undefined: none). */
  readonly groups?: number | undefined;
}

/**
 * A message's FIFO group and its place in its sender's lane of that group, from its sequence
 * number: the checker (checker-fifo.ts) finds both again from (sender, seq) alone.
 */
export function groupOf(seq: number, groups: number): { readonly group: number; readonly k: number } {
  return { group: seq % groups, k: Math.floor(seq / groups) };
}

/** The header pgmq's grouped reads group by (pgmq 1.9+). */
export const GROUP_HEADER = 'x-pgmq-group';

/** The x-pgmq-group header's value of a group. */
export const groupName = (group: number) => `g${group}`;

/** Bytes of a body without padding: the fixed part, so --size can be honoured. */
function head(f: BodyFields): string {
  const intended = f.intendedUs === undefined ? '' : `,"i":${Math.round(f.intendedUs)}`;
  let grouped = '';
  if (f.groups !== undefined && f.groups > 0) {
    const { group, k } = groupOf(f.seq, f.groups);
    grouped = `,"g":${group},"k":${k}`;
  }
  return `{"r":${quotedRunId(f.runId)},"s":${f.sender},"q":${f.seq},"t":${Math.round(f.sendStartUs)}${intended}${grouped}`;
}

// A run has one id: quote it once, not once per message.
let lastRunId: string | undefined;
let lastQuoted = '';
function quotedRunId(runId: string): string {
  if (runId !== lastRunId) {
    lastRunId = runId;
    lastQuoted = JSON.stringify(runId);
  }
  return lastQuoted;
}

/**
 * Builds a body of (at least) sizeBytes bytes; the padding is ASCII, so bytes = characters.
 * When sizeBytes is smaller than the fixed fields the body is just the fields.
 */
export function encodeBody(f: BodyFields, sizeBytes: number, padding: PaddingCache = defaultPadding): string {
  const h = head(f);
  const room = sizeBytes - h.length - ',"p":""}'.length;
  return room > 0 ? `${h},"p":"${padding.get(room)}"}` : `${h}}`;
}

/** Repeated padding strings are cut from one long string instead of built per message. */
export class PaddingCache {
  private text = '';
  get(n: number): string {
    if (this.text.length < n) this.text = 'x'.repeat(Math.max(n, this.text.length * 2));
    return this.text.length === n ? this.text : this.text.slice(0, n);
  }
}
const defaultPadding = new PaddingCache();

export type DecodedBody =
  | {
      readonly kind: 'ours';
      readonly sender: number;
      readonly seq: number;
      readonly sendStartUs: number;
      readonly intendedUs: number | undefined;
    }
  /** Carries our run id, but the sender or sequence is missing or not a whole number. */
  | { readonly kind: 'malformed' }
  /** Not a tester body of this run (another run, another producer). */
  | { readonly kind: 'foreign' };

const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export function decodeBody(text: string, runId: string): DecodedBody {
  // Cheap rejection before parsing: the run id must appear in the text.
  if (!text.includes(runId)) return { kind: 'foreign' };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { kind: 'foreign' };
  }
  if (typeof v !== 'object' || v === null || (v as { r?: unknown }).r !== runId) return { kind: 'foreign' };
  const o = v as { s?: unknown; q?: unknown; t?: unknown; i?: unknown };
  if (!isIndex(o.s) || !isIndex(o.q)) return { kind: 'malformed' };
  const t = typeof o.t === 'number' && Number.isFinite(o.t) ? o.t : Number.NaN;
  const i = typeof o.i === 'number' && Number.isFinite(o.i) ? o.i : undefined;
  return { kind: 'ours', sender: o.s, seq: o.q, sendStartUs: t, intendedUs: i };
}
