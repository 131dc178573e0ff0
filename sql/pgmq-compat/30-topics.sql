-- smq's pgmq-compatible schema, part 3: topic routing (pgmq 1.11's API).
--
-- A binding ties a pattern to a queue. Routing keys and patterns are words joined by dots;
-- in a pattern `*` stands for exactly one word and `#` for any run of characters (so
-- `logs.#` takes `logs.a` and `logs.a.b`, not `logs`). A pattern is turned into a regular
-- expression once, when it is bound; sending matches the routing key against every binding.
-- A message sent with a routing key goes to every queue with a matching binding, once per
-- queue, all in the caller's transaction. Dropping a queue removes its bindings.

CREATE TABLE IF NOT EXISTS pgmq.topic_bindings (
  pattern text NOT NULL,
  queue_name text NOT NULL REFERENCES pgmq.meta (queue_name) ON DELETE CASCADE,
  bound_at timestamptz NOT NULL DEFAULT now(),
  compiled_regex text,
  UNIQUE (pattern, queue_name)
);
CREATE INDEX IF NOT EXISTS topic_bindings_smq_pattern_idx ON pgmq.topic_bindings (pattern) INCLUDE (queue_name);

-- Routing keys: letters, digits, `.`, `_` and `-`; 1 to 255 characters; no dot at either
-- end and no empty word (`..`). Raises for a bad key, returns true otherwise.
CREATE OR REPLACE FUNCTION pgmq.validate_routing_key(routing_key text)
RETURNS boolean
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
  IF routing_key IS NULL OR routing_key = '' THEN
    RAISE EXCEPTION 'routing key cannot be NULL or empty';
  END IF;
  IF length(routing_key) > 255 THEN
    RAISE EXCEPTION 'routing key is longer than 255 characters: %', routing_key;
  END IF;
  IF routing_key !~ '^[A-Za-z0-9._-]+$' THEN
    RAISE EXCEPTION 'routing key "%" may contain only letters, digits, ".", "_" and "-"', routing_key;
  END IF;
  IF left(routing_key, 1) = '.' OR right(routing_key, 1) = '.' OR strpos(routing_key, '..') > 0 THEN
    RAISE EXCEPTION 'routing key "%" has an empty word (a dot at either end, or two in a row)', routing_key;
  END IF;
  RETURN true;
END
$$;

-- Patterns: as routing keys, plus the wildcards `*` and `#`, never two wildcards in a row.
CREATE OR REPLACE FUNCTION pgmq.validate_topic_pattern(pattern text)
RETURNS boolean
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
  IF pattern IS NULL OR pattern = '' THEN
    RAISE EXCEPTION 'pattern cannot be NULL or empty';
  END IF;
  IF length(pattern) > 255 THEN
    RAISE EXCEPTION 'pattern is longer than 255 characters: %', pattern;
  END IF;
  IF pattern !~ '^[A-Za-z0-9._*#-]+$' THEN
    RAISE EXCEPTION 'pattern "%" may contain only letters, digits, ".", "_", "-", "*" and "#"', pattern;
  END IF;
  IF left(pattern, 1) = '.' OR right(pattern, 1) = '.' OR strpos(pattern, '..') > 0 THEN
    RAISE EXCEPTION 'pattern "%" has an empty word (a dot at either end, or two in a row)', pattern;
  END IF;
  IF pattern ~ '[*#][*#]' THEN
    RAISE EXCEPTION 'pattern "%" has two wildcards in a row', pattern;
  END IF;
  RETURN true;
END
$$;

-- The pattern as an anchored regular expression: `.` literal, `*` one word, `#` anything.
CREATE OR REPLACE FUNCTION pgmq._smq_topic_regex(pattern text)
RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
  SELECT '^' || replace(replace(replace(pattern, '.', '\.'), '*', '[^.]+'), '#', '.*') || '$'
$$;

CREATE OR REPLACE FUNCTION pgmq.bind_topic(pattern text, queue_name text)
RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  given text;
BEGIN
  PERFORM pgmq.validate_topic_pattern(pattern);
  -- The binding names the queue as pgmq.meta spells it (any letter case finds the queue).
  given := pgmq._smq_meta_name(queue_name);
  INSERT INTO pgmq.topic_bindings (pattern, queue_name, compiled_regex)
  VALUES (bind_topic.pattern, given, pgmq._smq_topic_regex(bind_topic.pattern))
  ON CONFLICT DO NOTHING;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.unbind_topic(pattern text, queue_name text)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  removed bigint;
BEGIN
  DELETE FROM pgmq.topic_bindings b WHERE b.pattern = unbind_topic.pattern AND b.queue_name = unbind_topic.queue_name;
  GET DIAGNOSTICS removed = ROW_COUNT;
  RETURN removed > 0;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.test_routing(routing_key text)
RETURNS TABLE (pattern text, queue_name text, compiled_regex text)
LANGUAGE plpgsql STABLE
AS $$
BEGIN
  PERFORM pgmq.validate_routing_key(routing_key);
  RETURN QUERY
    SELECT b.pattern, b.queue_name, b.compiled_regex
    FROM pgmq.topic_bindings b
    WHERE test_routing.routing_key ~ b.compiled_regex
    ORDER BY b.pattern, b.queue_name;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.list_topic_bindings()
RETURNS TABLE (pattern text, queue_name text, bound_at timestamptz, compiled_regex text)
LANGUAGE sql STABLE
AS $$
  SELECT b.pattern, b.queue_name, b.bound_at, b.compiled_regex FROM pgmq.topic_bindings b ORDER BY b.bound_at, b.pattern, b.queue_name
$$;

CREATE OR REPLACE FUNCTION pgmq.list_topic_bindings(queue_name text)
RETURNS TABLE (pattern text, queue_name text, bound_at timestamptz, compiled_regex text)
LANGUAGE sql STABLE
AS $$
  SELECT b.pattern, b.queue_name, b.bound_at, b.compiled_regex FROM pgmq.topic_bindings b
  WHERE b.queue_name = list_topic_bindings.queue_name
  ORDER BY b.bound_at, b.pattern
$$;

-- The queues a routing key reaches, each once.
CREATE OR REPLACE FUNCTION pgmq._smq_routed_queues(routing_key text)
RETURNS SETOF text
LANGUAGE plpgsql STABLE
AS $$
BEGIN
  PERFORM pgmq.validate_routing_key(routing_key);
  RETURN QUERY
    SELECT DISTINCT b.queue_name FROM pgmq.topic_bindings b WHERE _smq_routed_queues.routing_key ~ b.compiled_regex ORDER BY 1;
END
$$;

CREATE OR REPLACE FUNCTION pgmq._smq_send_topic(routing_key text, msg jsonb, headers jsonb, vt timestamptz)
RETURNS integer
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  q text;
  sent integer := 0;
BEGIN
  FOR q IN SELECT pgmq._smq_routed_queues(routing_key) LOOP
    PERFORM pgmq._smq_send(q, msg, headers, vt);
    sent := sent + 1;
  END LOOP;
  RETURN sent;
END
$$;

CREATE OR REPLACE FUNCTION pgmq._smq_send_batch_topic(routing_key text, msgs jsonb[], headers jsonb[], vt timestamptz)
RETURNS TABLE (queue_name text, msg_id bigint)
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  q text;
BEGIN
  IF headers IS NOT NULL AND cardinality(headers) <> cardinality(msgs) THEN
    RAISE EXCEPTION 'headers array length (%) must match msgs array length (%)',
      cardinality(headers), cardinality(msgs);
  END IF;
  FOR q IN SELECT pgmq._smq_routed_queues(routing_key) LOOP
    RETURN QUERY SELECT q, s.id FROM pgmq._smq_send_batch(q, msgs, headers, vt) AS s(id);
  END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION pgmq.send_topic(routing_key text, msg jsonb)
RETURNS integer
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_send_topic(routing_key, msg, NULL, clock_timestamp()) $$;

CREATE OR REPLACE FUNCTION pgmq.send_topic(routing_key text, msg jsonb, delay integer)
RETURNS integer
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_send_topic(routing_key, msg, NULL, clock_timestamp() + make_interval(secs => delay)) $$;

CREATE OR REPLACE FUNCTION pgmq.send_topic(routing_key text, msg jsonb, headers jsonb, delay integer)
RETURNS integer
LANGUAGE sql VOLATILE
AS $$ SELECT pgmq._smq_send_topic(routing_key, msg, headers, clock_timestamp() + make_interval(secs => delay)) $$;

CREATE OR REPLACE FUNCTION pgmq.send_batch_topic(routing_key text, msgs jsonb[])
RETURNS TABLE (queue_name text, msg_id bigint)
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_send_batch_topic(routing_key, msgs, NULL, clock_timestamp()) $$;

CREATE OR REPLACE FUNCTION pgmq.send_batch_topic(routing_key text, msgs jsonb[], headers jsonb[])
RETURNS TABLE (queue_name text, msg_id bigint)
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_send_batch_topic(routing_key, msgs, headers, clock_timestamp()) $$;

CREATE OR REPLACE FUNCTION pgmq.send_batch_topic(routing_key text, msgs jsonb[], delay integer)
RETURNS TABLE (queue_name text, msg_id bigint)
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_send_batch_topic(routing_key, msgs, NULL, clock_timestamp() + make_interval(secs => delay)) $$;

CREATE OR REPLACE FUNCTION pgmq.send_batch_topic(routing_key text, msgs jsonb[], delay timestamptz)
RETURNS TABLE (queue_name text, msg_id bigint)
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_send_batch_topic(routing_key, msgs, NULL, delay) $$;

CREATE OR REPLACE FUNCTION pgmq.send_batch_topic(routing_key text, msgs jsonb[], headers jsonb[], delay integer)
RETURNS TABLE (queue_name text, msg_id bigint)
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_send_batch_topic(routing_key, msgs, headers, clock_timestamp() + make_interval(secs => delay)) $$;

CREATE OR REPLACE FUNCTION pgmq.send_batch_topic(routing_key text, msgs jsonb[], headers jsonb[], delay timestamptz)
RETURNS TABLE (queue_name text, msg_id bigint)
LANGUAGE sql VOLATILE
AS $$ SELECT * FROM pgmq._smq_send_batch_topic(routing_key, msgs, headers, delay) $$;
