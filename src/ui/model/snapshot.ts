// `smq top --once` and `smq top` outside a terminal: the queue list as plain text or JSON.
import type { Capabilities, ServerInfo } from '../../backends/types.js';
import { availableColumns, columnSpec, type ColumnId } from './columns.js';
import { displayName, fitText, formatAge, formatCount, formatRate } from './format.js';
import { distinctTenants, hasGroups, type QueueRow } from './rows.js';
import { queueRecord, type QueueRecord } from '../../output/records.js';

/** The text of one cell of the queue list (escaped, not padded). */
export function cellText(row: QueueRow, column: ColumnId): string {
  const s = row.stats;
  switch (column) {
    case 'tenant':
      return row.tenant === undefined ? '-' : displayName(row.tenant);
    case 'name':
      return displayName(row.name);
    case 'ready':
      return formatCount(s.ready, s.estimated);
    case 'inFlight':
      return formatCount(s.inFlight, s.estimated);
    case 'delayed':
      return formatCount(s.delayed, s.estimated);
    case 'total':
      return formatCount(s.total, s.estimated);
    case 'oldest':
      return formatAge(s.oldestAgeSec);
    case 'in':
      return formatRate(row.rate.inPerSec, row.rate.approximate);
    case 'out':
      return formatRate(row.rate.outPerSec, row.rate.approximate);
    case 'archived':
      return formatCount(s.archived, false);
    case 'failed':
      return formatCount(s.failed, s.estimated);
    case 'groups':
      return s.groups ? formatCount(s.groups, s.estimated) : '-';
    case 'notify':
      return notifyText(s.notifyThrottleMs);
    case 'spark':
      return '';
  }
}

/** Insert notifications: `on` (and the throttle in the queue view), `-` when off or unknown. */
export function notifyText(throttleMs: number | null | undefined): string {
  return throttleMs === null || throttleMs === undefined ? '-' : 'on';
}

/** An aligned table with every column but the sparkline; NAME as wide as the longest name. */
export function snapshotTable(rows: readonly QueueRow[], capabilities: Capabilities): string {
  const ids = availableColumns(capabilities, distinctTenants(rows) > 1, hasGroups(rows)).filter((id) => id !== 'spark');
  const widths = ids.map((id) => {
    const spec = columnSpec(id);
    const longest = Math.max(spec.title.length, ...rows.map((r) => Array.from(cellText(r, id)).length));
    return id === 'name' || id === 'tenant' ? longest : Math.max(spec.width, longest);
  });
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => fitText(c, widths[i]!, columnSpec(ids[i]!).align))
      .join(' ')
      .trimEnd();
  const out = [line(ids.map((id) => columnSpec(id).title))];
  for (const r of rows) out.push(line(ids.map((id) => cellText(r, id))));
  return `${out.join('\n')}\n`;
}

export interface SnapshotJson {
  readonly at: string;
  readonly backend: string;
  readonly server: string | undefined;
  readonly schema: string | undefined;
  readonly location: string;
  /** A multi-host target: the server (host:port) the snapshot was read from. */
  readonly host?: string;
  readonly queues: readonly QueueRecord[];
}

/** One JSON document: every queue as `smq queues` writes it (output/records), with its rates when known. */
export function snapshotJson(
  rows: readonly QueueRow[],
  meta: { readonly at: number; readonly info: ServerInfo | undefined; readonly backend: string; readonly location: string },
): SnapshotJson {
  return {
    at: new Date(meta.at).toISOString(),
    backend: meta.backend,
    server: meta.info?.serverVersion,
    schema: meta.info?.schema,
    location: meta.location,
    ...(meta.info?.host === undefined ? {} : { host: meta.info.host }),
    queues: rows.map((r) =>
      queueRecord(r.stats, { name: r.name, rawName: r.rawName, tenant: r.tenant, inPerSec: r.rate.inPerSec, outPerSec: r.rate.outPerSec }),
    ),
  };
}
