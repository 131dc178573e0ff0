// libpq's multi-host targets: host=h1,h2 (in a URL h1:5432,h2:5433), with one port for every
// host or one per host, and target_session_attrs, which says what server a connection may stay
// on. Pure: connector.ts connects and checks, connection.ts reads the parameters.
import { usageError } from '../../errors.js';
import type { Params } from './service-file.js';

export const TARGET_SESSION_ATTRS = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** What the check on a new connection learns: pg_is_in_recovery() and transaction_read_only. */
export interface ServerRole {
  readonly inRecovery: boolean;
  readonly readOnly: boolean;
}

const DEFAULT_PORT = 5432;

/**
 * Whether a server suits, with libpq's meanings: read-write and read-only judge the session
 * (a standby is read-only, and so is a primary with default_transaction_read_only), primary and
 * standby judge hot standby. prefer-standby is standby on the first pass (connector.ts makes the
 * second, which takes any server).
 */
export function suits(attrs: TargetSessionAttrs, role: ServerRole): boolean {
  switch (attrs) {
    case 'any':
      return true;
    case 'read-write':
      return !role.readOnly && !role.inRecovery;
    case 'read-only':
      return role.readOnly || role.inRecovery;
    case 'primary':
      return !role.inRecovery;
    case 'standby':
    case 'prefer-standby':
      return role.inRecovery;
  }
}

/** Why a server does not suit, in libpq's words. */
export function mismatch(attrs: TargetSessionAttrs): string {
  switch (attrs) {
    case 'read-write':
      return 'session is read-only';
    case 'read-only':
      return 'session is not read-only';
    case 'primary':
      return 'server is in hot standby mode';
    default:
      return 'server is not in hot standby mode';
  }
}

export function targetSessionAttrsOf(params: Params): TargetSessionAttrs {
  const value = params['target_session_attrs'];
  if (value === undefined || value === '') return 'any';
  if ((TARGET_SESSION_ATTRS as readonly string[]).includes(value)) return value as TargetSessionAttrs;
  // Shown only when it cannot be a piece of a password (a raw '?' or '&' in one).
  const shown = /^[a-z-]{1,20}$/i.test(value) ? ` ${JSON.stringify(value)}` : ' (not shown)';
  throw usageError(`invalid target_session_attrs${shown}`, `use one of ${TARGET_SESSION_ATTRS.join(', ')}`);
}

/** libpq 16's load_balance_hosts: `random` tries the hosts in a random order, `disable` (default) in the given one. */
export function loadBalanceOf(params: Params): boolean {
  const value = params['load_balance_hosts'];
  if (value === undefined || value === '' || value === 'disable') return false;
  if (value === 'random') return true;
  const shown = /^[a-z-]{1,20}$/i.test(value) ? ` ${JSON.stringify(value)}` : ' (not shown)';
  throw usageError(`invalid load_balance_hosts${shown}`, 'use disable or random');
}

/** A copy in random order (Fisher-Yates). */
export function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function portOf(text: string | undefined): number {
  if (text === undefined || text === '') return DEFAULT_PORT;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 1 && port <= 65535)) {
    throw usageError('invalid port', 'the port is a number from 1 to 65535 (check --url, PGPORT or the service)');
  }
  return port;
}

/** The hosts to try, in order: an empty entry is localhost, an empty port the default. */
export function hostsOf(params: Params): HostPort[] {
  const hosts = (params['host'] ?? params['hostaddr'] ?? '').split(',').map((h) => (h === '' ? 'localhost' : h));
  const ports = params['port']?.split(',') ?? [''];
  if (ports.length !== 1 && ports.length !== hosts.length) {
    throw usageError(
      `could not match ${ports.length} port numbers to ${hosts.length} hosts`,
      'give one port for every host, or one per host (--url, PGPORT or the service)',
    );
  }
  return hosts.map((host, i) => ({ host, port: portOf(ports.length === 1 ? ports[0] : ports[i]) }));
}

/**
 * A URL's host part with several hosts (h1:5432,[::1]:5433,h3) as libpq's host and port lists
 * (still percent-encoded); a string saying what is wrong when an entry cannot be read.
 */
export function urlHostList(text: string): { hosts: string[]; ports: string[] } | string {
  const hosts: string[] = [];
  const ports: string[] = [];
  for (const entry of text.split(',')) {
    let host = entry;
    let port = '';
    if (entry.startsWith('[')) {
      const close = entry.indexOf(']');
      if (close < 0 || (close + 1 < entry.length && entry[close + 1] !== ':')) return 'a host in the list is malformed';
      host = entry.slice(1, close);
      port = entry.slice(close + 2);
    } else if (entry.includes(':')) {
      host = entry.slice(0, entry.indexOf(':'));
      port = entry.slice(entry.indexOf(':') + 1);
    }
    if (port !== '' && !/^\d{1,5}$/.test(port)) return 'a port in the host list is not a number';
    hosts.push(host);
    ports.push(port);
  }
  return { hosts, ports };
}
