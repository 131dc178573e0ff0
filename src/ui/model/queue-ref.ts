// What the screens pass around about a queue: the name the backend knows, the name people
// read (kept as data: prompts compare with it, nobody takes a label apart), and the label.
import type { QueueRow } from './rows.js';
import { displayName } from './format.js';

export interface QueueRef {
  /** The row key (tenant + raw name). */
  readonly key: string;
  /** The name the backend knows. */
  readonly rawName: string;
  /** The name as shown (decoded, escaped), without its tenant: what purge asks to type. */
  readonly name: string;
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
    name,
    label: showTenant && row.tenant !== undefined ? `${name} (tenant ${displayName(row.tenant)})` : name,
    tenant: row.backendTenant,
  };
}
