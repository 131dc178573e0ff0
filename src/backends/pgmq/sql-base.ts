// What every pgmq statement builder shares: the statement shape and the message columns an
// install has (sql.ts re-exports this file).

export interface Query {
  readonly text: string;
  readonly values: unknown[];
  /**
   * Hot-path statements are named, so node-postgres prepares them once per connection and
   * the server skips parsing and planning on every call (the tester's send/read/delete loop).
   * A name must stand for one text only: it carries the column variant.
   */
  readonly name?: string;
}

export const variant = (cols: Columns) => `${cols.headers ? 'h' : ''}${cols.lastReadAt ? 'l' : ''}`;

/** Which optional message columns this pgmq install has (1.5+: headers, 1.10+: last_read_at). */
export interface Columns {
  readonly headers: boolean;
  readonly lastReadAt: boolean;
}

// The tester's loops build a read per call: the column list is made once per shape.
const columnLists = new Map<string, string>();

export function messageColumns(cols: Columns, prefix = ''): string {
  const key = `${variant(cols)}/${prefix}`;
  let list = columnLists.get(key);
  if (list === undefined) {
    list = buildColumns(cols, prefix);
    if (columnLists.size < 64) columnLists.set(key, list);
  }
  return list;
}

function buildColumns(cols: Columns, prefix: string): string {
  const p = prefix ? `${prefix}.` : '';
  const list = [`${p}msg_id`, `${p}read_ct`, `${p}enqueued_at`, `${p}vt`, `${p}message::text AS message`];
  list.push(cols.headers ? `${p}headers` : 'NULL::jsonb AS headers');
  list.push(cols.lastReadAt ? `${p}last_read_at` : 'NULL::timestamptz AS last_read_at');
  return list.join(', ');
}

/**
 * "Now" for judging a message's state: a clock read once while the statement runs, after its
 * snapshot was taken. now() is the statement's start, before it: a send whose vt
 * (clock_timestamp()) came after that and that committed before the snapshot was counted
 * delayed. pgmq's own read compares vt with clock_timestamp() too.
 */
export const SEEN_AT = '(SELECT clock_timestamp())';
