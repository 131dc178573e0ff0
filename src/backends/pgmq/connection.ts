// The one place that knows a pgmq connection: where it goes and as whom (from the URL, the
// service file, PG* variables and the password file, with libpq's precedence), which of its
// values are secret (the forms they take are ../secrets.ts's), and how to show it. Everything
// smq prints about a connection is built from the parsed parts, never from the text the user
// gave, so a password cannot leak through a misread URL.
import { userInfo } from 'node:os';
import { parse as parseConnectionString } from 'pg-connection-string';
import { usageError } from '../../errors.js';
import { longestFirst, passwordCandidates, SECRET_KEYWORDS, secretForms } from '../secrets.js';
import { hostsOf, loadBalanceOf, targetSessionAttrsOf, urlHostList, type HostPort, type TargetSessionAttrs } from './hosts.js';
import { pgpassPassword } from './pgpass.js';
import { serviceParams, type Params } from './service-file.js';

export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** libpq's connection keywords: the only ones a URL query or a service file may name. */
const KEYWORDS: ReadonlySet<string> = new Set([
  'host',
  'hostaddr',
  'port',
  'dbname',
  'user',
  'password',
  'passfile',
  'require_auth',
  'channel_binding',
  'connect_timeout',
  'client_encoding',
  'options',
  'application_name',
  'fallback_application_name',
  'keepalives',
  'keepalives_idle',
  'keepalives_interval',
  'keepalives_count',
  'tcp_user_timeout',
  'replication',
  'gssencmode',
  'sslmode',
  'sslnegotiation',
  'sslcompression',
  'sslcert',
  'sslkey',
  'sslpassword',
  'sslcertmode',
  'sslrootcert',
  'sslcrl',
  'sslcrldir',
  'sslsni',
  'requirepeer',
  'ssl_min_protocol_version',
  'ssl_max_protocol_version',
  'krbsrvname',
  'gsslib',
  'gssdelegation',
  'service',
  'target_session_attrs',
  'load_balance_hosts',
]);
/** node-postgres' own URL parameters, so URLs written for it keep working. */
const NODE_PG_KEYWORDS: ReadonlySet<string> = new Set(['ssl', 'uselibpqcompat']);

/** libpq's environment variables and the keyword each stands for. */
const ENVIRONMENT: Readonly<Record<string, string>> = {
  PGHOST: 'host',
  PGHOSTADDR: 'hostaddr',
  PGPORT: 'port',
  PGDATABASE: 'dbname',
  PGUSER: 'user',
  PGPASSWORD: 'password',
  PGSERVICE: 'service',
  PGSSLMODE: 'sslmode',
  PGSSLROOTCERT: 'sslrootcert',
  PGSSLCERT: 'sslcert',
  PGSSLKEY: 'sslkey',
  PGAPPNAME: 'application_name',
  PGOPTIONS: 'options',
  PGCLIENTENCODING: 'client_encoding',
  PGCONNECT_TIMEOUT: 'connect_timeout',
  PGTARGETSESSIONATTRS: 'target_session_attrs',
};

/** One server of the target, with the password for it (the password file is read per host and port). */
export interface PgHost extends HostPort {
  readonly password: string | undefined;
}

export interface PgConnection {
  /** The first of hosts. */
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly database: string;
  /** The first host's: from the URL, the service, PGPASSWORD or the password file (PGPASSFILE, ~/.pgpass). */
  readonly password: string | undefined;
  /** Every server to try, in order (libpq's host and port lists); one for most targets. */
  readonly hosts: readonly PgHost[];
  /** Which of them a connection may stay on (connector.ts); 'any' unless given. */
  readonly targetSessionAttrs: TargetSessionAttrs;
  /** load_balance_hosts=random: each connection tries the hosts in a random order. */
  readonly loadBalance: boolean;
  /** Undefined when nothing sets it: smq then connects without TLS, as node-postgres does. */
  readonly sslmode: SslMode | undefined;
  /** connect_timeout in ms; undefined when not given or 0 or less (the caller's default then). */
  readonly connectTimeoutMs: number | undefined;
  /** Every keyword in effect (sslrootcert, application_name, options, ...). */
  readonly params: Readonly<Params>;
  /** postgres://user:***@host:port/db: what smq shows. */
  readonly display: string;
  /** Every form of every secret this connection holds, longest first. */
  readonly secrets: readonly string[];
}

const SCHEME = /^postgres(?:ql)?:\/\//i;

export const isPostgresUrl = (url: string): boolean => SCHEME.test(url);

const ENCODE_HINT =
  'percent-encode reserved characters in the user name and password (@ %40, / %2F, ? %3F, # %23, & %26, % %25), or put the password in PGPASSWORD';

/** A URL smq cannot read one way only. Its text is never shown: any piece of it may be a password. */
function refuse(problem: string): never {
  throw usageError(`${problem} (the URL is not shown: it may hold a password)`, ENCODE_HINT);
}

/** Percent-decoding that leaves a % not followed by two hex digits as it is (a literal %). */
function decode(text: string): string {
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

interface UrlParts {
  readonly authority: string;
  readonly path: string;
  readonly query: string;
  readonly prefix: string;
}

/**
 * The user part ends at the last '@' before the host, and the host at the first '/' or '?'
 * after it. A '#' (no meaning in a connection URL), an '@' in the database name, or an
 * '@' in a query item that is not keyword=value can only come from a password written
 * raw: such a URL could be read two ways, so it is refused rather than guessed.
 */
function splitUrl(url: string): UrlParts {
  const prefix = SCHEME.exec(url)?.[0];
  if (prefix === undefined) throw usageError('not a postgres:// URL');
  const rest = url.slice(prefix.length);
  if (rest.includes('#')) refuse("malformed URL: it contains '#'");
  const end = rest.search(/[/?]/);
  const authority = end < 0 ? rest : rest.slice(0, end);
  const tail = end < 0 ? '' : rest.slice(end);
  const q = tail.indexOf('?');
  const path = q < 0 ? tail : tail.slice(0, q);
  const query = q < 0 ? '' : tail.slice(q + 1);
  if (path.includes('@')) refuse("malformed URL: an '@' after the host makes it ambiguous");
  return { authority, path, query, prefix };
}

function queryParams(parts: UrlParts): Params {
  const params: Params = {};
  const passwordInUserPart = parts.authority.includes('@') && parts.authority.slice(0, parts.authority.lastIndexOf('@')).includes(':');
  for (const item of parts.query.split('&')) {
    if (item === '') continue;
    const eq = item.indexOf('=');
    if (eq <= 0) refuse("malformed URL: a query item is not keyword=value (a raw '&' in a password?)");
    const key = decode(item.slice(0, eq));
    if (!KEYWORDS.has(key) && !NODE_PG_KEYWORDS.has(key)) {
      // With a password around, the "keyword" may be a piece of it: name it only otherwise. An
      // '@' after the '?' means a raw '?' in the password ended the host part early.
      if (passwordInUserPart || parts.query.includes('password=') || parts.query.includes('@')) {
        refuse('malformed URL: an unknown query parameter');
      }
      throw usageError(
        `unknown parameter ${JSON.stringify(key)} in the postgres URL`,
        'use libpq keywords, e.g. sslmode, application_name, options',
      );
    }
    params[key] = decode(item.slice(eq + 1));
  }
  return params;
}

const BAD_PORT = 'malformed URL: the port is not a number from 1 to 65535';
const validPort = (text: string) => /^\d{1,5}$/.test(text) && Number(text) >= 1 && Number(text) <= 65535;

/** The parameters a postgres:// URL gives, the query winning over the user and host parts. */
function urlParams(url: string): Params {
  const parts = splitUrl(url);
  const query = queryParams(parts);
  // Several hosts (h1:5432,h2:5433) are read here; pg-connection-string, which reads one, gets a
  // stand-in for them and reads the user part and the database.
  const at = parts.authority.lastIndexOf('@');
  const hostPart = parts.authority.slice(at + 1);
  const list = hostPart.includes(',') ? urlHostList(hostPart) : undefined;
  if (typeof list === 'string') refuse(`malformed URL: ${list}`);
  const authority = list ? `${parts.authority.slice(0, at + 1)}localhost` : parts.authority;
  // pg-connection-string's URL parser refuses these with no word of why.
  const port = list ? undefined : /^(?:\[[^\]]*\]|[^:]*):(.*)$/.exec(hostPart)?.[1];
  if (port !== undefined && port !== '' && !validPort(port)) refuse(BAD_PORT);
  let parsed: ReturnType<typeof parseConnectionString>;
  try {
    // Without the query: pg-connection-string would act on sslmode itself (and warn).
    parsed = parseConnectionString(`${parts.prefix}${authority}${parts.path}`);
  } catch {
    refuse('malformed URL');
  }
  const fromUrl: Params = {};
  const set = (key: string, value: string | null | undefined) => {
    if (value !== undefined && value !== null && value !== '') fromUrl[key] = value;
  };
  set('host', parsed.host);
  set('port', parsed.port);
  set('user', parsed.user);
  set('password', parsed.password);
  // libpq decodes every escape of the database name; pg-connection-string's decodeURI leaves
  // the reserved ones (%40, %23, %2F, %3F) as they are.
  const database = parts.path.slice(1);
  if (database !== '') fromUrl['dbname'] = decode(database);
  if (list) {
    fromUrl['host'] = list.hosts.map(decode).join(',');
    delete fromUrl['port'];
    if (list.ports.some((p) => p !== '')) fromUrl['port'] = list.ports.join(',');
  } else if (fromUrl['port'] !== undefined && !validPort(fromUrl['port'])) refuse(BAD_PORT);
  return { ...fromUrl, ...query };
}

function environmentParams(env: NodeJS.ProcessEnv): Params {
  const params: Params = {};
  for (const [variable, key] of Object.entries(ENVIRONMENT)) {
    const value = env[variable];
    if (value !== undefined && value !== '') params[key] = value;
  }
  return params;
}

function sslModeOf(params: Params): SslMode | undefined {
  const mode = params['sslmode'];
  if (mode === undefined) {
    // node-postgres' ssl=true means TLS with the certificate checked.
    if (params['ssl'] === 'true' || params['ssl'] === '1') return 'verify-full';
    if (params['ssl'] === 'false' || params['ssl'] === '0') return 'disable';
    return undefined;
  }
  if (mode === 'no-verify') return 'require'; // node-postgres' name for it
  if (!(SSL_MODES as readonly string[]).includes(mode)) {
    throw usageError(`invalid sslmode ${JSON.stringify(mode)}`, `use one of ${SSL_MODES.join(', ')}`);
  }
  return mode as SslMode;
}

/** The longest wait a timer holds: 2^31 - 1 ms, about 24 days. */
const MAX_CONNECT_TIMEOUT_S = Math.floor(2_147_483_647 / 1000);

/**
 * connect_timeout (URL, service or PGCONNECT_TIMEOUT) as libpq reads it: whole seconds, or
 * refused. libpq waits for ever on 0 or less; smq keeps its own default then (a hung server
 * must not hang a script), as it does when none is given.
 */
function connectTimeoutOf(params: Params): number | undefined {
  const text = params['connect_timeout'];
  if (text === undefined) return undefined;
  const seconds = /^\s*[+-]?\d+\s*$/.test(text) ? Number(text) : NaN;
  // The value is shown: it is no secret, and bin/smq stars any password in it anyway.
  if (!Number.isSafeInteger(seconds) || seconds > MAX_CONNECT_TIMEOUT_S) {
    throw usageError(
      `invalid connect_timeout ${JSON.stringify(text)}: give whole seconds, at most ${MAX_CONNECT_TIMEOUT_S}`,
      "for example connect_timeout=10 in the URL or PGCONNECT_TIMEOUT=10 (0 or less: smq's default, 5 s)",
    );
  }
  return seconds > 0 ? seconds * 1000 : undefined;
}

/** Reserved characters of a URL part, percent-encoded so the shown URL reads one way. */
const showPart = (text: string) => text.replace(/[%@:/?#&=\s\p{Cc}]/gu, (c) => encodeURIComponent(c));

/**
 * Resolves a connection as libpq does: keywords given in the URL, then the service's
 * (?service= or PGSERVICE), then PG* variables, then defaults. Throws a usage error for a URL
 * that cannot be read one way, an unknown service, or an invalid port or sslmode.
 */
export function pgConnection(url: string | undefined, env: NodeJS.ProcessEnv = process.env): PgConnection {
  const given = url === undefined ? {} : urlParams(url);
  const fromEnv = environmentParams(env);
  const service = given['service'] ?? fromEnv['service'];
  const fromService = service === undefined ? {} : serviceParams(service, env, KEYWORDS);
  const params: Params = { ...fromEnv, ...fromService, ...given };
  const user = params['user'] ?? env['USER'] ?? safeUserName();
  const database = params['dbname'] ?? user;
  const targetSessionAttrs = targetSessionAttrsOf(params);
  const loadBalance = loadBalanceOf(params);
  // libpq's order: a password given anywhere above, else the password file (for each host and port).
  const passwordGiven = params['password'];
  const hosts: PgHost[] = hostsOf(params).map(({ host, port }) => ({
    host,
    port,
    password: passwordGiven ?? pgpassPassword({ host, port, database, user }, env),
  }));
  const first = hosts[0]!;
  const sslmode = sslModeOf(params);
  const connectTimeoutMs = connectTimeoutOf(params);
  const hostShown = ({ host, port }: HostPort) => `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : showPart(host)}:${port}`;
  const query = [
    sslmode !== undefined ? `sslmode=${sslmode}` : '',
    targetSessionAttrs !== 'any' ? `target_session_attrs=${targetSessionAttrs}` : '',
  ]
    .filter((q) => q !== '')
    .join('&');
  const anyPassword = hosts.some((h) => h.password !== undefined);
  const display =
    `postgres://${showPart(user)}${anyPassword ? ':***' : ''}@${hosts.map(hostShown).join(',')}/${showPart(database)}` +
    (query ? `?${query}` : '');
  const secrets = [
    ...SECRET_KEYWORDS.flatMap((k) => [given[k], fromService[k], fromEnv[k]]),
    ...(passwordGiven === undefined ? hosts.map((h) => h.password) : []),
    ...(url === undefined ? [] : passwordCandidates(url)),
  ].filter((s): s is string => s !== undefined && s !== '');
  return {
    host: first.host,
    port: first.port,
    user,
    database,
    password: first.password,
    hosts,
    targetSessionAttrs,
    loadBalance,
    sslmode,
    connectTimeoutMs,
    params,
    display,
    // A password that is part of the user, database or a host name is shown as those anyway:
    // starring it there would only say what it is.
    secrets: longestFirst(
      secrets.flatMap(secretForms).filter((s) => ![user, database, ...hosts.map((h) => h.host)].some((shown) => shown.includes(s))),
      1,
    ),
  };
}

function safeUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'postgres';
  }
}

/**
 * The secrets of a connection, without throwing: for a URL that cannot be parsed, every
 * piece that could be its password. bin/smq scrubs these from everything it prints.
 */
export function connectionSecrets(url: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  try {
    return [...pgConnection(url, env).secrets];
  } catch {
    const fromEnv = SECRET_KEYWORDS.map((k) => environmentParams(env)[k]).filter((s): s is string => s !== undefined);
    const candidates = url === undefined || url.startsWith('sqlite:') ? [] : passwordCandidates(url);
    return longestFirst([...candidates, ...fromEnv.flatMap(secretForms)], 1);
  }
}
