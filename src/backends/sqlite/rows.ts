// SmoothMQ's rows and what smq makes of them: message states, times carried in snowflake
// ids, attributes from kvs rows, queue stats. Pure functions, no database.
import type { MessageState, QueueStats } from '../types.js';
import { decomposeSnowflake } from './snowflake.js';

/** SmoothMQ's SQS layer stores each attribute's type beside it as `<name>_DataType`. */
export const DATA_TYPE_SUFFIX = '_DataType';
export const STRING_DATA_TYPE = 'String';

/** Ids whose time part falls outside this range were not made by a snowflake generator. */
const PLAUSIBLE_ID_TIME_MS = { min: Date.UTC(2015, 0, 1), maxAheadMs: 24 * 3600 * 1000 };

export interface QueueRow {
  readonly id: bigint;
  readonly max_retries: bigint;
  readonly visibility_timeout: bigint;
  readonly rate_limit: number | bigint;
}

export interface MessageRow {
  readonly id: bigint;
  readonly tries: bigint;
  readonly max_tries: bigint;
  readonly deliver_at: bigint;
  readonly delivered_at: bigint;
  readonly message: string | Buffer | bigint | number | null;
}

export interface KvRow {
  readonly message_id: bigint;
  readonly k: string;
  readonly v: string | Buffer | bigint | number | null;
}

export interface StatsRow {
  readonly queue_id: bigint;
  readonly tenant_id: bigint;
  readonly name: string;
  readonly rate_limit: number | bigint;
  readonly max_retries: bigint;
  readonly visibility_timeout: bigint;
  readonly total: bigint;
  readonly failed: bigint;
  readonly ready: bigint;
  readonly in_flight: bigint;
  readonly delayed: bigint;
  readonly oldest_id: bigint | null;
  readonly newest_id: bigint | null;
}

export interface ResolvedQueue {
  readonly id: bigint;
  readonly maxRetries: bigint;
  readonly visibilityTimeoutSec: bigint;
  readonly rateLimit: number;
}

/** SmoothMQ's clock: Unix seconds. */
export const unixNow = (): bigint => BigInt(Math.floor(Date.now() / 1000));

export function text(v: string | Buffer | bigint | number | null): string {
  if (v === null) return '';
  if (typeof v === 'string') return v;
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  return String(v);
}

/** A message's body as text, with its stored size where the text is not the same bytes (not UTF-8). */
export function bodyOf(v: string | Buffer | bigint | number | null): { body: string; bodyBytes?: number } {
  const body = text(v);
  if (Buffer.isBuffer(v) && Buffer.byteLength(body, 'utf8') !== v.length) return { body, bodyBytes: v.length };
  return { body };
}

/** The same rules as sql.ts's STATE_EXPR, for rows just returned by an UPDATE. */
export function messageStateAt(row: Pick<MessageRow, 'tries' | 'max_tries' | 'deliver_at'>, now: bigint): MessageState {
  if (row.deliver_at <= now) {
    return row.max_tries !== -1n && row.tries >= row.max_tries ? 'failed' : 'ready';
  }
  return row.tries > 0n ? 'inflight' : 'delayed';
}

/** Enqueue/creation time carried in a snowflake id, or null when the id is not one. */
export function idTime(id: bigint, nowMs: number): Date | null {
  if (id < 0n) return null;
  const { timeMs } = decomposeSnowflake(id);
  if (timeMs < PLAUSIBLE_ID_TIME_MS.min || timeMs > nowMs + PLAUSIBLE_ID_TIME_MS.maxAheadMs) return null;
  return new Date(timeMs);
}

function ageSec(id: bigint | null, nowMs: number): number | null {
  if (id === null) return null;
  const t = idTime(id, nowMs);
  return t === null ? null : Math.max(0, Math.floor((nowMs - t.getTime()) / 1000));
}

export function idsJson(ids: readonly bigint[]): string {
  return `[${ids.map((id) => id.toString()).join(',')}]`;
}

/** Keeps the caller's order and drops duplicates. */
export function inInputOrder(requested: readonly bigint[], affected: Iterable<bigint>): bigint[] {
  const hit = new Set<bigint>(affected);
  const out: bigint[] = [];
  for (const id of requested) {
    if (hit.has(id)) {
      out.push(id);
      hit.delete(id);
    }
  }
  return out;
}

/** kvs rows -> {name: value}, without the `<name>_DataType` rows. */
export function attributesOf(rows: readonly KvRow[]): Map<bigint, Record<string, string>> {
  const raw = new Map<bigint, Map<string, string>>();
  for (const row of rows) {
    let m = raw.get(row.message_id);
    if (m === undefined) raw.set(row.message_id, (m = new Map()));
    m.set(row.k, text(row.v));
  }
  const out = new Map<bigint, Record<string, string>>();
  for (const [id, m] of raw) {
    const attrs: Record<string, string> = {};
    for (const [k, v] of m) {
      const isTypeRow = k.endsWith(DATA_TYPE_SUFFIX) && m.has(k.slice(0, -DATA_TYPE_SUFFIX.length));
      if (!isTypeRow) attrs[k] = v;
    }
    out.set(id, attrs);
  }
  return out;
}

export function toStats(row: StatsRow): QueueStats {
  const nowMs = Date.now();
  return {
    name: row.name,
    tenant: Number(row.tenant_id),
    ready: Number(row.ready),
    inFlight: Number(row.in_flight),
    delayed: Number(row.delayed),
    failed: Number(row.failed),
    total: Number(row.total),
    oldestAgeSec: ageSec(row.oldest_id, nowMs),
    newestAgeSec: ageSec(row.newest_id, nowMs),
    estimated: false,
    createdAt: idTime(row.queue_id, nowMs),
    visibilityTimeoutSec: Number(row.visibility_timeout),
    maxRetries: Number(row.max_retries),
    rateLimit: Number(row.rate_limit),
  };
}
