// SQL for top's operator actions on a SmoothMQ file (ops.ts). SmoothMQ has no archive: its
// "archive" is the queue's failed messages (tries used up, visibility expired). Fixed text,
// values bound by name, as in sql.ts.
import { STATE_EXPR } from './sql.js';

const IN_QUEUE = `tenant_id = @tenant AND queue_id = @queue`;
const IDS = `(SELECT value FROM json_each(@ids))`;

/** A filter selection: @state ('all' or one), @minReads, @maxId (NULL: no bound). */
const FILTERED = `${IN_QUEUE} AND (@state = 'all' OR (${STATE_EXPR}) = @state)
  AND tries >= @minReads AND (@maxId IS NULL OR id <= @maxId)`;
/** An ids selection, still in the queue and in @state ('all' or one). */
const BY_IDS = `id IN ${IDS} AND +tenant_id = @tenant AND +queue_id = @queue AND (@state = 'all' OR (${STATE_EXPR}) = @state)`;

export const COUNT_FILTERED = `SELECT count(*) AS n FROM messages WHERE ${FILTERED}`;
export const COUNT_IDS = `SELECT count(*) AS n FROM messages WHERE ${BY_IDS}`;

export const PICK_FILTERED = `SELECT id FROM messages WHERE ${FILTERED} ORDER BY id LIMIT @limit`;
export const PICK_IDS = `SELECT id FROM messages WHERE ${BY_IDS} ORDER BY id`;

export const MAX_ID = `SELECT max(id) FROM messages WHERE ${IN_QUEUE}`;

/** The picked messages, and their attributes (kvs rows, in their order). */
export const MESSAGES_BY_ID = `SELECT id, message FROM messages WHERE id IN ${IDS} AND +tenant_id = @tenant AND +queue_id = @queue ORDER BY id`;
export const KVS_BY_MESSAGE = `SELECT message_id, k, v FROM kvs WHERE ${IN_QUEUE} AND message_id IN ${IDS} ORDER BY rowid`;

/** A moved message in its target: a new id, visible now, no tries yet, the target's max_retries. */
export const INSERT_MOVED = `INSERT INTO messages (id, tenant_id, queue_id, deliver_at, delivered_at, tries, max_tries, message)
  VALUES (@id, @tenant, @queue, @now, 0, 0, @maxTries, @body)`;

export const MAKE_VISIBLE_IDS = `UPDATE messages SET deliver_at = @now WHERE ${BY_IDS} AND deliver_at > @now RETURNING id`;
export const MAKE_VISIBLE_FILTERED = `UPDATE messages SET deliver_at = @now WHERE ${FILTERED} AND deliver_at > @now RETURNING id`;
