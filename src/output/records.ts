// How queues and messages look in each output format. JSON records keep the contract's
// field names (camelCase), with ids as strings and dates as ISO strings.
import type { Message, QueueStats } from '../backends/types.js';
import type { TableColumn } from './table.js';

export interface MessageRecord {
  readonly id: string;
  readonly state: string;
  readonly readCount: number;
  readonly maxTries?: number;
  readonly enqueuedAt: string | null;
  readonly visibleAt: string;
  readonly lastReadAt: string | null;
  readonly body: string;
  readonly headers: Record<string, unknown> | null;
}

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

export function messageRecord(m: Message): MessageRecord {
  return {
    id: m.id.toString(),
    state: m.state,
    readCount: m.readCount,
    ...(m.maxTries === undefined ? {} : { maxTries: m.maxTries }),
    enqueuedAt: iso(m.enqueuedAt),
    visibleAt: m.visibleAt.toISOString(),
    lastReadAt: iso(m.lastReadAt),
    body: m.body,
    headers: m.headers,
  };
}

export function queueRecord(q: QueueStats): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    out[k] = v instanceof Date ? v.toISOString() : v;
  }
  return out;
}

/** Table cells: short times without milliseconds, in UTC (the databases' clocks differ from ours anyway). */
export function shortTime(d: Date | null | undefined): string {
  if (!d) return '-';
  return d.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, 'Z');
}

/** 42s, 3m, 5h, 2d. */
export function shortAge(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '-';
  const s = Math.max(0, Math.round(seconds));
  if (s < 120) return `${s}s`;
  if (s < 120 * 60) return `${Math.floor(s / 60)}m`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

export interface TableView<T> {
  readonly columns: readonly TableColumn[];
  readonly row: (item: T) => readonly string[];
}

export interface ViewOptions {
  /** Show the SmoothMQ max-tries column. */
  readonly maxTries?: boolean;
}

export function messageTable(options: ViewOptions = {}): TableView<Message> {
  const columns: TableColumn[] = [
    { header: 'ID', align: 'right' },
    { header: 'STATE' },
    { header: 'READS', align: 'right' },
    ...(options.maxTries ? [{ header: 'MAX', align: 'right' as const }] : []),
    { header: 'ENQUEUED' },
    { header: 'VISIBLE AT' },
    // Headers come from senders and can be long: cut, so the body keeps its room.
    { header: 'HEADERS', maxWidth: 60 },
    { header: 'BODY' },
  ];
  return {
    columns,
    row: (m) => [
      m.id.toString(),
      m.state,
      String(m.readCount),
      ...(options.maxTries ? [m.maxTries === undefined || m.maxTries < 0 ? '∞' : String(m.maxTries)] : []),
      shortTime(m.enqueuedAt),
      shortTime(m.visibleAt),
      m.headers && Object.keys(m.headers).length > 0 ? JSON.stringify(m.headers) : '-',
      m.body,
    ],
  };
}

export interface QueueViewOptions {
  readonly failed: boolean;
  readonly archived: boolean;
  readonly tenant: boolean;
}

export function queueTable(options: QueueViewOptions): TableView<QueueStats> {
  const count = (n: number | undefined, estimated: boolean) => (n === undefined ? '-' : `${estimated ? '~' : ''}${n}`);
  const columns: TableColumn[] = [
    { header: 'QUEUE' },
    ...(options.tenant ? [{ header: 'TENANT', align: 'right' as const }] : []),
    { header: 'READY', align: 'right' },
    { header: 'IN FLIGHT', align: 'right' },
    { header: 'DELAYED', align: 'right' },
    ...(options.failed ? [{ header: 'FAILED', align: 'right' as const }] : []),
    { header: 'TOTAL', align: 'right' },
    ...(options.archived ? [{ header: 'ARCHIVED', align: 'right' as const }] : []),
    { header: 'OLDEST', align: 'right' },
    { header: 'NEWEST', align: 'right' },
  ];
  return {
    columns,
    row: (q) => [
      q.name,
      ...(options.tenant ? [q.tenant === undefined ? '-' : String(q.tenant)] : []),
      count(q.ready, q.estimated),
      count(q.inFlight, q.estimated),
      count(q.delayed, q.estimated),
      ...(options.failed ? [count(q.failed, q.estimated)] : []),
      count(q.total, q.estimated),
      ...(options.archived ? [count(q.archived, q.estimated)] : []),
      shortAge(q.oldestAgeSec),
      shortAge(q.newestAgeSec),
    ],
  };
}
