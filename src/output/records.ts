// How queues and messages look in each output format, for the commands and for top's
// snapshots alike. JSON records keep the contract's field names (camelCase), with ids as
// strings and dates as ISO strings.
import type { Message, MessageState, QueueStats } from '../backends/types.js';
import { formatAge } from '../text/age.js';
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

/**
 * One queue in JSON, for `smq queues` and `smq top --once --json` alike: the counts first,
 * rates (null where a single listing cannot know them), then whatever else the backend
 * knows about the queue. Tenants are ids, so strings, as message ids are.
 */
export interface QueueRecord {
  /** As people read it (top decodes SmoothMQ pgmq-driver names); `rawName` is the backend's when it differs. */
  readonly name: string;
  readonly rawName?: string;
  readonly tenant?: string;
  readonly ready: number;
  readonly inFlight: number;
  readonly delayed: number;
  readonly failed?: number;
  readonly total: number;
  readonly archived?: number;
  readonly oldestAgeSec: number | null;
  readonly newestAgeSec: number | null;
  readonly estimated: boolean;
  readonly inPerSec: number | null;
  readonly outPerSec: number | null;
  /** createdAt (ISO), queue settings, counters: as the backend gave them. */
  readonly [more: string]: unknown;
}

/** What top adds to a backend's stats: the name as shown, its tenant, rates between refreshes. */
export interface QueueShown {
  readonly name: string;
  readonly rawName: string;
  readonly tenant: string | undefined;
  readonly inPerSec: number | null;
  readonly outPerSec: number | null;
}

export function queueRecord(q: QueueStats, shown?: QueueShown): QueueRecord {
  const { name, tenant, ready, inFlight, delayed, failed, total, archived, oldestAgeSec, newestAgeSec, estimated, ...more } = q;
  const tenantText = shown ? shown.tenant : tenant === undefined ? undefined : String(tenant);
  const out: Record<string, unknown> = {
    name: shown?.name ?? name,
    ...(shown && shown.name !== shown.rawName ? { rawName: shown.rawName } : {}),
    ...(tenantText !== undefined ? { tenant: tenantText } : {}),
    ready,
    inFlight,
    delayed,
    ...(failed !== undefined ? { failed } : {}),
    total,
    ...(archived !== undefined ? { archived } : {}),
    oldestAgeSec,
    newestAgeSec,
    estimated,
    inPerSec: shown?.inPerSec ?? null,
    outPerSec: shown?.outPerSec ?? null,
  };
  for (const [k, v] of Object.entries(more)) {
    if (v === undefined) continue;
    out[k] = v instanceof Date ? v.toISOString() : v;
  }
  return out as QueueRecord;
}

/** Message states in words, as every table and screen writes them (JSON and --state keep the ids). */
export const STATE_WORDS: Record<MessageState, string> = {
  ready: 'ready',
  inflight: 'in flight',
  delayed: 'delayed',
  failed: 'failed',
};

/** Table cells: short times without milliseconds, in UTC (the databases' clocks differ from ours anyway). */
export function shortTime(d: Date | null | undefined): string {
  if (!d) return '-';
  return d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, 'Z');
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
      STATE_WORDS[m.state],
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
  /** A NOTIFY column: insert notifications' throttle, or off (capabilities.notifyInsert). */
  readonly notify?: boolean;
}

export function queueTable(options: QueueViewOptions): TableView<QueueStats> {
  const count = (n: number | undefined, estimated: boolean) => (n === undefined ? '-' : `${estimated ? '~' : ''}${n}`);
  const columns: TableColumn[] = [
    { header: 'QUEUE', names: true },
    ...(options.tenant ? [{ header: 'TENANT', align: 'right' as const }] : []),
    { header: 'READY', align: 'right' },
    { header: 'IN FLIGHT', align: 'right' },
    { header: 'DELAYED', align: 'right' },
    ...(options.failed ? [{ header: 'FAILED', align: 'right' as const }] : []),
    { header: 'TOTAL', align: 'right' },
    ...(options.archived ? [{ header: 'ARCHIVED', align: 'right' as const }] : []),
    { header: 'OLDEST', align: 'right' },
    { header: 'NEWEST', align: 'right' },
    ...(options.notify ? [{ header: 'NOTIFY', align: 'right' as const }] : []),
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
      formatAge(q.oldestAgeSec),
      formatAge(q.newestAgeSec),
      ...(options.notify
        ? [q.notifyThrottleMs === undefined ? '-' : q.notifyThrottleMs === null ? 'off' : `${q.notifyThrottleMs} ms`]
        : []),
    ],
  };
}
