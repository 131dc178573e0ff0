// What the Backend contract's optional server capabilities answer (types.ts declares the
// methods): top's health line, the tester's connection budget, which server a connection is
// on, and what a run cost the database. Nothing here depends on the rest of the contract.

/** One health line for `smq top`'s header: what holds back vacuum, dead tuples, WAL size. */
export interface HealthInfo {
  readonly summary: string;
  readonly warnings: readonly string[];
  /** Replication, on a line of its own: each standby with its state and lag, or that this server is a standby. */
  readonly replication?: string;
}

/** Backend.connectionBudget: how many more connections this role may open to this database now. */
export interface ConnectionBudget {
  /** Connections this role may still open to this database. */
  readonly free: number;
  readonly maxConnections: number;
  /** superuser_reserved_connections (+ reserved_connections on PostgreSQL 16+). */
  readonly reserved: number;
  /** Client connections open on the server now. */
  readonly inUse: number;
  /** What sets `free`: max_connections, the database's CONNECTION LIMIT or the role's. */
  readonly limitedBy: 'server' | 'database' | 'role';
  /** That limit's value. */
  readonly limit: number;
}

/**
 * Backend.serverIdentity: which server a connection is on, so that a tester run can tell the
 * phases of a failover apart (and two primaries at once).
 */
export interface ServerIdentity {
  /** host:port the server answers on: its own address for this connection and its port setting. */
  readonly server: string;
  /** pg_control_system(): the cluster's (a streaming standby has its primary's); null: not readable. */
  readonly systemIdentifier: string | null;
  /** The WAL timeline: a promoted standby starts a new one; null: not readable. */
  readonly timeline: number | null;
  /** A standby (pg_is_in_recovery()). */
  readonly inRecovery: boolean;
}

/**
 * Backend.storeActivity: the server's own counters for a queue's tables, read before and
 * after a tester run (what a run cost the database: WAL, dead tuples, growth).
 */
export interface StoreActivity {
  /**
   * Whose counters these are: the server's address and port and when it started. Two reads
   * with different values (a failover, a restart) cannot be subtracted. Null: not readable.
   */
  readonly server: string | null;
  /** The server's WAL position in bytes (pg_current_wal_lsn); only differences mean anything. */
  readonly walBytes: number;
  readonly tables: readonly TableActivity[];
  /** Server settings that change what a write costs and keeps: synchronous_commit, fsync, wal_level … */
  readonly settings: Readonly<Record<string, string>>;
}

export interface TableActivity {
  /** q_<queue> or a_<queue>. */
  readonly table: string;
  /** pg_stat_user_tables: rows inserted, updated, deleted since the statistics were reset. */
  readonly inserted: number;
  readonly updated: number;
  readonly deleted: number;
  readonly deadTuples: number;
  readonly autovacuums: number;
  readonly autoanalyzes: number;
  /** pg_relation_size and pg_indexes_size. */
  readonly tableBytes: number;
  readonly indexBytes: number;
}
