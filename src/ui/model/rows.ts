// One row of the queue list: a backend's QueueStats plus what top derives from
// consecutive refreshes (rates, depth history) and the name as people read it.
import type { QueueStats } from '../../backends/types.js';
import { decodeDriverName } from './names.js';
import { computeRate, UNKNOWN_RATE, type Rate, type RateSample } from './rates.js';
import { recordDepths, type DepthHistory, type DepthSample } from './history.js';

export interface QueueRow {
  /** Unique across tenants: the key rates and history are kept under. */
  readonly key: string;
  /** The name the backend knows (what peek/delete are called with). */
  readonly rawName: string;
  /** The name shown (decoded for SmoothMQ pgmq-driver names); still to be escaped. */
  readonly name: string;
  /** Tenant shown in the TENANT column: SmoothMQ's tenant, or the decoded driver tenant. */
  readonly tenant: string | undefined;
  /** SmoothMQ tenant id to open the queue with (undefined on pgmq). */
  readonly backendTenant: number | undefined;
  readonly stats: QueueStats;
  readonly rate: Rate;
  readonly depth: readonly DepthSample[];
}

const finite = (v: number | undefined): number | undefined => (v !== undefined && Number.isFinite(v) ? v : undefined);

export function rowKey(stats: QueueStats): string {
  return `${stats.tenant ?? ''}\u0000${stats.name}`;
}

export interface Snapshot {
  /** Client clock when the refresh finished, ms. */
  readonly at: number;
  readonly samples: ReadonlyMap<string, RateSample>;
}

export interface RowsState {
  readonly rows: readonly QueueRow[];
  readonly snapshot: Snapshot | undefined;
  readonly history: DepthHistory;
}

export const EMPTY_ROWS: RowsState = { rows: [], snapshot: undefined, history: new Map() };

/** Folds one refresh into the rows: new rates from the previous snapshot, one more depth sample. */
export function applyQueueStats(prev: RowsState, queues: readonly QueueStats[], at: number): RowsState {
  const samples = new Map<string, RateSample>();
  const depths = new Map<string, number>();
  for (const q of queues) {
    const key = rowKey(q);
    samples.set(key, {
      at,
      total: q.total,
      insertedTotal: finite(q.insertedTotal),
      removedTotal: finite(q.removedTotal),
      estimated: q.estimated,
    });
    depths.set(key, q.total);
  }
  const history = recordDepths(prev.history, depths, at);
  const rows = queues.map((q): QueueRow => {
    const key = rowKey(q);
    const decoded = q.tenant === undefined ? decodeDriverName(q.name) : undefined;
    const sample = samples.get(key)!;
    const before = prev.snapshot?.samples.get(key);
    return {
      key,
      rawName: q.name,
      name: decoded?.name ?? q.name,
      tenant: q.tenant !== undefined ? String(q.tenant) : decoded?.tenant,
      backendTenant: q.tenant,
      stats: q,
      rate: before ? computeRate(before, sample) : UNKNOWN_RATE,
      depth: history.get(key) ?? [],
    };
  });
  return { rows, snapshot: { at, samples }, history };
}

/** The TENANT column is worth its width only when more than one tenant is on screen. */
export function distinctTenants(rows: readonly QueueRow[]): number {
  return new Set(rows.map((r) => r.tenant).filter((t) => t !== undefined)).size;
}

/** Some queue's messages carry FIFO groups (the GROUPS column is worth its width). */
export function hasGroups(rows: readonly QueueRow[]): boolean {
  return rows.some((r) => (r.stats.groups ?? 0) > 0);
}

/** The row of the queue a topic binding names: the exact name first, else one that differs only in case. */
export function rowNamed(rows: readonly QueueRow[], name: string): QueueRow | undefined {
  return rows.find((r) => r.rawName === name) ?? rows.find((r) => r.rawName.toLowerCase() === name.toLowerCase());
}

export interface Totals {
  readonly queues: number;
  readonly ready: number;
  readonly inFlight: number;
  readonly delayed: number;
  readonly total: number;
  readonly estimated: boolean;
}

export function totalsOf(rows: readonly QueueRow[]): Totals {
  let ready = 0;
  let inFlight = 0;
  let delayed = 0;
  let total = 0;
  let estimated = false;
  for (const r of rows) {
    ready += r.stats.ready;
    inFlight += r.stats.inFlight;
    delayed += r.stats.delayed;
    total += r.stats.total;
    estimated ||= r.stats.estimated;
  }
  return { queues: rows.length, ready, inFlight, delayed, total, estimated };
}
