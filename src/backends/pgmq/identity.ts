// Which server a connection is on (the tester's phases around a failover), and ending the
// tester's own connections on it (--fault terminate), with the check of the right to do so.
import type { ServerIdentity } from '../types.js';
import type { PgmqSession } from './session.js';
import type { Query } from './sql.js';

/**
 * The timeline: on a primary, the first 8 hex digits of the current WAL file's name (a
 * promoted standby is on its new timeline at once; pg_control_checkpoint() shows it only
 * after the next checkpoint); on a standby, the last checkpoint's. pg_walfile_name() fails
 * during recovery, hence the CASE. pg_control_system() may be withheld from a role: then null.
 */
export const SERVER_IDENTITY: Query = {
  text: `SELECT host(inet_server_addr()) AS addr, current_setting('port') AS port, pg_is_in_recovery() AS recovery,
       CASE WHEN has_function_privilege('pg_control_system()', 'EXECUTE')
            THEN (pg_control_system()).system_identifier::text END AS system_identifier,
       CASE WHEN pg_is_in_recovery()
            THEN CASE WHEN has_function_privilege('pg_control_checkpoint()', 'EXECUTE') THEN (pg_control_checkpoint()).timeline_id END
            ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int END AS timeline`,
  values: [],
};

export async function serverIdentity(s: PgmqSession): Promise<ServerIdentity> {
  const rows = await s.run<{
    addr: string | null;
    port: string;
    recovery: boolean;
    system_identifier: string | null;
    timeline: number | null;
  }>(SERVER_IDENTITY);
  const r = rows[0]!;
  return {
    // A Unix socket has no address: the socket stands for this host.
    server: `${r.addr ?? 'localhost'}:${r.port}`,
    systemIdentifier: r.system_identifier,
    timeline: r.timeline,
    inRecovery: r.recovery,
  };
}

/**
 * The pids are taken first (OFFSET 0 keeps the subquery apart), so that pg_terminate_backend
 * is called for the named connections only, never on a row the filter has not seen yet.
 */
export const terminateQuery = (applicationName: string): Query => ({
  text: `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n
           FROM (SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid() OFFSET 0) AS own`,
  values: [applicationName],
});

export async function terminateConnections(s: PgmqSession, applicationName: string): Promise<number> {
  const rows = await s.run<{ n: number }>(terminateQuery(applicationName));
  return rows[0]?.n ?? 0;
}

/**
 * pg_terminate_backend's own rule: a superuser may end any connection; others only those of a
 * role they have the privileges of, or any but a superuser's with pg_signal_backend. The
 * tester's connections log in as session_user; the fault runs as current_user.
 */
export const TERMINATE_PRIVILEGE: Query = {
  text: `SELECT cu.rolsuper AS su, su.rolsuper AS session_su, current_user::text AS cur, session_user::text AS ses,
       pg_has_role(current_user, 'pg_signal_backend', 'USAGE') AS signal,
       pg_has_role(current_user, session_user, 'USAGE') AS same
  FROM pg_roles cu, pg_roles su WHERE cu.rolname = current_user AND su.rolname = session_user`,
  values: [],
};

export async function cannotTerminate(s: PgmqSession): Promise<string | undefined> {
  const rows = await s.run<{ su: boolean; session_su: boolean; cur: string; ses: string; signal: boolean; same: boolean }>(
    TERMINATE_PRIVILEGE,
  );
  const r = rows[0];
  if (!r || r.su) return undefined;
  if (r.session_su) {
    return `role ${r.cur} is not a superuser, and the run's connections log in as the superuser ${r.ses}`;
  }
  if (r.same || r.signal) return undefined;
  return `role ${r.cur} is not a superuser, not a member of pg_signal_backend, and has not the privileges of ${r.ses}, as whom the run's connections log in`;
}
