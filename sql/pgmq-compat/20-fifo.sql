-- smq's pgmq-compatible schema, part 2: FIFO groups (pgmq 1.9 to 1.12's API).
--
-- A message's group is its `x-pgmq-group` header (as text). Messages without the header are
-- one more group of their own: the group-less lane. A group is available while its oldest
-- message is visible (not in flight, not delayed): grouped reads hand a group's messages out
-- oldest first, so while one is in flight, the oldest is. Of an available group only the
-- visible messages are handed out (a delayed one later in the group is passed over).
-- - read_grouped:      fills the batch from the oldest available group first (the group whose
--                      oldest message is oldest), then the next group, and so on;
-- - read_grouped_rr:   round robin: the oldest message of each available group, then the
--                      second of each, and so on;
-- - read_grouped_head: the oldest message of each of up to qty available groups.
--
-- Two grouped reads at once must never take messages of one group between them. Each read
-- first takes a transaction-scoped advisory lock per group it means to read from
-- (pg_try_advisory_xact_lock: a group another read holds is skipped, not waited for), then
-- looks again, in a new statement with a new snapshot, at whether the group is still free:
-- a read that locked a group right after another read committed its claim sees that claim.

-- The advisory lock key of one group of one queue. The group-less lane gets 0 (a group whose
-- hash is 0 shares its lock: it then waits its turn, nothing worse).
CREATE OR REPLACE FUNCTION pgmq._smq_group_lock_key(queue_name text, grp text)
RETURNS integer[]
LANGUAGE sql IMMUTABLE
AS $$
  SELECT ARRAY[hashtext('smq-pgmq-fifo:' || lower(queue_name)), CASE WHEN grp IS NULL THEN 0 ELSE hashtext(grp) END]
$$;

-- mode: 'fill' (read_grouped), 'rr' (read_grouped_rr) or 'head' (read_grouped_head).
-- Rows come back by msg_id; read_grouped_rr's in round-robin order.
CREATE OR REPLACE FUNCTION pgmq._smq_read_grouped(queue_name text, vt integer, qty integer, mode text)
RETURNS SETOF pgmq.message_record
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  tbl text := pgmq._smq_queue_table(queue_name);
  cand record;
  lock_key integer[];
  groups text[] := '{}';
  lane boolean := false; -- the group-less lane is locked
  taken integer := 0; -- groups locked ('rr', 'head') or the visible messages they hold ('fill')
BEGIN
  -- As pgmq: a negative qty fails read_grouped and read_grouped_head; _rr returns nothing.
  IF qty < 0 AND mode <> 'rr' THEN
    RAISE EXCEPTION 'LIMIT must not be negative' USING ERRCODE = 'invalid_row_count_in_limit_clause';
  END IF;
  IF qty IS NULL OR qty <= 0 THEN
    RETURN;
  END IF;
  -- 1. The available groups (their oldest message is visible), oldest first; lock as many as
  -- the batch can use.
  FOR cand IN EXECUTE format(
    'SELECT g.grp, g.head, g.n
     FROM (
       SELECT headers->>''x-pgmq-group'' AS grp, min(msg_id) AS head, count(*) FILTER (WHERE vt <= $1) AS n
       FROM %1$s
       GROUP BY 1
     ) g
     JOIN %1$s h ON h.msg_id = g.head
     WHERE h.vt <= $1
     ORDER BY g.head',
    tbl)
  USING clock_timestamp()
  LOOP
    EXIT WHEN taken >= qty;
    lock_key := pgmq._smq_group_lock_key(queue_name, cand.grp);
    CONTINUE WHEN NOT pg_try_advisory_xact_lock(lock_key[1], lock_key[2]);
    IF cand.grp IS NULL THEN
      lane := true;
    ELSE
      groups := groups || cand.grp;
    END IF;
    taken := taken + CASE WHEN mode = 'fill' THEN cand.n::integer ELSE 1 END;
  END LOOP;
  IF cardinality(groups) = 0 AND NOT lane THEN
    RETURN;
  END IF;

  -- 2. A new statement sees every claim committed before the locks were granted: look at the
  -- locked groups again, choose the batch among their visible messages, claim it.
  RETURN QUERY EXECUTE format(
    'WITH mine AS (
       SELECT msg_id, headers->>''x-pgmq-group'' AS grp, vt
       FROM %1$s
       WHERE headers->>''x-pgmq-group'' = ANY($1) OR ($2 AND headers->>''x-pgmq-group'' IS NULL)
     ), heads AS (
       SELECT DISTINCT ON (grp) grp, msg_id AS head, vt FROM mine ORDER BY grp, msg_id
     ), ranked AS (
       SELECT m.msg_id, h.head, row_number() OVER (PARTITION BY m.grp ORDER BY m.msg_id) AS pos
       FROM mine m JOIN heads h ON h.grp IS NOT DISTINCT FROM m.grp
       WHERE h.vt <= $6 AND m.vt <= $6
     ), chosen AS MATERIALIZED (
       SELECT msg_id, row_number() OVER (ORDER BY
                CASE WHEN $5 = ''rr'' THEN pos ELSE 0 END, head, pos) AS ord
       FROM ranked
       WHERE $5 <> ''head'' OR pos = 1
       ORDER BY ord
       LIMIT $3
     ), claimed AS MATERIALIZED (
       SELECT q.msg_id FROM %1$s q WHERE q.msg_id IN (SELECT msg_id FROM chosen)
       FOR UPDATE SKIP LOCKED
     ), updated AS (
       UPDATE %1$s AS q
       SET vt = clock_timestamp() + make_interval(secs => $4),
           read_ct = q.read_ct + 1,
           last_read_at = clock_timestamp()
       WHERE q.msg_id IN (SELECT msg_id FROM claimed)
       RETURNING q.msg_id, q.read_ct, q.enqueued_at, q.last_read_at, q.vt, q.message, q.headers
     )
     SELECT u.* FROM updated u JOIN chosen c USING (msg_id)
     ORDER BY CASE WHEN $5 = ''rr'' THEN c.ord ELSE u.msg_id END',
    tbl)
  USING groups, lane, qty, vt, mode, clock_timestamp();
END
$$;

-- The _with_poll forms: the read, retried every poll_interval_ms until it returns messages
-- or max_poll_seconds pass (each retry a new statement, so it sees other sessions' sends).
CREATE OR REPLACE FUNCTION pgmq._smq_read_grouped_poll(
  queue_name text, vt integer, qty integer, max_poll_seconds integer, poll_interval_ms integer, mode text
)
RETURNS SETOF pgmq.message_record
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  deadline timestamptz := clock_timestamp() + make_interval(secs => max_poll_seconds);
  pause double precision := greatest(poll_interval_ms, 1) / 1000.0;
BEGIN
  LOOP
    RETURN QUERY SELECT * FROM pgmq._smq_read_grouped(queue_name, vt, qty, mode);
    IF FOUND THEN
      RETURN;
    END IF;
    EXIT WHEN clock_timestamp() >= deadline;
    PERFORM pg_sleep(least(pause, extract(epoch FROM deadline - clock_timestamp())::double precision));
  END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.read_grouped(queue_name text, vt integer, qty integer)
RETURNS SETOF pgmq.message_record
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_read_grouped(queue_name, vt, qty, 'fill') $$;

CREATE OR REPLACE FUNCTION pgmq.read_grouped_rr(queue_name text, vt integer, qty integer)
RETURNS SETOF pgmq.message_record
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_read_grouped(queue_name, vt, qty, 'rr') $$;

CREATE OR REPLACE FUNCTION pgmq.read_grouped_head(queue_name text, vt integer, qty integer)
RETURNS SETOF pgmq.message_record
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_read_grouped(queue_name, vt, qty, 'head') $$;

CREATE OR REPLACE FUNCTION pgmq.read_grouped_with_poll(
  queue_name text, vt integer, qty integer, max_poll_seconds integer DEFAULT 5, poll_interval_ms integer DEFAULT 100
)
RETURNS SETOF pgmq.message_record
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_read_grouped_poll(queue_name, vt, qty, max_poll_seconds, poll_interval_ms, 'fill') $$;

CREATE OR REPLACE FUNCTION pgmq.read_grouped_rr_with_poll(
  queue_name text, vt integer, qty integer, max_poll_seconds integer DEFAULT 5, poll_interval_ms integer DEFAULT 100
)
RETURNS SETOF pgmq.message_record
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_read_grouped_poll(queue_name, vt, qty, max_poll_seconds, poll_interval_ms, 'rr') $$;

CREATE OR REPLACE FUNCTION pgmq.read_grouped_head_with_poll(
  queue_name text, vt integer, qty integer, max_poll_seconds integer DEFAULT 5, poll_interval_ms integer DEFAULT 100
)
RETURNS SETOF pgmq.message_record
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_read_grouped_poll(queue_name, vt, qty, max_poll_seconds, poll_interval_ms, 'head') $$;

-- pgmq documents a GIN index on headers. The grouped reads here group and filter by the
-- group's text, so a b-tree on (group, msg_id) is what serves them; like pgmq's, it is
-- optional and only about speed.
CREATE OR REPLACE FUNCTION pgmq.create_fifo_index(queue_name text)
RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  tbl text := pgmq._smq_queue_table(queue_name);
BEGIN
  EXECUTE format(
    'CREATE INDEX IF NOT EXISTS %I ON %s ((headers->>''x-pgmq-group''), msg_id)',
    'q_' || lower(queue_name) || '_fifo_idx', tbl);
END
$$;

CREATE OR REPLACE FUNCTION pgmq.create_fifo_indexes_all()
RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  name text;
BEGIN
  FOR name IN SELECT m.queue_name FROM pgmq.meta m ORDER BY m.queue_name LOOP
    CONTINUE WHEN NOT pgmq._smq_table_exists('q_' || lower(name));
    PERFORM pgmq.create_fifo_index(name);
  END LOOP;
END
$$;
