// What the queue list knows between refreshes: the rows, when they were fetched, whether
// the database is reachable, and the last health line. Pure: the hook feeds it outcomes.
import type { HealthInfo, QueueStats } from '../../backends/types.js';
import { isSmqError } from '../../errors.js';
import { escapeControl } from '../../text/escape.js';
import { applyQueueStats, EMPTY_ROWS, type RowsState } from './rows.js';

export interface Outage {
  readonly message: string;
  /** When the first failed refresh of this outage finished. */
  readonly since: number;
  readonly failures: number;
}

export interface MonitorState {
  readonly rows: RowsState;
  /** Client clock of the last successful refresh. */
  readonly lastRefreshAt: number | undefined;
  /** Refreshes finished, failed ones included (what -n counts). */
  readonly refreshes: number;
  readonly outage: Outage | undefined;
  readonly health: HealthInfo | undefined;
  readonly healthError: string | undefined;
  readonly lastHealthAt: number | undefined;
}

export const INITIAL_MONITOR: MonitorState = {
  rows: EMPTY_ROWS,
  lastRefreshAt: undefined,
  refreshes: 0,
  outage: undefined,
  health: undefined,
  healthError: undefined,
  lastHealthAt: undefined,
};

export function refreshSucceeded(s: MonitorState, queues: readonly QueueStats[], at: number): MonitorState {
  return { ...s, rows: applyQueueStats(s.rows, queues, at), lastRefreshAt: at, refreshes: s.refreshes + 1, outage: undefined };
}

/** The rows stay on screen (marked stale by the outage) while the database is away. */
export function refreshFailed(s: MonitorState, error: unknown, at: number): MonitorState {
  const message = withoutLocation(errorText(error));
  const outage: Outage = s.outage ? { ...s.outage, message, failures: s.outage.failures + 1 } : { message, since: at, failures: 1 };
  return { ...s, refreshes: s.refreshes + 1, outage };
}

/**
 * The outage banner's text: the header names the store, so "cannot connect to <url>: why" is
 * "cannot connect: why" there, and the room the banner has (it is cut at the terminal's
 * edge) goes to why. A URL holds no space (it is percent-encoded).
 */
export function withoutLocation(message: string): string {
  return message.replace(/^(cannot connect|lost the connection) to \S+?: /, '$1: ');
}

export function healthFetched(s: MonitorState, health: HealthInfo, at: number): MonitorState {
  return { ...s, health, healthError: undefined, lastHealthAt: at };
}

export function healthFailed(s: MonitorState, error: unknown, at: number): MonitorState {
  return { ...s, healthError: errorText(error), lastHealthAt: at };
}

/**
 * One escaped line for an error: smq's own errors as they print, node-postgres errors with
 * the server's code (and hint) kept, anything else by its message.
 */
export function errorText(error: unknown): string {
  if (isSmqError(error)) {
    const cause = error.cause as { code?: unknown } | undefined;
    const line = error.line();
    // Not said twice: a line that names the code already ("connection refused (ECONNREFUSED)").
    const code = cause && typeof cause.code === 'string' && !line.includes(`(${cause.code})`) ? ` [${cause.code}]` : '';
    return escapeControl(line + code);
  }
  if (error instanceof Error) {
    const e = error as Error & { code?: unknown; hint?: unknown };
    const code = typeof e.code === 'string' ? ` [${e.code}]` : '';
    const hint = typeof e.hint === 'string' && e.hint ? `: ${e.hint}` : '';
    const message = error.message || (error as AggregateError).errors?.map(String).join('; ') || error.name;
    return escapeControl(`${message}${hint}${code}`);
  }
  return escapeControl(String(error));
}
