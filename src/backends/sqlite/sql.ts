// Every SQL statement the SmoothMQ backend runs. Fixed text only: values (names, bodies, ids,
// times) are always bound as named parameters (@name), never spliced in. Lists of ids are
// bound as one JSON array and read back with json_each.
//
// Message states, by SmoothMQ's rules (times are Unix seconds, @now is the caller's clock):
//   failed   max_tries <> -1 AND tries >= max_tries AND deliver_at <= now
//   ready    deliver_at <= now and not failed
//   inflight deliver_at > now AND tries > 0        (SmoothMQ's "Dequeued")
//   delayed  deliver_at > now AND tries = 0        (sent with a delay, never delivered)
// The four cases cover every row, so ready + inflight + delayed + failed = total.

/** Column prefix: 'm.' inside the stats join, '' elsewhere (RETURNING takes no qualifiers). */
type Prefix = '' | 'm.';

const failed = (p: Prefix) => `(${p}deliver_at <= @now AND ${p}max_tries <> -1 AND ${p}tries >= ${p}max_tries)`;

export const STATE_EXPR = `CASE
    WHEN ${failed('')} THEN 'failed'
    WHEN deliver_at <= @now THEN 'ready'
    WHEN tries > 0 THEN 'inflight'
    ELSE 'delayed'
  END`;

/**
 * What SmoothMQ's own dequeue hands out: visible, not handed out in the future, tries left.
 * delivered_at is 0 until the first delivery.
 */
const CLAIMABLE = `deliver_at <= @now AND delivered_at <= @now AND (max_tries = -1 OR tries < max_tries)`;

const IN_QUEUE = `tenant_id = @tenant AND queue_id = @queue`;
const IDS = `(SELECT value FROM json_each(@ids))`;
/** For statements by id: unary + keeps SQLite on the rowid instead of scanning the queue in idx_message. */
const ROW_IN_QUEUE = `+tenant_id = @tenant AND +queue_id = @queue`;
const MESSAGE_COLUMNS = `id, tries, max_tries, deliver_at, delivered_at, message`;

// ---- schema -------------------------------------------------------------------------------

export const LIST_TABLES = `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`;
export const TABLE_COLUMNS = `SELECT name FROM pragma_table_info(@table)`;
export const SQLITE_VERSION = `SELECT sqlite_version() AS version`;

// ---- queues -------------------------------------------------------------------------------

export const FIND_QUEUE = `SELECT id, max_retries, visibility_timeout, rate_limit
  FROM queues WHERE tenant_id = @tenant AND name = @name`;

export const INSERT_QUEUE = `INSERT INTO queues (id, tenant_id, name, rate_limit, max_retries, visibility_timeout)
  VALUES (@id, @tenant, @name, @rateLimit, @maxRetries, @visibilityTimeout)
  ON CONFLICT (tenant_id, name) DO NOTHING`;

export const DELETE_QUEUE = `DELETE FROM queues WHERE tenant_id = @tenant AND id = @queue`;
export const DELETE_QUEUE_KVS = `DELETE FROM kvs WHERE tenant_id = @tenant AND queue_id = @queue`;
/** Every message of a queue, failed ones too (a drop confirmed as empty counts them in its transaction). */
export const COUNT_QUEUE_MESSAGES = `SELECT count(*) AS n FROM messages WHERE tenant_id = @tenant AND queue_id = @queue`;
export const DELETE_QUEUE_MESSAGES = `DELETE FROM messages WHERE tenant_id = @tenant AND queue_id = @queue`;
export const DELETE_QUEUE_RATE_LIMITS = `DELETE FROM rate_limits WHERE tenant_id = @tenant AND queue_id = @queue`;

// One statement for every queue's counts: the LEFT JOIN walks idx_message, which covers
// every column used here (id is the rowid), so no table rows are read.
const STATS_SELECT = `SELECT q.id AS queue_id, q.tenant_id, q.name, q.rate_limit, q.max_retries, q.visibility_timeout,
    count(m.id) AS total,
    coalesce(sum(CASE WHEN ${failed('m.')} THEN 1 ELSE 0 END), 0) AS failed,
    coalesce(sum(CASE WHEN m.deliver_at <= @now AND NOT ${failed('m.')} THEN 1 ELSE 0 END), 0) AS ready,
    coalesce(sum(CASE WHEN m.deliver_at > @now AND m.tries > 0 THEN 1 ELSE 0 END), 0) AS in_flight,
    coalesce(sum(CASE WHEN m.deliver_at > @now AND m.tries <= 0 THEN 1 ELSE 0 END), 0) AS delayed,
    min(m.id) AS oldest_id,
    max(m.id) AS newest_id
  FROM queues q
  LEFT JOIN messages m ON m.tenant_id = q.tenant_id AND m.queue_id = q.id`;

/** @tenant NULL: every tenant. */
export const LIST_QUEUE_STATS = `${STATS_SELECT}
  WHERE (@tenant IS NULL OR q.tenant_id = @tenant)
  GROUP BY q.id
  ORDER BY q.tenant_id, q.name`;

export const QUEUE_STATS = `${STATS_SELECT}
  WHERE q.tenant_id = @tenant AND q.name = @name
  GROUP BY q.id`;

// ---- messages -----------------------------------------------------------------------------

export const INSERT_MESSAGE = `INSERT INTO messages (id, tenant_id, queue_id, deliver_at, delivered_at, tries, max_tries, message)
  VALUES (@id, @tenant, @queue, @deliverAt, 0, 0, @maxTries, @body)`;

export const INSERT_KV = `INSERT INTO kvs (tenant_id, queue_id, message_id, k, v)
  VALUES (@tenant, @queue, @message, @k, @v)`;

export const SELECT_KVS = `SELECT message_id, k, v FROM kvs
  WHERE tenant_id = @tenant AND queue_id = @queue AND message_id IN ${IDS}
  ORDER BY rowid`;

/**
 * Hand-out order: idx_message's own order (longest visible first; a batch sent in one second
 * comes out by id). Walking the index in order stops after @limit entries, where ORDER BY id
 * would sort every visible message of the queue on each receive (7 ms at 100k messages).
 */
const CLAIM_ORDER = `ORDER BY deliver_at, delivered_at, tries, max_tries, id`;

/** The recheck without index use (unary +), so the outer UPDATE finds its rows by rowid. */
const STILL_CLAIMABLE = `+tenant_id = @tenant AND +queue_id = @queue
    AND +deliver_at <= @now AND +delivered_at <= @now AND (+max_tries = -1 OR +tries < +max_tries)`;

/**
 * The safe claim, run inside BEGIN IMMEDIATE: the write lock is held from before the
 * candidates are chosen until the commit, and the outer WHERE repeats the visibility test,
 * so a row claimed by anyone else is never claimed again while its lease lasts.
 */
export const CLAIM_MESSAGES = `UPDATE messages
  SET delivered_at = @now, deliver_at = @visibleAt, tries = tries + 1
  WHERE id IN (
      SELECT id FROM messages
      WHERE ${IN_QUEUE} AND ${CLAIMABLE}
      ${CLAIM_ORDER}
      LIMIT @limit)
    AND ${STILL_CLAIMABLE}
  RETURNING ${MESSAGE_COLUMNS}`;

/**
 * Only bodies that are a JSON object with "r" = @runId (the tester on a queue holding others'
 * messages): anything else is not claimed, its tries untouched. Bodies come from strangers:
 * read as text, and json_type / json_extract only once json_valid said yes (CASE keeps the order).
 */
const OF_RUN = `CASE WHEN json_valid(CAST(message AS TEXT))
      THEN json_type(CAST(message AS TEXT), '$.r') = 'text' AND json_extract(CAST(message AS TEXT), '$.r') = @runId
      ELSE 0 END`;

/** CLAIM_MESSAGES for one run's messages only; a separate statement, the plain claim stays as it is. */
export const CLAIM_RUN_MESSAGES = `UPDATE messages
  SET delivered_at = @now, deliver_at = @visibleAt, tries = tries + 1
  WHERE id IN (
      SELECT id FROM messages
      WHERE ${IN_QUEUE} AND ${CLAIMABLE} AND ${OF_RUN}
      ${CLAIM_ORDER}
      LIMIT @limit)
    AND ${STILL_CLAIMABLE}
  RETURNING ${MESSAGE_COLUMNS}`;

/** NAIVE_SELECT_CANDIDATES for one run's messages only. */
export const NAIVE_SELECT_RUN_CANDIDATES = `SELECT id FROM messages
  WHERE ${IN_QUEUE} AND ${CLAIMABLE} AND ${OF_RUN}
  ${CLAIM_ORDER}
  LIMIT @limit`;

/** naive dequeue, step 1 (SmoothMQ's own): pick candidates, no lock held afterwards. */
export const NAIVE_SELECT_CANDIDATES = `SELECT id FROM messages
  WHERE ${IN_QUEUE} AND ${CLAIMABLE}
  ${CLAIM_ORDER}
  LIMIT @limit`;

/** naive dequeue, step 2: update by id without looking at visibility again (the race). */
export const NAIVE_UPDATE_BY_ID = `UPDATE messages
  SET delivered_at = @now, deliver_at = @visibleAt, tries = tries + 1
  WHERE id IN ${IDS} AND ${ROW_IN_QUEUE}
  RETURNING ${MESSAGE_COLUMNS}`;

export const DELETE_MESSAGES = `DELETE FROM messages
  WHERE id IN ${IDS} AND ${ROW_IN_QUEUE}
  RETURNING id`;

export const DELETE_MESSAGE_KVS = `DELETE FROM kvs
  WHERE tenant_id = @tenant AND queue_id = @queue AND message_id IN ${IDS}`;

export const SET_VISIBILITY = `UPDATE messages
  SET deliver_at = @visibleAt
  WHERE id IN ${IDS} AND ${ROW_IN_QUEUE}
  RETURNING id`;

// Peek: plain SELECTs. @after NULL: from the start; @state 'all': every state.
// The inner SELECT picks ids from idx_message alone (the state needs only indexed columns);
// only the @limit rows chosen are read from the table.
const PEEK_FILTER = `${IN_QUEUE} AND (@state = 'all' OR (${STATE_EXPR}) = @state)`;

export const PEEK_OLDEST = `SELECT ${MESSAGE_COLUMNS} FROM messages
  WHERE id IN (
    SELECT id FROM messages
    WHERE ${PEEK_FILTER} AND (@after IS NULL OR id > @after)
    ORDER BY id
    LIMIT @limit)
  ORDER BY id`;

export const PEEK_NEWEST = `SELECT ${MESSAGE_COLUMNS} FROM messages
  WHERE id IN (
    SELECT id FROM messages
    WHERE ${PEEK_FILTER} AND (@after IS NULL OR id < @after)
    ORDER BY id DESC
    LIMIT @limit)
  ORDER BY id DESC`;

export const COUNT_BEFORE_OLDEST = `SELECT count(*) AS n FROM messages WHERE ${PEEK_FILTER} AND id < @id`;
export const COUNT_BEFORE_NEWEST = `SELECT count(*) AS n FROM messages WHERE ${PEEK_FILTER} AND id > @id`;

export const PEEK_ONE = `SELECT ${MESSAGE_COLUMNS} FROM messages
  WHERE id = @id AND ${ROW_IN_QUEUE} AND (@state = 'all' OR (${STATE_EXPR}) = @state)`;

// ---- rate limits (SmoothMQ's per-second buckets in rate_limits) ---------------------------

export const RATE_BUCKET = `SELECT n FROM rate_limits WHERE tenant_id = @tenant AND queue_id = @queue AND ts = @now`;

export const RATE_WINDOW = `SELECT coalesce(sum(n), 0) AS n, min(ts) AS first_ts FROM rate_limits
  WHERE tenant_id = @tenant AND queue_id = @queue AND ts >= @since`;

export const RATE_PRUNE = `DELETE FROM rate_limits WHERE tenant_id = @tenant AND queue_id = @queue AND ts < @before`;

export const RATE_RECORD = `INSERT INTO rate_limits (tenant_id, queue_id, ts, n) VALUES (@tenant, @queue, @now, @n)
  ON CONFLICT (tenant_id, queue_id, ts) DO UPDATE SET n = n + excluded.n`;
