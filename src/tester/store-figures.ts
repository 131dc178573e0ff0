// What a run cost the database (pgmq): the server's own counters for the queue's tables read
// before and after the run (Backend.storeActivity), turned into figures per message: WAL
// written, rows inserted/updated/deleted, dead tuples left, autovacuum runs, growth. A team
// choosing --ack archive or delete, batch sizes or unlogged queues wants exactly these.
import type { Backend, StoreActivity, TableActivity } from '../backends/index.js';
import { withDeadline } from './lifecycle.js';

/** The counters of backends that just closed reach the statistics a moment later: how long to wait for them. */
const STATS_SETTLE_MS = 3000;
const STATS_POLL_MS = 250;
const READ_DEADLINE_MS = 5000;

export interface TableChange {
  readonly table: string;
  /** During the run. */
  readonly inserted: number;
  readonly updated: number;
  readonly deleted: number;
  readonly autovacuums: number;
  readonly autoanalyzes: number;
  /** Dead tuples in the table when the run ended. */
  readonly deadTuplesAfter: number;
  readonly tableBytesBefore: number;
  readonly tableBytesAfter: number;
  readonly indexBytesBefore: number;
  readonly indexBytesAfter: number;
}

export interface DatabaseFigures {
  /** WAL the server wrote from the run's start to its end (all of the server's work, not only the run's). */
  readonly walBytes: number;
  /** walBytes per message sent; null when none was. */
  readonly walBytesPerMessage: number | null;
  readonly tables: readonly TableChange[];
  /** synchronous_commit, fsync, full_page_writes, wal_level, synchronous_standby_names, autovacuum at the start. */
  readonly settings: Readonly<Record<string, string>>;
}

/**
 * The counters of the run's queues (--topic: every bound queue) now, or undefined when the
 * store has none or they cannot be read (the report goes on without).
 */
export async function readActivity(backend: Backend, queues: readonly string[]): Promise<StoreActivity | undefined> {
  if (!backend.storeActivity) return undefined;
  try {
    return await withDeadline(backend.storeActivity(queues), READ_DEADLINE_MS, 'reading the queue tables counters');
  } catch {
    return undefined;
  }
}

/** What the run did that the counters must show before they are read: rows inserted into and deleted from q_. */
export interface ExpectedCounts {
  /** Sends the queue acknowledged. */
  readonly inserted: number;
  /** Messages whose delete (or archive) succeeded. */
  readonly deleted: number;
}

/**
 * The counters after the run, once they show the run's inserts and deletes. Each worker's
 * connection reports its counts as it closes, a moment after the worker is done, and not
 * all at once: the senders' inserts can be in while the receivers' reads and deletes are not.
 */
export async function readActivityAfter(
  backend: Backend,
  queues: readonly string[],
  before: StoreActivity | undefined,
  expected: ExpectedCounts,
): Promise<StoreActivity | undefined> {
  if (!before) return undefined;
  const deadline = Date.now() + STATS_SETTLE_MS;
  for (;;) {
    const after = await readActivity(backend, queues);
    if (!after) return undefined;
    // Another server's counters (a failover) will never show the run's counts: no wait.
    if (countersMoved(before, after) !== undefined) return after;
    const grew = (key: 'inserted' | 'deleted') => sumOf(after, key, 'q_') - sumOf(before, key, 'q_');
    if ((grew('inserted') >= expected.inserted && grew('deleted') >= expected.deleted) || Date.now() >= deadline) return after;
    await new Promise((r) => setTimeout(r, STATS_POLL_MS));
  }
}

/**
 * What the run cost the database: the counters read again once they show the run's sends
 * and deletes, less those read before it; no figures, and why, when the two reads are two
 * servers' (a failover, a restart).
 */
export async function databaseAfterRun(
  backend: Backend,
  queues: readonly string[],
  before: StoreActivity | undefined,
  done: { readonly ackedSends: number; readonly ackedDeletes: number },
): Promise<{ readonly figures: DatabaseFigures | null; readonly warning?: string }> {
  const after = await readActivityAfter(backend, queues, before, { inserted: done.ackedSends, deleted: done.ackedDeletes });
  const warning = countersMoved(before, after);
  return { figures: databaseFigures(before, after, done.ackedSends), ...(warning === undefined ? {} : { warning }) };
}

const sumOf = (a: StoreActivity, key: keyof TableActivity, prefix: string) =>
  a.tables.filter((t) => t.table.startsWith(prefix)).reduce((s, t) => s + Number(t[key]), 0);

/**
 * Why there are no figures when the counters before and after the run are two servers'
 * (a failover, a restart: each counts from its own start); undefined when they are one's.
 */
export function countersMoved(before: StoreActivity | undefined, after: StoreActivity | undefined): string | undefined {
  if (!before || !after || before.server === after.server) return undefined;
  const where = (a: StoreActivity) => a.server ?? 'a server that did not say which';
  return (
    `no database figures: the counters were read on ${where(before)} before the run and on ${where(after)} after it ` +
    '(a failover or a restart), and counters of two servers do not subtract'
  );
}

export function databaseFigures(before: StoreActivity | undefined, after: StoreActivity | undefined, sent: number): DatabaseFigures | null {
  if (!before || !after || countersMoved(before, after) !== undefined) return null;
  const walBytes = Math.max(0, after.walBytes - before.walBytes);
  const tables = after.tables.map((a): TableChange => {
    const b = before.tables.find((t) => t.table === a.table);
    const d = (k: 'inserted' | 'updated' | 'deleted' | 'autovacuums' | 'autoanalyzes') => Math.max(0, a[k] - (b?.[k] ?? 0));
    return {
      table: a.table,
      inserted: d('inserted'),
      updated: d('updated'),
      deleted: d('deleted'),
      autovacuums: d('autovacuums'),
      autoanalyzes: d('autoanalyzes'),
      deadTuplesAfter: a.deadTuples,
      tableBytesBefore: b?.tableBytes ?? 0,
      tableBytesAfter: a.tableBytes,
      indexBytesBefore: b?.indexBytes ?? 0,
      indexBytesAfter: a.indexBytes,
    };
  });
  return { walBytes, walBytesPerMessage: sent > 0 ? walBytes / sent : null, tables, settings: before.settings };
}

const bytes = (n: number) => {
  const units = ['B', 'kB', 'MB', 'GB'];
  let v = Math.abs(n);
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${n < 0 ? '-' : ''}${u === 0 ? Math.round(v).toLocaleString('en-US') : v.toFixed(1)} ${units[u]}`;
};
const signed = (n: number) => (n >= 0 ? `+${bytes(n)}` : bytes(n));
const int = (n: number) => n.toLocaleString('en-US');

/** The report's lines: WAL per message, then one line per table. */
export function databaseLines(f: DatabaseFigures): string[] {
  const wal =
    f.walBytesPerMessage === null
      ? `${bytes(f.walBytes)} of WAL`
      : `${bytes(f.walBytesPerMessage)} of WAL per message (${bytes(f.walBytes)} in all, the whole server's)`;
  const settings = Object.entries(f.settings).map(([k, v]) => `${k}=${v === '' ? "''" : v}`);
  const lines = [wal, ...(settings.length > 0 ? [`settings: ${settings.join(', ')}`] : [])];
  for (const t of f.tables) {
    const vacuums = t.autovacuums === 0 ? 'no autovacuum' : `${t.autovacuums} autovacuum${t.autovacuums === 1 ? '' : 's'}`;
    lines.push(
      `${t.table}: ${int(t.inserted)} inserted, ${int(t.updated)} updated, ${int(t.deleted)} deleted; ` +
        `${int(t.deadTuplesAfter)} dead tuples left, ${vacuums}; table ${signed(t.tableBytesAfter - t.tableBytesBefore)} ` +
        `(${bytes(t.tableBytesAfter)}), indexes ${signed(t.indexBytesAfter - t.indexBytesBefore)}`,
    );
  }
  return lines;
}
