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

const FAILED = `(m.deliver_at <= @now AND m.max_tries <> -1 AND m.tries >= m.max_tries)`;

export const STATE_EXPR = `CASE
    WHEN ${FAILED} THEN 'failed'
    WHEN m.deliver_at <= @now THEN 'ready'
    WHEN m.tries > 0 THEN 'inflight'
    ELSE 'delayed'
  END`;

/**
 * What SmoothMQ's own dequeue hands out: visible, not handed out in the future, tries left.
 * delivered_at is 0 until the first delivery.
 */
const CLAIMABLE = `m.deliver_at <= @now AND m.delivered_at <= @now AND (m.max_tries = -1 OR m.tries < m.max_tries)`;

const IN_QUEUE = `m.tenant_id = @tenant AND m.queue_id = @queue`;
const IDS = `(SELECT value FROM json_each(@ids))`;
const MESSAGE_COLUMNS = `m.id, m.tries, m.max_tries, m.deliver_at, m.delivered_at, m.message`;

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
export const DELETE_QUEUE_MESSAGES = `DELETE FROM messages WHERE tenant_id = @tenant AND queue_id = @queue`;
export const DELETE_QUEUE_RATE_LIMITS = `DELETE FROM rate_limits WHERE tenant_id = @tenant AND queue_id = @queue`;

// One statement for every queue's counts: the LEFT JOIN walks idx_message, which covers
// every column used here (id is the rowid), so no table rows are read.
const STATS_SELECT = `SELECT q.id AS queue_id, q.tenant_id, q.name, q.rate_limit, q.max_retries, q.visibility_timeout,
    count(m.id) AS total,
    coalesce(sum(CASE WHEN ${FAILED} THEN 1 ELSE 0 END), 0) AS failed,
    coalesce(sum(CASE WHEN m.deliver_at <= @now AND NOT ${FAILED} THEN 1 ELSE 0 END), 0) AS ready,
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
 * The safe claim, run inside BEGIN IMMEDIATE: the write lock is held from before the
 * candidates are chosen until the commit, and the outer WHERE repeats the visibility test,
 * so a row claimed by anyone else is never claimed again while its lease lasts.
 */
export const CLAIM_MESSAGES = `UPDATE messages AS m
  SET delivered_at = @now, deliver_at = @visibleAt, tries = m.tries + 1
  WHERE m.id IN (
      SELECT m.id FROM messages AS m
      WHERE ${IN_QUEUE} AND ${CLAIMABLE}
      ORDER BY m.id
      LIMIT @limit)
    AND ${IN_QUEUE} AND ${CLAIMABLE}
  RETURNING ${MESSAGE_COLUMNS}`;

/** naive dequeue, step 1 (SmoothMQ's own): pick candidates, no lock held afterwards. */
export const NAIVE_SELECT_CANDIDATES = `SELECT m.id FROM messages AS m
  WHERE ${IN_QUEUE} AND ${CLAIMABLE}
  ORDER BY m.id
  LIMIT @limit`;

/** naive dequeue, step 2: update by id without looking at visibility again (the race). */
export const NAIVE_UPDATE_BY_ID = `UPDATE messages AS m
  SET delivered_at = @now, deliver_at = @visibleAt, tries = m.tries + 1
  WHERE ${IN_QUEUE} AND m.id IN ${IDS}
  RETURNING ${MESSAGE_COLUMNS}`;

export const DELETE_MESSAGES = `DELETE FROM messages AS m
  WHERE ${IN_QUEUE} AND m.id IN ${IDS}
  RETURNING m.id`;

export const DELETE_MESSAGE_KVS = `DELETE FROM kvs
  WHERE tenant_id = @tenant AND queue_id = @queue AND message_id IN ${IDS}`;

export const SET_VISIBILITY = `UPDATE messages AS m
  SET deliver_at = @visibleAt
  WHERE ${IN_QUEUE} AND m.id IN ${IDS}
  RETURNING m.id`;

// Peek: plain SELECTs. @after NULL: from the start; @state 'all': every state.
const PEEK_FILTER = `${IN_QUEUE} AND (@state = 'all' OR (${STATE_EXPR}) = @state)`;

export const PEEK_OLDEST = `SELECT ${MESSAGE_COLUMNS} FROM messages AS m
  WHERE ${PEEK_FILTER} AND (@after IS NULL OR m.id > @after)
  ORDER BY m.id
  LIMIT @limit`;

export const PEEK_NEWEST = `SELECT ${MESSAGE_COLUMNS} FROM messages AS m
  WHERE ${PEEK_FILTER} AND (@after IS NULL OR m.id < @after)
  ORDER BY m.id DESC
  LIMIT @limit`;

export const PEEK_ONE = `SELECT ${MESSAGE_COLUMNS} FROM messages AS m
  WHERE m.id = @id AND ${PEEK_FILTER}`;

// ---- rate limits (SmoothMQ's per-second buckets in rate_limits) ---------------------------

export const RATE_BUCKET = `SELECT n FROM rate_limits WHERE tenant_id = @tenant AND queue_id = @queue AND ts = @now`;

export const RATE_WINDOW = `SELECT coalesce(sum(n), 0) AS n, min(ts) AS first_ts FROM rate_limits
  WHERE tenant_id = @tenant AND queue_id = @queue AND ts >= @since`;

export const RATE_PRUNE = `DELETE FROM rate_limits WHERE tenant_id = @tenant AND queue_id = @queue AND ts < @before`;

export const RATE_RECORD = `INSERT INTO rate_limits (tenant_id, queue_id, ts, n) VALUES (@tenant, @queue, @now, @n)
  ON CONFLICT (tenant_id, queue_id, ts) DO UPDATE SET n = n + excluded.n`;
