// node-postgres errors -> SmqError, keeping the server's fields (code, detail, hint)
// and never the password.
import { SmqError, queueNotFound } from '../../errors.js';
import { callTimeout, formatTimeout } from '../deadline.js';
import { redactSecrets } from '../secrets.js';

interface PgErrorLike {
  code?: string;
  message?: string;
  detail?: string;
  hint?: string;
  errno?: number;
}

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'ECONNRESET',
  'EAI_AGAIN',
  'EPIPE',
]);

interface SocketErrorLike {
  code?: string;
  syscall?: string;
  address?: string;
  port?: number;
  hostname?: string;
  errors?: unknown[];
}

/** The verb of each failure to reach an address, by Node's code. */
const UNREACHED: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'the connection timed out',
};

/**
 * Why nothing answered, in words (as psql says it), with Node's code at the end for scripts;
 * undefined for an error that is not one of these. Never Node's errno text ("connect
 * ECONNREFUSED 127.0.0.1:1"). An AggregateError (a name with several addresses, each tried)
 * says each address with its own failure. shownHost: the host the line names already (its
 * address is not said again).
 */
export function networkReason(e: unknown, shownHost?: string): string | undefined {
  const err = (e ?? {}) as SocketErrorLike;
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') {
    const host = err.hostname === undefined ? 'the host name' : `the host name ${JSON.stringify(err.hostname)}`;
    return err.code === 'ENOTFOUND'
      ? `${host} was not found (ENOTFOUND)`
      : `${host} could not be looked up (the name server did not answer) (EAI_AGAIN)`;
  }
  // A Unix socket path (host=/run/postgresql) where no server has made its socket.
  if (err.code === 'ENOENT' && err.syscall === 'connect') return `no server socket at ${err.address ?? 'that path'} (ENOENT)`;
  const tried = Array.isArray(err.errors) ? (err.errors as SocketErrorLike[]).filter((x) => x?.code !== undefined) : [];
  const failures = tried.length > 0 ? tried : [err];
  if (failures.some((x) => UNREACHED[x.code!] === undefined)) return undefined;
  const place = (x: SocketErrorLike) => (x.address === undefined ? '?' : `${x.address}${x.port === undefined ? '' : ` port ${x.port}`}`);
  // Addresses that failed the same way are said together: "connection refused at A and B (ECONNREFUSED)".
  const codes = [...new Set(failures.map((x) => x.code!))];
  return codes
    .map((code) => {
      const same = failures.filter((x) => x.code === code);
      const where = same.every((x) => x.address === undefined || x.address === shownHost) ? '' : ` at ${same.map(place).join(' and ')}`;
      return `${UNREACHED[code]}${where} (${code})`;
    })
    .join('; ');
}

/**
 * The words for a connection the server closed (or reset, or broke while smq wrote); undefined
 * for another error. node-postgres' own "Connection terminated unexpectedly" says no more than
 * the line around it: `driverWords` stands for it.
 */
export function closedWords(e: unknown, driverWords: string): string | undefined {
  const err = (e ?? {}) as PgErrorLike;
  if (err.code === 'ECONNRESET') return 'the connection was reset';
  if (err.code === 'EPIPE') return 'it was closed while smq wrote to it';
  if (/^Connection terminated unexpectedly$/i.test(err.message ?? '')) return driverWords;
  return undefined;
}

/** SQLSTATE 25006: a write in a read-only transaction (a standby, or default_transaction_read_only). */
export const READ_ONLY_SQL_TRANSACTION = '25006';

export interface PgErrorContext {
  /** Redacted connection description, for connection errors. */
  readonly location: string;
  /** Secrets to scrub from any text (URL password, PGPASSWORD). */
  readonly secrets: readonly (string | undefined)[];
  /** The queue the call was about, so missing-table errors become queue-not-found. */
  readonly queue?: string;
  /** The call deadline (OpenOptions.callTimeoutMs), named when node-postgres gives up on a query. */
  readonly callTimeoutMs?: number | undefined;
  /** --read-only was given (then it is the reason a write is refused; else the server or the URL's settings are). */
  readonly readOnlyAsked?: boolean;
}

/** Errors raised while a connection was being made (startup, TLS, the role check). */
const CONNECTING = new WeakSet<object>();

/**
 * Marks an error as raised before the connection was made, so that it reads "cannot
 * connect", never "lost the connection"; returns it, to be thrown. The same object stays:
 * retries and isConnectionError still see its code and message.
 */
export function whileConnecting(e: unknown): unknown {
  if (e !== null && typeof e === 'object') CONNECTING.add(e);
  return e;
}

export function isConnectionError(e: unknown): boolean {
  const err = e as PgErrorLike;
  if (!err || typeof err !== 'object') return false;
  if (err.code && CONNECT_CODES.has(err.code)) return true;
  // No server socket at a Unix socket path.
  if (err.code === 'ENOENT' && (err as SocketErrorLike).syscall === 'connect') return true;
  // 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now, 08xxx connection exceptions
  // 53300 too many connections: the server is there but has no slot for us (yet)
  if (err.code && (/^08/.test(err.code) || /^57P0[123]$/.test(err.code) || err.code === '53300')) return true;
  const msg = err.message ?? '';
  return /Connection terminated|connection timeout|timeout expired|Client has encountered a connection error|not queryable/i.test(msg);
}

/** TLS failures, which node-postgres reports as plain errors (no SQLSTATE). */
function tlsProblem(err: PgErrorLike): { problem: string; hint: string } | undefined {
  if (/server does not support SSL/i.test(err.message ?? '')) {
    return {
      problem: 'the server does not offer TLS',
      hint: 'use sslmode=prefer to fall back to plain TCP, or enable ssl on the server',
    };
  }
  if (err.code !== undefined && /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS|ERR_SSL|HOSTNAME_MISMATCH/.test(err.code)) {
    return {
      problem: `the server's TLS certificate was refused (${err.code})`,
      hint: 'give the CA that signed it with sslrootcert=FILE, or use sslmode=require to encrypt without checking it',
    };
  }
  return undefined;
}

export function mapPgError(e: unknown, ctx: PgErrorContext): SmqError {
  if (e instanceof SmqError) return e;
  const err = (e ?? {}) as PgErrorLike;
  const clean = (s: string | undefined) => (s === undefined ? undefined : redactSecrets(s, ctx.secrets));
  const message = clean(err.message) ?? String(e);

  // node-postgres' query_timeout: the server did not answer the query in time.
  if (err.message === 'Query read timeout' && err.code === undefined) {
    return callTimeout(ctx.location, ctx.callTimeoutMs ?? 0, e);
  }
  // The server cancelled the statement: past the statement_timeout smq sets a little inside
  // --timeout (a lock held it), or an administrator cancelled it. Either way it changed nothing.
  if (err.code === '57014') {
    const after = ctx.callTimeoutMs === undefined ? '' : ` after about ${formatTimeout(ctx.callTimeoutMs)} (--timeout)`;
    return new SmqError('timeout', `the server cancelled the call${after}: ${message}; the call changed nothing`, {
      hint: 'a lock or a busy server held it; raise --timeout if it is only slow',
      cause: e,
    });
  }
  // node-postgres' words when the server wants a password (SCRAM or md5) and it has none.
  if (/client password must be a string|password authentication .* no password|SASL: .*password/i.test(err.message ?? '')) {
    return new SmqError('auth', `authentication failed for ${ctx.location}: the server asks for a password and none was given`, {
      hint: 'give it in --url (postgres://user:password@host/db), PGPASSWORD or ~/.pgpass',
      cause: e,
    });
  }
  if (err.code === '53300') {
    return new SmqError('connection', `cannot connect to ${ctx.location}: ${message}`, {
      hint: "the server's max_connections are in use: close other connections or raise max_connections",
      cause: e,
    });
  }
  // The server closed the connection: while it was being made (a port that is not
  // PostgreSQL, a proxy without a backend, a server shutting down), or once established
  // (server restart, crash, terminated backend).
  // A reset (the server closed with bytes of ours unread) or a broken pipe is the same event.
  // node-postgres' own words for a close ('' here) say nothing more than the line does.
  const closed = closedWords(err, '');
  if (
    closed !== undefined ||
    err.code === '57P01' ||
    err.code === '57P02' ||
    /Connection terminated unexpectedly/i.test(err.message ?? '')
  ) {
    const why = closed === undefined ? message : closed === '' ? undefined : closed;
    if (CONNECTING.has(err)) {
      return new SmqError(
        'connection',
        `cannot connect to ${ctx.location}: the server closed the connection before it was made${why === undefined ? '' : ` (${why})`}`,
        {
          hint: 'check that --url names a PostgreSQL server (or pooler) that is running; its log says why it closed',
          cause: e,
        },
      );
    }
    return new SmqError('connection', `lost the connection to ${ctx.location}${why === undefined ? '' : `: ${why}`}`, {
      hint: 'the server closed it (restarted, crashed or ended the session); check that it is running',
      cause: e,
    });
  }
  const tls = tlsProblem(err);
  if (tls) {
    return new SmqError('connection', `cannot connect to ${ctx.location}: ${tls.problem}`, { hint: tls.hint, cause: e });
  }
  if (isConnectionError(e)) {
    const words = networkReason(e);
    const reason = words !== undefined ? clean(words)! : err.code && CONNECT_CODES.has(err.code) ? `${err.code} ${message}` : message;
    return new SmqError('connection', `cannot connect to ${ctx.location}: ${reason}`, {
      hint: 'check --url and that the server is running',
      cause: e,
    });
  }
  switch (err.code) {
    case '28P01':
    case '28000':
      return new SmqError('auth', `authentication failed for ${ctx.location}: ${message}`, {
        hint: 'check the user name and password',
        cause: e,
      });
    case '3D000':
      return new SmqError('connection', `cannot connect to ${ctx.location}: ${message}`, {
        hint: 'check the database name in --url',
        cause: e,
      });
    case READ_ONLY_SQL_TRANSACTION:
      return new SmqError('read-only', `the database refused a write: ${message}`, {
        hint: ctx.readOnlyAsked
          ? 'this connection is read-only (--read-only); drop --read-only to change data'
          : 'the server is read-only for this connection (a standby, or default_transaction_read_only in the URL, the role or the database settings)',
        cause: e,
      });
    case '22P02':
    case '22032':
      return new SmqError('invalid-input', `invalid message body: ${message}${err.detail ? ` (${clean(err.detail)})` : ''}`, {
        hint: 'pgmq message bodies must be JSON',
        cause: e,
      });
    case '22P05':
      // jsonb holds text: no \u0000, and nothing the database's encoding cannot store.
      return new SmqError('invalid-input', `invalid message body: ${message}${err.detail ? ` (${clean(err.detail)})` : ''}`, {
        hint: 'pgmq stores bodies as jsonb, which cannot hold \\u0000 or characters outside the database encoding',
        cause: e,
      });
    case '22003':
      // A value smq passed as integer (vt, qty, limit, delay) that PostgreSQL's int cannot hold.
      return new SmqError('invalid-input', `number out of range: ${message}`, {
        hint: 'pgmq takes whole numbers up to 2147483647 for --vt, --qty, --limit and --delay',
        cause: e,
      });
  }
  if (/invalid queue name/i.test(message) && (err.code === '22023' || err.code === 'P0001')) {
    return new SmqError('invalid-queue-name', message, { hint: "pgmq names are at most 47 bytes, without $ ; -- or '", cause: e });
  }
  // pgmq's (and the compat schema's) refusal of a topic routing key or binding pattern.
  if (err.code === 'P0001' && /^(routing[_ ]key|pattern)\b/i.test(message)) {
    const hint = /^pattern/i.test(message)
      ? 'a pattern is words of letters, digits, _ and - joined by dots, * standing for one word and # for any number (orders.*.new)'
      : 'a routing key is words of letters, digits, _ and - joined by dots, without * or # (orders.eu.new)';
    return new SmqError('invalid-input', message, { hint, cause: e });
  }
  if (ctx.queue !== undefined && (err.code === '42P01' || /queue .* does not exist|relation .* does not exist/i.test(message))) {
    return queueNotFound(ctx.queue);
  }
  if (err.code === '42883' && /pgmq\./.test(message)) {
    return new SmqError('database', `pgmq function missing: ${message}`, {
      hint: "run 'smq init' to install pgmq, or upgrade the pgmq extension",
      cause: e,
    });
  }
  const parts = [`database error${err.code ? ` ${err.code}` : ''}: ${message}`];
  if (err.detail) parts.push(`(${clean(err.detail)})`);
  return new SmqError('database', parts.join(' '), { hint: clean(err.hint), cause: e });
}
