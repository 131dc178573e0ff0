-- smq's pgmq-compatible schema, part 1: the schema, queues, messages and metrics.
--
-- Emulates the SQL API of pgmq 1.13 (schema pgmq, the q_/a_ tables, message_record with
-- headers and last_read_at, and the documented functions) for PostgreSQL servers where
-- CREATE EXTENSION pgmq is not available, so that pgmq clients work against it unchanged.
-- Written for smq from pgmq's documented API; it shares no code with pgmq. A differential
-- test (test/integration/pgmq-differential.test.ts) compares it with the real release.
--
-- The schema is the files of this folder in name order: 10-core (this one), 20-fifo (FIFO
-- groups), 30-topics (topic routing), 40-notify (insert notifications), 90-version.
-- `smq init` (src/backends/pgmq/install.ts) runs them as one script in one transaction.
-- By hand:
--   cat sql/pgmq-compat/*.sql | psql --single-transaction -v ON_ERROR_STOP=1 -f -
-- Running it again is safe: it keeps every queue and message, and it upgrades a schema an
-- older smq installed. It refuses to run where a real pgmq is installed, as an extension
-- or from pgmq's plain SQL file.
--
-- Rules every function below keeps:
-- - A queue name is checked (pgmq._smq_check_queue_name) before it is used anywhere.
-- - Identifiers are built with format('%I'); values are passed with EXECUTE ... USING.
-- - Columns are named, never `*`, so a table whose columns were added in another order
--   still gives message_record's column order.
-- - A missing queue raises SQLSTATE 42P01 (undefined_table, what a real pgmq raises too)
--   with the message: queue "<name>" does not exist. drop_queue returns false instead, as
--   pgmq's does.
-- - Invalid queue names, like other bad arguments, raise SQLSTATE P0001 (raise_exception),
--   as pgmq does.

-- Never replace a real pgmq. pgmq.smq_compat marks this schema as ours; it is created before
-- anything else, so a run that failed halfway (outside a transaction) can be run again.
DO $guard$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'pgmq') THEN
    RAISE EXCEPTION 'the pgmq extension is installed in this database; smq''s compat schema will not replace it'
      USING ERRCODE = 'duplicate_object';
  END IF;
  IF to_regclass('pgmq.meta') IS NOT NULL AND to_regclass('pgmq.smq_compat') IS NULL THEN
    RAISE EXCEPTION 'schema pgmq already holds a pgmq installation that smq did not make; leaving it alone'
      USING ERRCODE = 'duplicate_object';
  END IF;
END
$guard$;

CREATE SCHEMA IF NOT EXISTS pgmq;

-- One row, written at the end of this file: the pgmq version emulated here.
CREATE TABLE IF NOT EXISTS pgmq.smq_compat (version text NOT NULL);

CREATE TABLE IF NOT EXISTS pgmq.meta (
  queue_name varchar UNIQUE NOT NULL,
  is_partitioned boolean NOT NULL,
  is_unlogged boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Table names are lower-cased, so 'Orders' and 'orders' share pgmq.q_orders: they are one
-- queue, and meta may hold only one of the two spellings.
CREATE UNIQUE INDEX IF NOT EXISTS meta_smq_lower_queue_name_idx ON pgmq.meta (lower(queue_name));

-- CREATE TYPE has no IF NOT EXISTS.
DO $types$
BEGIN
  IF to_regtype('pgmq.message_record') IS NULL THEN
    CREATE TYPE pgmq.message_record AS (
      msg_id bigint,
      read_ct integer,
      enqueued_at timestamptz,
      last_read_at timestamptz,
      vt timestamptz,
      message jsonb,
      headers jsonb
    );
  END IF;
  IF to_regtype('pgmq.queue_record') IS NULL THEN
    CREATE TYPE pgmq.queue_record AS (
      queue_name varchar,
      is_partitioned boolean,
      is_unlogged boolean,
      created_at timestamptz
    );
  END IF;
  IF to_regtype('pgmq.metrics_result') IS NULL THEN
    CREATE TYPE pgmq.metrics_result AS (
      queue_name text,
      queue_length bigint,
      newest_msg_age_sec integer,
      oldest_msg_age_sec integer,
      total_messages bigint,
      scrape_time timestamptz,
      queue_visible_length bigint,
      default_partition_length bigint
    );
  END IF;
  -- pgmq 1.13 added default_partition_length (null here: no partitioned queues); a schema an
  -- older smq installed gets it on upgrade.
  IF NOT EXISTS (
    SELECT 1 FROM pg_catalog.pg_attribute
    WHERE attrelid = (SELECT typrelid FROM pg_catalog.pg_type WHERE oid = 'pgmq.metrics_result'::regtype)
      AND attname = 'default_partition_length' AND NOT attisdropped
  ) THEN
    ALTER TYPE pgmq.metrics_result ADD ATTRIBUTE default_partition_length bigint;
  END IF;
END
$types$;

------------------------------------------------------------------------------------------
-- Internal helpers (the _smq_ prefix keeps them apart from pgmq's own names)
------------------------------------------------------------------------------------------

-- pgmq's rules: at most 47 characters, none of $ ; -- '. The limit exists because the
-- table and index names built from the queue name must fit PostgreSQL's 63-byte
-- identifiers; smq counts bytes (of the name and of its lower-cased form), so a multibyte
-- name is never silently truncated into another queue's table. smq also rejects ''.
CREATE OR REPLACE FUNCTION pgmq._smq_check_queue_name(queue_name text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
  IF queue_name IS NULL OR queue_name = '' THEN
    RAISE EXCEPTION 'invalid queue name: it is empty';
  END IF;
  IF greatest(octet_length(queue_name), octet_length(lower(queue_name))) > 47 THEN
    RAISE EXCEPTION 'invalid queue name "%": it is longer than 47 bytes', queue_name
      USING HINT = 'pgmq allows at most 47 characters';
  END IF;
  IF strpos(queue_name, '$') > 0 OR strpos(queue_name, ';') > 0
     OR strpos(queue_name, '--') > 0 OR strpos(queue_name, '''') > 0 THEN
    RAISE EXCEPTION 'invalid queue name "%": it contains $, ;, -- or ''', queue_name;
  END IF;
END
$$;

-- Whether pgmq.<relname> exists, read from pg_class with a fresh snapshot (the function is
-- VOLATILE). to_regclass() answers from this session's catalog caches, which may not yet
-- show a table another session created or dropped during this transaction; create() and
-- drop_queue() decide on DDL with this answer, after waiting for each other's lock.
CREATE OR REPLACE FUNCTION pgmq._smq_table_exists(relname text)
RETURNS boolean
LANGUAGE sql VOLATILE
AS $$
  SELECT EXISTS (
    SELECT 1 FROM pg_catalog.pg_class c
    WHERE c.relnamespace = 'pgmq'::regnamespace AND c.relname = _smq_table_exists.relname::name
  )
$$;

-- The queue's live table (kind 'q') or archive (kind 'a') as a quoted, schema-qualified
-- name, ready for format('%s'). A missing table means a missing queue: say so plainly,
-- with the SQLSTATE a real pgmq gives (42P01), instead of "relation ... does not exist".
CREATE OR REPLACE FUNCTION pgmq._smq_queue_table(queue_name text, kind text DEFAULT 'q')
RETURNS text
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  PERFORM pgmq._smq_check_queue_name(queue_name);
  IF NOT pgmq._smq_table_exists(kind || '_' || lower(queue_name)) THEN
    RAISE EXCEPTION 'queue "%" does not exist', queue_name
      USING ERRCODE = 'undefined_table', HINT = 'create it with pgmq.create()';
  END IF;
  RETURN format('pgmq.%I', kind || '_' || lower(queue_name));
END
$$;

-- The queue's name as pgmq.meta spells it (any letter case finds it). A missing queue raises
-- P0001 here, as pgmq's functions that look in pgmq.meta rather than at the table do.
CREATE OR REPLACE FUNCTION pgmq._smq_meta_name(queue_name text)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
  given text;
BEGIN
  PERFORM pgmq._smq_check_queue_name(queue_name);
  SELECT m.queue_name INTO given FROM pgmq.meta m WHERE lower(m.queue_name) = lower(_smq_meta_name.queue_name);
  IF given IS NULL THEN
    RAISE EXCEPTION 'queue "%" does not exist', queue_name USING HINT = 'create it with pgmq.create()';
  END IF;
  RETURN given;
END
$$;

-- Two sessions creating or dropping the same queue at once would race between the
-- existence checks and the DDL (and fail on the catalog's unique indexes): queue DDL for
-- one name takes a transaction-scoped advisory lock and waits its turn.
CREATE OR REPLACE FUNCTION pgmq._smq_lock_queue_ddl(queue_name text)
RETURNS void
LANGUAGE sql VOLATILE
AS $$
  SELECT pg_advisory_xact_lock(hashtext('smq-pgmq-queue-ddl:' || lower(queue_name)))
$$;

CREATE OR REPLACE FUNCTION pgmq._smq_create_queue(queue_name text, unlogged boolean)
RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  base text := lower(queue_name);
  q text := 'q_' || base;
  a text := 'a_' || base;
BEGIN
  PERFORM pgmq._smq_check_queue_name(queue_name);
  PERFORM pgmq._smq_lock_queue_ddl(queue_name);

  -- Only the live table may be unlogged; archives stay durable, as in pgmq.
  IF NOT pgmq._smq_table_exists(q) THEN
    EXECUTE format(
      'CREATE %s TABLE IF NOT EXISTS pgmq.%I (
         msg_id bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
         read_ct integer NOT NULL DEFAULT 0,
         enqueued_at timestamptz NOT NULL DEFAULT now(),
         last_read_at timestamptz,
         vt timestamptz NOT NULL,
         message jsonb,
         headers jsonb
       )',
      CASE WHEN unlogged THEN 'UNLOGGED' ELSE '' END, q);
    -- read() scans for vt <= now.
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON pgmq.%I (vt)', q || '_vt_idx', q);
  END IF;

  IF NOT pgmq._smq_table_exists(a) THEN
    EXECUTE format(
      'CREATE TABLE IF NOT EXISTS pgmq.%I (
         msg_id bigint PRIMARY KEY,
         read_ct integer NOT NULL DEFAULT 0,
         enqueued_at timestamptz NOT NULL DEFAULT now(),
         last_read_at timestamptz,
         archived_at timestamptz NOT NULL DEFAULT now(),
         vt timestamptz NOT NULL,
         message jsonb,
         headers jsonb
       )',
      a);
    -- Named as pgmq names it (archived_at_idx_<name>); within 63 bytes for a 47-byte name.
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON pgmq.%I (archived_at)', 'archived_at_idx_' || substr(a, 3), a);
  END IF;

  -- meta keeps the name as given. Idempotent: an existing queue (in any letter case) stays.
  IF NOT EXISTS (SELECT 1 FROM pgmq.meta m WHERE lower(m.queue_name) = base) THEN
    INSERT INTO pgmq.meta (queue_name, is_partitioned, is_unlogged)
    VALUES (_smq_create_queue.queue_name, false, unlogged);
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgmq._smq_send(queue_name text, msg jsonb, headers jsonb, vt timestamptz)
RETURNS SETOF bigint
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  RETURN QUERY EXECUTE format(
    'INSERT INTO %s (vt, message, headers) VALUES ($1, $2, $3) RETURNING msg_id',
    pgmq._smq_queue_table(queue_name))
  USING vt, msg, headers;
END
$$;

CREATE OR REPLACE FUNCTION pgmq._smq_send_batch(queue_name text, msgs jsonb[], headers jsonb[], vt timestamptz)
RETURNS SETOF bigint
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  tbl text := pgmq._smq_queue_table(queue_name);
BEGIN
  IF headers IS NOT NULL AND cardinality(headers) <> cardinality(msgs) THEN
    RAISE EXCEPTION 'headers array length (%) must match msgs array length (%)',
      cardinality(headers), cardinality(msgs);
  END IF;
  -- Rows are inserted in array order, so their identity ids ascend in that order; the ids
  -- are returned sorted, which is therefore the order of msgs.
  RETURN QUERY EXECUTE format(
    'WITH inserted AS (
       INSERT INTO %s (vt, message, headers)
       SELECT $3, b.msg, b.hdr
       FROM unnest($1::jsonb[], $2::jsonb[]) WITH ORDINALITY AS b(msg, hdr, ord)
       ORDER BY b.ord
       RETURNING msg_id
     )
     SELECT msg_id FROM inserted ORDER BY msg_id',
    tbl)
  USING msgs, headers, vt;
END
$$;

CREATE OR REPLACE FUNCTION pgmq._smq_archive(queue_name text, msg_ids bigint[])
RETURNS SETOF bigint
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  -- One statement moves the rows: a message is either still in q_ or in a_, never both or
  -- neither, and a message deleted concurrently is simply not archived.
  RETURN QUERY EXECUTE format(
    'WITH moved AS (
       DELETE FROM %1$s WHERE msg_id = ANY($1)
       RETURNING msg_id, read_ct, enqueued_at, last_read_at, vt, message, headers
     ), archived AS (
       INSERT INTO %2$s (msg_id, read_ct, enqueued_at, last_read_at, vt, message, headers)
       SELECT msg_id, read_ct, enqueued_at, last_read_at, vt, message, headers FROM moved
       RETURNING msg_id
     )
     SELECT msg_id FROM archived ORDER BY msg_id',
    pgmq._smq_queue_table(queue_name, 'q'), pgmq._smq_queue_table(queue_name, 'a'))
  USING msg_ids;
END
$$;

CREATE OR REPLACE FUNCTION pgmq._smq_set_vt(queue_name text, msg_ids bigint[], vt timestamptz)
RETURNS SETOF pgmq.message_record
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  RETURN QUERY EXECUTE format(
    'WITH changed AS (
       UPDATE %s AS q SET vt = $2 WHERE q.msg_id = ANY($1)
       RETURNING q.msg_id, q.read_ct, q.enqueued_at, q.last_read_at, q.vt, q.message, q.headers
     )
     SELECT * FROM changed ORDER BY msg_id',
    pgmq._smq_queue_table(queue_name))
  USING msg_ids, vt;
END
$$;

------------------------------------------------------------------------------------------
-- Queue management
------------------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION pgmq.create(queue_name text)
RETURNS void
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_create_queue(queue_name, false) $$;

CREATE OR REPLACE FUNCTION pgmq.create_non_partitioned(queue_name text)
RETURNS void
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_create_queue(queue_name, false) $$;

CREATE OR REPLACE FUNCTION pgmq.create_unlogged(queue_name text)
RETURNS void
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_create_queue(queue_name, true) $$;

-- smq before 1.13.0 had the form without premake: drop it, or both would match 1-3 arguments.
DROP FUNCTION IF EXISTS pgmq.create_partitioned(text, text, text);
CREATE OR REPLACE FUNCTION pgmq.create_partitioned(
  queue_name text,
  partition_interval text DEFAULT '10000',
  retention_interval text DEFAULT '100000',
  premake integer DEFAULT 4
)
RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  RAISE EXCEPTION 'partitioned queues are not available in smq''s pgmq-compatible schema'
    USING ERRCODE = 'feature_not_supported',
          HINT = 'use pgmq.create(), or install the pgmq extension with pg_partman';
END
$$;

-- Deprecated in pgmq and a no-op there too: archives are plain tables.
CREATE OR REPLACE FUNCTION pgmq.detach_archive(queue_name text)
RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  PERFORM pgmq._smq_queue_table(queue_name, 'a');
END
$$;

CREATE OR REPLACE FUNCTION pgmq.drop_queue(queue_name text)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  base text := lower(queue_name);
BEGIN
  PERFORM pgmq._smq_check_queue_name(queue_name);
  PERFORM pgmq._smq_lock_queue_ddl(queue_name);
  IF NOT EXISTS (SELECT 1 FROM pgmq.meta m WHERE lower(m.queue_name) = base)
     AND NOT pgmq._smq_table_exists('q_' || base) THEN
    RAISE NOTICE 'queue "%" does not exist', queue_name;
    RETURN false;
  END IF;
  EXECUTE format('DROP TABLE IF EXISTS pgmq.%I', 'q_' || base);
  EXECUTE format('DROP TABLE IF EXISTS pgmq.%I', 'a_' || base);
  DELETE FROM pgmq.meta m WHERE lower(m.queue_name) = base;
  RETURN true;
END
$$;

-- The two-argument form is deprecated in pgmq; partitioning is never used here.
CREATE OR REPLACE FUNCTION pgmq.drop_queue(queue_name text, partitioned boolean)
RETURNS boolean
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq.drop_queue(queue_name) $$;

CREATE OR REPLACE FUNCTION pgmq.purge_queue(queue_name text)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  deleted bigint;
BEGIN
  -- DELETE rather than TRUNCATE: it does not block concurrent readers and senders, and it
  -- leaves the id sequence (total_messages) alone.
  EXECUTE format('DELETE FROM %s', pgmq._smq_queue_table(queue_name));
  GET DIAGNOSTICS deleted = ROW_COUNT;
  RETURN deleted;
END
$$;

------------------------------------------------------------------------------------------
-- Sending. Integer delays count seconds from the moment of the call (clock_timestamp);
-- timestamp delays give the time the message becomes visible.
------------------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION pgmq.send(queue_name text, msg jsonb)
RETURNS SETOF bigint
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_send(queue_name, msg, NULL, clock_timestamp()) $$;

CREATE OR REPLACE FUNCTION pgmq.send(queue_name text, msg jsonb, headers jsonb)
RETURNS SETOF bigint
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_send(queue_name, msg, headers, clock_timestamp()) $$;

CREATE OR REPLACE FUNCTION pgmq.send(queue_name text, msg jsonb, delay integer)
RETURNS SETOF bigint
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_send(queue_name, msg, NULL, clock_timestamp() + make_interval(secs => delay)) $$;

CREATE OR REPLACE FUNCTION pgmq.send(queue_name text, msg jsonb, delay timestamptz)
RETURNS SETOF bigint
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_send(queue_name, msg, NULL, delay) $$;

CREATE OR REPLACE FUNCTION pgmq.send(queue_name text, msg jsonb, headers jsonb, delay integer)
RETURNS SETOF bigint
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_send(queue_name, msg, headers, clock_timestamp() + make_interval(secs => delay)) $$;

CREATE OR REPLACE FUNCTION pgmq.send(queue_name text, msg jsonb, headers jsonb, delay timestamptz)
RETURNS SETOF bigint
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_send(queue_name, msg, headers, delay) $$;

CREATE OR REPLACE FUNCTION pgmq.send_batch(queue_name text, msgs jsonb[])
RETURNS SETOF bigint
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_send_batch(queue_name, msgs, NULL, clock_timestamp()) $$;

CREATE OR REPLACE FUNCTION pgmq.send_batch(queue_name text, msgs jsonb[], headers jsonb[])
RETURNS SETOF bigint
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_send_batch(queue_name, msgs, headers, clock_timestamp()) $$;

CREATE OR REPLACE FUNCTION pgmq.send_batch(queue_name text, msgs jsonb[], delay integer)
RETURNS SETOF bigint
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_send_batch(queue_name, msgs, NULL, clock_timestamp() + make_interval(secs => delay)) $$;

CREATE OR REPLACE FUNCTION pgmq.send_batch(queue_name text, msgs jsonb[], delay timestamptz)
RETURNS SETOF bigint
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_send_batch(queue_name, msgs, NULL, delay) $$;

CREATE OR REPLACE FUNCTION pgmq.send_batch(queue_name text, msgs jsonb[], headers jsonb[], delay integer)
RETURNS SETOF bigint
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_send_batch(queue_name, msgs, headers, clock_timestamp() + make_interval(secs => delay)) $$;

CREATE OR REPLACE FUNCTION pgmq.send_batch(queue_name text, msgs jsonb[], headers jsonb[], delay timestamptz)
RETURNS SETOF bigint
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_send_batch(queue_name, msgs, headers, delay) $$;

------------------------------------------------------------------------------------------
-- Reading
------------------------------------------------------------------------------------------

-- Claims up to qty visible messages and hides them for vt seconds, in one statement.
-- FOR UPDATE SKIP LOCKED makes concurrent readers take disjoint rows: a row another
-- reader has locked is skipped, and a row another reader has just claimed (and committed)
-- is re-checked on its newest version, whose vt is now in the future, so it is skipped
-- too. The claim is a MATERIALIZED CTE so that it runs exactly once; as a plain IN
-- (subquery) the planner may put it on the inner side of a join and re-run it.
CREATE OR REPLACE FUNCTION pgmq.read(queue_name text, vt integer, qty integer, conditional jsonb DEFAULT '{}')
RETURNS SETOF pgmq.message_record
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  RETURN QUERY EXECUTE format(
    'WITH claimed AS MATERIALIZED (
       SELECT msg_id FROM %1$s
       WHERE vt <= clock_timestamp() AND ($3 = ''{}''::jsonb OR message @> $3)
       ORDER BY msg_id
       LIMIT $1
       FOR UPDATE SKIP LOCKED
     ), updated AS (
       UPDATE %1$s AS q
       SET vt = clock_timestamp() + make_interval(secs => $2),
           read_ct = q.read_ct + 1,
           last_read_at = clock_timestamp()
       WHERE q.msg_id IN (SELECT msg_id FROM claimed)
       RETURNING q.msg_id, q.read_ct, q.enqueued_at, q.last_read_at, q.vt, q.message, q.headers
     )
     SELECT * FROM updated ORDER BY msg_id',
    pgmq._smq_queue_table(queue_name))
  USING qty, vt, coalesce(conditional, '{}'::jsonb);
END
$$;

-- read(), retried every poll_interval_ms until a message comes or max_poll_seconds pass.
-- Each retry is a new statement, so under READ COMMITTED it sees messages committed by
-- other sessions meanwhile.
CREATE OR REPLACE FUNCTION pgmq.read_with_poll(
  queue_name text,
  vt integer,
  qty integer,
  max_poll_seconds integer DEFAULT 5,
  poll_interval_ms integer DEFAULT 100,
  conditional jsonb DEFAULT '{}'
)
RETURNS SETOF pgmq.message_record
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  deadline timestamptz := clock_timestamp() + make_interval(secs => max_poll_seconds);
  pause double precision := greatest(poll_interval_ms, 1) / 1000.0;
BEGIN
  LOOP
    RETURN QUERY SELECT * FROM pgmq.read(
      read_with_poll.queue_name, read_with_poll.vt, read_with_poll.qty, read_with_poll.conditional);
    IF FOUND THEN
      RETURN;
    END IF;
    EXIT WHEN clock_timestamp() >= deadline;
    PERFORM pg_sleep(least(pause, extract(epoch FROM deadline - clock_timestamp())::double precision));
  END LOOP;
END
$$;

-- Claims like read() and deletes instead of hiding: at-most-once delivery.
CREATE OR REPLACE FUNCTION pgmq.pop(queue_name text, qty integer DEFAULT 1)
RETURNS SETOF pgmq.message_record
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  RETURN QUERY EXECUTE format(
    'WITH claimed AS MATERIALIZED (
       SELECT msg_id FROM %1$s
       WHERE vt <= clock_timestamp()
       ORDER BY msg_id
       LIMIT $1
       FOR UPDATE SKIP LOCKED
     ), deleted AS (
       DELETE FROM %1$s AS q
       WHERE q.msg_id IN (SELECT msg_id FROM claimed)
       RETURNING q.msg_id, q.read_ct, q.enqueued_at, q.last_read_at, q.vt, q.message, q.headers
     )
     SELECT * FROM deleted ORDER BY msg_id',
    pgmq._smq_queue_table(queue_name))
  USING qty;
END
$$;

------------------------------------------------------------------------------------------
-- Deleting, archiving, visibility
------------------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION pgmq.delete(queue_name text, msg_id bigint)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  deleted bigint;
BEGIN
  EXECUTE format('DELETE FROM %s WHERE msg_id = $1', pgmq._smq_queue_table(queue_name))
  USING msg_id;
  GET DIAGNOSTICS deleted = ROW_COUNT;
  RETURN deleted > 0;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.delete(queue_name text, msg_ids bigint[])
RETURNS SETOF bigint
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  RETURN QUERY EXECUTE format(
    'WITH deleted AS (DELETE FROM %s WHERE msg_id = ANY($1) RETURNING msg_id)
     SELECT msg_id FROM deleted ORDER BY msg_id',
    pgmq._smq_queue_table(queue_name))
  USING msg_ids;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.archive(queue_name text, msg_id bigint)
RETURNS boolean
LANGUAGE sql VOLATILE
AS $$ SELECT EXISTS (SELECT 1 FROM pgmq._smq_archive(queue_name, ARRAY[msg_id])) $$;

CREATE OR REPLACE FUNCTION pgmq.archive(queue_name text, msg_ids bigint[])
RETURNS SETOF bigint
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_archive(queue_name, msg_ids) $$;

CREATE OR REPLACE FUNCTION pgmq.set_vt(queue_name text, msg_id bigint, vt integer)
RETURNS SETOF pgmq.message_record
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_set_vt(queue_name, ARRAY[msg_id], clock_timestamp() + make_interval(secs => vt)) $$;

-- The batch form, as in pgmq 1.10. With both forms an untyped msg id (pgmq-js's
-- `set_vt($1, $2, $3)`) is ambiguous, here as on the pgmq extension: give it a type
-- ($2::bigint). Returns the messages changed, by msg_id; ids not in the queue are skipped.
CREATE OR REPLACE FUNCTION pgmq.set_vt(queue_name text, msg_ids bigint[], vt integer)
RETURNS SETOF pgmq.message_record
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_set_vt(queue_name, msg_ids, clock_timestamp() + make_interval(secs => vt)) $$;

-- pgmq 1.13: the visibility as a point in time instead of seconds from now.
CREATE OR REPLACE FUNCTION pgmq.set_vt(queue_name text, msg_id bigint, vt timestamptz)
RETURNS SETOF pgmq.message_record
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_set_vt(queue_name, ARRAY[msg_id], vt) $$;

CREATE OR REPLACE FUNCTION pgmq.set_vt(queue_name text, msg_ids bigint[], vt timestamptz)
RETURNS SETOF pgmq.message_record
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_set_vt(queue_name, msg_ids, vt) $$;

------------------------------------------------------------------------------------------
-- Metrics and listing
------------------------------------------------------------------------------------------

-- Exact counts: one scan of the live table per call.
CREATE OR REPLACE FUNCTION pgmq.metrics(queue_name text)
RETURNS pgmq.metrics_result
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  tbl text := pgmq._smq_queue_table(queue_name);
  id_seq text := pg_get_serial_sequence(tbl, 'msg_id');
  result pgmq.metrics_result;
BEGIN
  EXECUTE format(
    'SELECT $1::text,
            count(*),
            extract(epoch FROM now() - max(enqueued_at))::integer,
            extract(epoch FROM now() - min(enqueued_at))::integer,
            0::bigint,
            now(),
            count(*) FILTER (WHERE vt <= clock_timestamp()),
            NULL::bigint
     FROM %s',
    tbl)
  INTO result
  USING queue_name;
  -- total_messages: every id the queue has handed out. The identity sequence's position
  -- counts them, and survives delete, archive and purge.
  EXECUTE format('SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM %s', id_seq)
  INTO result.total_messages;
  RETURN result;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.metrics_all()
RETURNS SETOF pgmq.metrics_result
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  name text;
BEGIN
  FOR name IN SELECT m.queue_name FROM pgmq.meta m ORDER BY m.queue_name LOOP
    -- A queue dropped after the list was read has no table any more: leave it out
    -- rather than fail the whole call.
    CONTINUE WHEN NOT pgmq._smq_table_exists('q_' || lower(name));
    RETURN NEXT pgmq.metrics(name);
  END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.list_queues()
RETURNS SETOF pgmq.queue_record
LANGUAGE sql STABLE
AS $$
  SELECT m.queue_name, m.is_partitioned, m.is_unlogged, m.created_at
  FROM pgmq.meta m
  ORDER BY m.queue_name
$$;
