-- smq's pgmq-compatible schema, part 4: insert notifications (pgmq 1.7's API, 1.13's names).
--
-- enable_notify_insert puts a trigger on the queue's live table that sends a NOTIFY on the
-- channel `pgmq.q_<name>.INSERT` (the table's name: lower case) when messages are inserted,
-- at most once per throttle interval: a consumer LISTENs instead of polling. The interval and
-- the time of the last notification are kept per queue in pgmq.notify_insert_throttle.
-- NOTIFY is delivered at commit, and PostgreSQL folds identical notifications of one
-- transaction into one: a batch sent in one transaction wakes a listener once.

CREATE TABLE IF NOT EXISTS pgmq.notify_insert_throttle (
  queue_name varchar NOT NULL PRIMARY KEY REFERENCES pgmq.meta (queue_name) ON DELETE CASCADE,
  throttle_interval_ms integer NOT NULL DEFAULT 0,
  last_notified_at timestamptz NOT NULL DEFAULT to_timestamp(0)
);

-- The trigger, once per INSERT statement: one notification unless one was sent less than
-- the interval ago. The row
-- lock of the UPDATE makes concurrent senders of one queue take turns here, so two of them
-- never both decide to notify within one interval.
CREATE OR REPLACE FUNCTION pgmq._smq_notify_insert()
RETURNS trigger
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  due boolean;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM inserted) THEN
    RETURN NULL; -- a statement that inserted nothing (an empty batch)
  END IF;
  UPDATE pgmq.notify_insert_throttle t
  SET last_notified_at = clock_timestamp()
  WHERE t.queue_name = TG_ARGV[0]
    AND (t.throttle_interval_ms <= 0
         OR t.last_notified_at <= clock_timestamp() - make_interval(secs => t.throttle_interval_ms / 1000.0))
  RETURNING true INTO due;
  IF due THEN
    PERFORM pg_notify(format('pgmq.%s.%s', TG_TABLE_NAME, TG_OP), '');
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.enable_notify_insert(queue_name text, throttle_interval_ms integer DEFAULT 250)
RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  given text := pgmq._smq_meta_name(queue_name);
  tbl text := pgmq._smq_queue_table(queue_name);
BEGIN
  IF throttle_interval_ms < 0 THEN
    RAISE EXCEPTION 'throttle_interval_ms must be 0 or more, not %', throttle_interval_ms;
  END IF;
  INSERT INTO pgmq.notify_insert_throttle (queue_name, throttle_interval_ms)
  VALUES (given, throttle_interval_ms)
  -- Enabled again: a new interval starts afresh, as in pgmq (the next insert notifies).
  ON CONFLICT ON CONSTRAINT notify_insert_throttle_pkey
  DO UPDATE SET throttle_interval_ms = excluded.throttle_interval_ms, last_notified_at = to_timestamp(0);
  EXECUTE format('DROP TRIGGER IF EXISTS trigger_notify_queue_insert_listeners ON %s', tbl);
  EXECUTE format(
    'CREATE TRIGGER trigger_notify_queue_insert_listeners AFTER INSERT ON %s
     REFERENCING NEW TABLE AS inserted
     FOR EACH STATEMENT EXECUTE FUNCTION pgmq._smq_notify_insert(%L)',
    tbl, given);
END
$$;

-- Nothing to do (no error) for a queue that does not exist or has notifications off.
CREATE OR REPLACE FUNCTION pgmq.disable_notify_insert(queue_name text)
RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  PERFORM pgmq._smq_check_queue_name(queue_name);
  IF pgmq._smq_table_exists('q_' || lower(queue_name)) THEN
    EXECUTE format('DROP TRIGGER IF EXISTS trigger_notify_queue_insert_listeners ON pgmq.%I', 'q_' || lower(queue_name));
  END IF;
  DELETE FROM pgmq.notify_insert_throttle t WHERE lower(t.queue_name) = lower(disable_notify_insert.queue_name);
END
$$;

CREATE OR REPLACE FUNCTION pgmq.update_notify_insert(queue_name text, throttle_interval_ms integer)
RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  PERFORM pgmq._smq_meta_name(queue_name);
  IF throttle_interval_ms < 0 THEN
    RAISE EXCEPTION 'throttle_interval_ms must be 0 or more, not %', throttle_interval_ms;
  END IF;
  -- A new interval starts afresh: the next insert notifies.
  UPDATE pgmq.notify_insert_throttle t
  SET throttle_interval_ms = update_notify_insert.throttle_interval_ms, last_notified_at = to_timestamp(0)
  WHERE lower(t.queue_name) = lower(update_notify_insert.queue_name);
  IF NOT FOUND THEN
    RAISE EXCEPTION 'insert notifications are not enabled for queue "%"', queue_name
      USING HINT = 'enable them with pgmq.enable_notify_insert()';
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.list_notify_insert_throttles()
RETURNS TABLE (queue_name text, throttle_interval_ms integer, last_notified_at timestamptz)
LANGUAGE sql STABLE
AS $$
  SELECT t.queue_name::text, t.throttle_interval_ms, t.last_notified_at FROM pgmq.notify_insert_throttle t ORDER BY t.queue_name
$$;
