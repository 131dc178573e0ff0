// What Backend.queueDetails tells about one queue's storage (top's `i` on the queue list).

/** One of a queue's tables (pgmq: q_<name> and a_<name>). */
export interface TableDetails {
  readonly role: 'queue' | 'archive';
  /** The server-quoted name, e.g. pgmq.q_orders. */
  readonly name: string;
  /** Heap (with TOAST) and index bytes; a partitioned table's partitions summed. */
  readonly tableBytes: number;
  readonly indexBytes: number;
  /** The statistics collector's counts; null where it has none (a partitioned parent). */
  readonly liveTuples: number | null;
  readonly deadTuples: number | null;
  readonly lastAutovacuum: Date | null;
  readonly lastVacuum: Date | null;
  readonly lastAutoanalyze: Date | null;
  /** Index names. */
  readonly indexes: readonly string[];
}

export interface QueueDetails {
  /** The name as stored. */
  readonly name: string;
  readonly createdAt: Date | null;
  /** pgmq meta. */
  readonly unlogged?: boolean;
  readonly partitioned?: boolean;
  readonly tables: readonly TableDetails[];
  /** capabilities.notifyInsert: insert notifications' throttle in ms; null: off. */
  readonly notifyThrottleMs?: number | null;
  /** capabilities.groups: the GIN index on headers for FIFO reads (create_fifo_index); null: none. */
  readonly fifoIndex?: string | null;
  /** SmoothMQ queue settings. */
  readonly visibilityTimeoutSec?: number;
  readonly maxRetries?: number;
  readonly rateLimit?: number;
  /** SQLite: the file's and its WAL's size (every queue shares them). */
  readonly fileBytes?: number;
  readonly walBytes?: number;
}
