// SmoothMQ's SQLite schema, statement for statement as its gorm AutoMigrate writes it
// (see DESIGN.md, "SmoothMQ SQLite facts"). sqlite_master keeps each statement's text as
// given, so these strings must not be reformatted: with other text, or other constraint
// names, SmoothMQ's next AutoMigrate rebuilds the tables.

export const SMOOTHMQ_DDL: readonly string[] = [
  'CREATE TABLE `queues` (`id` integer,`tenant_id` integer NOT NULL,`name` text NOT NULL,`rate_limit` real NOT NULL,`max_retries` integer NOT NULL,`visibility_timeout` integer NOT NULL,PRIMARY KEY (`id`))',
  'CREATE UNIQUE INDEX `idx_queue_name` ON `queues`(`tenant_id`,`name`)',
  'CREATE TABLE `messages` (`id` integer,`tenant_id` integer NOT NULL,`queue_id` integer NOT NULL,`deliver_at` integer NOT NULL,`delivered_at` integer NOT NULL,`tries` integer NOT NULL,`max_tries` integer NOT NULL,`message` text NOT NULL,PRIMARY KEY (`id`),CONSTRAINT `fk_queues_messages` FOREIGN KEY (`queue_id`) REFERENCES `queues`(`id`))',
  'CREATE INDEX `idx_message` ON `messages`(`tenant_id`,`queue_id`,`deliver_at`,`delivered_at`,`tries`,`max_tries`)',
  'CREATE TABLE `kvs` (`tenant_id` integer NOT NULL,`queue_id` integer NOT NULL,`message_id` integer NOT NULL,`k` text NOT NULL,`v` text NOT NULL,CONSTRAINT `fk_messages_kv` FOREIGN KEY (`tenant_id`,`queue_id`,`message_id`) REFERENCES `messages`(`tenant_id`,`queue_id`,`id`))',
  'CREATE INDEX `idx_kv` ON `kvs`(`tenant_id`,`queue_id`,`message_id`)',
  'CREATE TABLE `rate_limits` (`tenant_id` integer NOT NULL,`queue_id` integer NOT NULL,`ts` integer NOT NULL,`n` integer NOT NULL DEFAULT 0)',
  'CREATE UNIQUE INDEX `idx_ratelimit` ON `rate_limits`(`tenant_id`,`queue_id`,`ts`)',
];

/** The columns smq reads and writes; a file without them is not one smq can work on. */
export const REQUIRED_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  queues: ['id', 'tenant_id', 'name', 'rate_limit', 'max_retries', 'visibility_timeout'],
  messages: ['id', 'tenant_id', 'queue_id', 'deliver_at', 'delivered_at', 'tries', 'max_tries', 'message'],
  kvs: ['tenant_id', 'queue_id', 'message_id', 'k', 'v'],
};

/** Older SmoothMQ releases may lack it; smq then skips rate limiting. */
export const OPTIONAL_TABLE_RATE_LIMITS = 'rate_limits';

export type SchemaCheck =
  | { readonly kind: 'empty' }
  | { readonly kind: 'smoothmq'; readonly hasRateLimits: boolean }
  | { readonly kind: 'foreign'; readonly problem: string };

/**
 * Classifies a database by its tables and columns.
 * `columnsOf` returns the column names of a table, or an empty list when it does not exist.
 */
export function checkSchema(tables: readonly string[], columnsOf: (table: string) => readonly string[]): SchemaCheck {
  const userTables = tables.filter((t) => !t.startsWith('sqlite_'));
  if (userTables.length === 0) return { kind: 'empty' };
  for (const [table, columns] of Object.entries(REQUIRED_COLUMNS)) {
    if (!userTables.includes(table)) {
      const hint = table === 'kvs' && userTables.includes('kv') ? ' (an older SmoothMQ format with table kv)' : '';
      return { kind: 'foreign', problem: `it has no table ${table}${hint}` };
    }
    const present = new Set(columnsOf(table));
    const missing = columns.filter((c) => !present.has(c));
    if (missing.length > 0) {
      return { kind: 'foreign', problem: `table ${table} lacks column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}` };
    }
  }
  return { kind: 'smoothmq', hasRateLimits: userTables.includes(OPTIONAL_TABLE_RATE_LIMITS) };
}
