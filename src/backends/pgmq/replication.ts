// What top's health line says about replication: on a primary, each standby it streams to
// (pg_stat_replication: name, client address, state, sync state, write/flush/replay lag), and a
// warning when commits wait for a synchronous standby that is not connected; on a standby, that
// it is one.
import type { Query } from './sql.js';

export interface StandbyRow {
  readonly name: string | null;
  readonly addr: string | null;
  readonly state: string | null;
  readonly sync: string | null;
  /** Lags in seconds; null when not measured (idle, caught up) or hidden. */
  readonly write: number | null;
  readonly flush: number | null;
  readonly replay: number | null;
  readonly pid?: number | null;
}

export interface ReplicationRow {
  readonly in_recovery: boolean;
  readonly sync_names: string;
  readonly standbys: readonly StandbyRow[];
}

export const REPLICATION: Query = {
  text: `SELECT pg_is_in_recovery() AS in_recovery, current_setting('synchronous_standby_names') AS sync_names,
        (SELECT coalesce(json_agg(json_build_object(
            'pid', pid, 'name', application_name, 'addr', host(client_addr), 'state', state, 'sync', sync_state,
            'write', extract(epoch FROM write_lag), 'flush', extract(epoch FROM flush_lag), 'replay', extract(epoch FROM replay_lag))
          ORDER BY application_name, pid), '[]'::json) FROM pg_stat_replication) AS standbys`,
  values: [],
};

/** A standby further behind than this is a warning. */
const BEHIND_WARNING_SEC = 60;

const lag = (sec: number | null) => (sec === null ? '-' : sec < 1 ? `${Math.round(sec * 1000)}ms` : `${sec.toFixed(1)}s`);

export function replicationHealth(row: ReplicationRow): { parts: string[]; warnings: string[] } {
  if (row.in_recovery) return { parts: ['this server is a standby (in recovery)'], warnings: [] };
  const parts: string[] = [];
  const warnings: string[] = [];
  for (const s of row.standbys) {
    if (s.state === null) {
      // Without pg_read_all_stats only the pid of another role's walsender is shown.
      parts.push(`standby ${s.name ?? `pid ${s.pid ?? '?'}`} (details need pg_read_all_stats)`);
      continue;
    }
    const who = [s.name || 'unnamed', s.addr].filter((x) => x).join(' ');
    // pg_stat_replication shows no lag (NULL) once the standby has caught up and no WAL follows.
    const lags =
      s.write === null && s.flush === null && s.replay === null
        ? 'caught up (no WAL to send)'
        : `lag write ${lag(s.write)} flush ${lag(s.flush)} replay ${lag(s.replay)}`;
    parts.push(`standby ${who} ${s.state} ${s.sync ?? ''}, ${lags}`);
    if ((s.replay ?? 0) > BEHIND_WARNING_SEC) warnings.push(`standby ${who.split(' ')[0]} is ${lag(s.replay)} behind (replay lag)`);
  }
  const synchronous = row.standbys.some((s) => s.sync === 'sync' || s.sync === 'quorum');
  if (row.sync_names.trim() !== '' && !synchronous && !row.standbys.some((s) => s.state === null)) {
    warnings.push('synchronous_standby_names is set but no synchronous standby is connected: commits wait for one');
  }
  return { parts, warnings };
}
