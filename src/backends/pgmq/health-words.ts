// The words of top's health line about the vacuum horizon (pure: unit-tested without a server).
// As pg_activity: who holds it (pid, application, client, state, for how long), highlighted
// (a warning) once it looks stuck; nothing at all while the horizon is fine.
import { formatAge } from '../../text/age.js';

/** What sql.HEALTH reads about the horizon: the holding transaction and slot, if any. */
export interface HorizonRow {
  readonly pid: number | null;
  readonly state: string | null;
  readonly app: string | null;
  readonly client: string | null;
  readonly xids: number | null;
  readonly secs: number | null;
  readonly slot: string | null;
  readonly slot_active: boolean | null;
  readonly slot_xids: number | null;
}

/** Past this a transaction holding the horizon is highlighted; idle in a transaction at once. */
export const HOLDER_WARN_SEC = 60;
/** An active slot (a standby's feedback, a logical consumer) is named only this far behind. */
export const SLOT_WARN_XIDS = 1_000_000;

export function horizonWords(r: HorizonRow): { parts: string[]; warnings: string[] } {
  const parts: string[] = [];
  const warnings: string[] = [];
  if (r.pid !== null) {
    const who = `${r.app ? r.app : 'no application name'}, ${r.client ?? 'local socket'}`;
    const xids = (r.xids ?? 0) > 0 ? ` (${r.xids!.toLocaleString('en-US')} xid${r.xids === 1 ? '' : 's'})` : '';
    const text = `vacuum held by pid ${r.pid} (${who}), ${r.state ?? 'state hidden'} for ${formatAge(r.secs)}${xids}`;
    const stuck = (r.state ?? '').startsWith('idle in transaction') || (r.secs ?? 0) >= HOLDER_WARN_SEC || (r.xids ?? 0) >= SLOT_WARN_XIDS;
    (stuck ? warnings : parts).push(text);
  }
  if (r.slot !== null) {
    if (r.slot_active === false)
      warnings.push(`vacuum held by replication slot ${r.slot}, which nothing uses (${(r.slot_xids ?? 0).toLocaleString('en-US')} xids)`);
    else if ((r.slot_xids ?? 0) >= SLOT_WARN_XIDS)
      warnings.push(`vacuum held by replication slot ${r.slot} (${(r.slot_xids ?? 0).toLocaleString('en-US')} xids)`);
  }
  return { parts, warnings };
}
