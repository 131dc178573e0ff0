// What the connected pgmq offers, read from the server once when a backend opens (sql.PROBE):
// functions by their exact signatures (to_regprocedure), columns from pgmq.message_record. By
// signature rather than by version number, because pgmq installed from its SQL file records
// no version, and smq's compat schema says which pgmq it emulates but is judged the same way.
import type { Capabilities } from '../types.js';

/** The probe's answers that capabilities are made of. */
export interface FeatureProbe {
  /** Columns of pgmq.message_record. */
  readonly cols: readonly string[] | null;
  readonly conditional: boolean;
  readonly groups: boolean;
  readonly grouped_head: boolean;
  readonly topics: boolean;
  readonly notify_insert: boolean;
  /**
   * smq's compat schema's trigger function, which finds a queue's setting by the name as given
   * (pgmq's own, notify_queue_listeners, by the table's lower-case name: a queue named with
   * capitals is never notified).
   */
  readonly notify_capitals: boolean;
  readonly set_vt_at: boolean;
  readonly pop_qty: boolean;
}

export function pgmqCapabilities(probe: FeatureProbe): Capabilities {
  const cols = new Set(probe.cols ?? []);
  return {
    archive: true,
    headers: cols.has('headers'),
    attributes: false,
    tenants: false,
    maxRetries: false,
    failedState: false,
    unlogged: true,
    jsonBodies: true,
    // pgmq 1.5+ (and the compat schema): read(queue, vt, qty, conditional jsonb); 1.4 has no filter.
    receiveByRunId: probe.conditional,
    lastReadAt: cols.has('last_read_at'),
    // Groups are keyed on a header: without the headers column there are none to read by.
    groups: probe.groups && cols.has('headers'),
    groupedHead: probe.grouped_head && cols.has('headers'),
    topics: probe.topics,
    notifyInsert: probe.notify_insert,
    notifyCapitals: probe.notify_insert && probe.notify_capitals,
    setVtAt: probe.set_vt_at,
    popQty: probe.pop_qty,
  };
}
