// What the screens pass around about a queue.
import type { QueueRow } from '../model/rows.js';
import { displayName } from '../model/format.js';

export interface QueueRef {
  /** The row key (tenant + raw name). */
  readonly key: string;
  /** The name the backend knows. */
  readonly rawName: string;
  /** Escaped, with its tenant when it has one: what the screens show. */
  readonly label: string;
  /** SmoothMQ tenant whose backend must act on the queue. */
  readonly tenant: number | undefined;
}

/** showTenant: the list has more than one tenant, so names alone are ambiguous. */
export function queueRefOf(row: QueueRow, showTenant: boolean): QueueRef {
  const name = displayName(row.name);
  return {
    key: row.key,
    rawName: row.rawName,
    label: showTenant && row.tenant !== undefined ? `${name} (tenant ${displayName(row.tenant)})` : name,
    tenant: row.backendTenant,
  };
}
