// SQL for what top asks about rather than changes: whether this role may change queues
// (writePrivileges). Values are bound; table names come from the server's own catalog.
import type { Query } from './sql.js';

/**
 * One row: the role, whether the server or the session is read-only, how many queue tables
 * (pgmq.q_*) there are and on how many of them the role may DELETE or UPDATE (what top's
 * delete, archive and make-visible do), and EXECUTE on pgmq.delete (NULL when it is absent).
 */
export const WRITE_PRIVILEGES: Query = {
  text: `/* smq:write-privileges */
SELECT current_user::text AS role,
       pg_is_in_recovery() AS standby,
       current_setting('transaction_read_only') = 'on' AS session_read_only,
       count(c.oid)::int AS tables,
       count(c.oid) FILTER (WHERE has_table_privilege(c.oid, 'DELETE') OR has_table_privilege(c.oid, 'UPDATE'))::int AS writable,
       has_function_privilege(to_regprocedure('pgmq.delete(text,bigint[])'), 'EXECUTE') AS delete_fn
FROM (SELECT 1) one
LEFT JOIN pg_class c ON c.relnamespace = to_regnamespace('pgmq') AND c.relname LIKE 'q\\_%' AND c.relkind IN ('r', 'p')`,
  values: [],
};
