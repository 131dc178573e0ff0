// What the screens pass around about a queue: the name the backend knows, the name people
// read (kept as data: prompts compare with it, nobody takes a label apart), and the label.
import type { QueueRow } from './rows.js';
import { displayName } from './format.js';
import { escapeControl, readShownName } from '../../text/escape.js';

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

/**
 * Whether `typed` names this queue (what purge and drop ask for): read as the list writes
 * names (readShownName), so typing what the list shows for the highlighted queue confirms
 * it, and what it shows for another queue (`ev\\e[2Jil` is not `ev\e[2Jil`) does not. The
 * name the backend knows counts too (a SmoothMQ driver name before it is decoded), read the
 * same way.
 */
export function typedNameIs(typed: string, queue: QueueRef): boolean {
  const name = readShownName(typed);
  return name !== undefined && (name === queue.rawName || displayName(name) === queue.name);
}

/** The queue a typed target (move to) names, read as the list writes names; a problem when it names none. */
export function typedQueueName(typed: string): { readonly name: string } | { readonly problem: string } {
  const name = readShownName(typed);
  if (name === undefined) return { problem: `${escapeControl(typed)} is not a name as the list writes it (a backslash is written \\\\)` };
  return { name };
}
