// Every connection smq opens to PostgreSQL, opened as libpq opens one: the target's hosts in
// order (connect_timeout for each), TLS as sslmode says, and, unless target_session_attrs is
// `any`, a check on that same connection (pg_is_in_recovery(), transaction_read_only) that
// closes it and goes on to the next host when the server does not suit; prefer-standby makes
// a second pass that takes any server. A pool's new connections and a tester worker's
// reconnects all come here, so after a failover they find the new primary.
import pg from 'pg';
import { SmqError } from '../../errors.js';
import { redactSecrets } from '../secrets.js';
import { clientConfigOf, type ClientOptions } from './client-config.js';
import type { PgConnection, PgHost } from './connection.js';
import { closedWords, networkReason, whileConnecting, type PgErrorContext } from './errors.js';
import { mismatch, shuffled, suits, type ServerRole, type TargetSessionAttrs } from './hosts.js';
import { isNetworkFailure, tlsAttempts, type TlsChoice } from './tls.js';

export interface Connected {
  readonly client: pg.Client;
  readonly host: PgHost;
}

export interface ConnectorOptions extends ClientOptions {
  /** smq set default_transaction_read_only itself (--read-only): read-write then judges the server only. */
  readonly ownReadOnly?: boolean;
}

const ROLE_SQL = "SELECT pg_is_in_recovery() AS in_recovery, current_setting('transaction_read_only') = 'on' AS read_only";

const WANTED: Readonly<Record<TargetSessionAttrs, string>> = {
  any: 'reachable',
  'read-write': 'read-write',
  'read-only': 'read-only',
  primary: 'a primary',
  standby: 'a standby',
  'prefer-standby': 'reachable',
};

/** A server that answered but does not suit target_session_attrs. */
class Mismatch extends Error {}

export const showHost = (h: { host: string; port: number }): string => `${h.host.includes(':') ? `[${h.host}]` : h.host}:${h.port}`;

export class Connector {
  /** The host the latest connection went to. */
  current: PgHost | undefined;
  /** The TLS setting that worked, per host (sslmode allow and prefer have two to try). */
  private readonly tls = new Map<string, TlsChoice>();

  constructor(
    readonly conn: PgConnection,
    private readonly ctx: PgErrorContext,
    readonly options: ConnectorOptions,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  get multiHost(): boolean {
    return this.conn.hosts.length > 1;
  }

  /** A connected client on the first host that suits; `extra` goes into its config (query_timeout). */
  async connect(extra: pg.ClientConfig = {}): Promise<Connected> {
    const attrs = this.conn.targetSessionAttrs;
    const failures: { host: PgHost; error: unknown }[] = [];
    const passes: TargetSessionAttrs[] = attrs === 'prefer-standby' ? ['prefer-standby', 'any'] : [attrs];
    for (const want of passes) {
      for (const host of this.conn.loadBalance ? shuffled(this.conn.hosts) : this.conn.hosts) {
        let client: pg.Client;
        try {
          client = await this.open(host, extra);
          if (want === 'any' || suits(want, await this.roleOf(client))) {
            this.current = host;
            return { client, host };
          }
        } catch (error) {
          failures.push({ host, error });
          continue;
        }
        void client.end().catch(() => undefined);
        failures.push({ host, error: new Mismatch(mismatch(want)) });
      }
    }
    throw this.failure(failures);
  }

  /** A pooler refused the preferred settings (ClientOptions.preferredSettings): connections go without them. */
  private preferredRefused = false;

  /** One host: the TLS settings sslmode allows, in order, until one connects (libpq's allow and prefer). */
  private async open(host: PgHost, extra: pg.ClientConfig): Promise<pg.Client> {
    const key = showHost(host);
    const known = this.tls.get(key);
    let failure: unknown;
    for (const ssl of known === undefined ? tlsAttempts(this.conn, this.env) : [known]) {
      try {
        const client = await this.openWith(host, ssl, extra);
        this.tls.set(key, ssl);
        return client;
      } catch (e) {
        failure = whileConnecting(e);
        this.tls.delete(key);
        if (isNetworkFailure(e)) break;
      }
    }
    throw failure;
  }

  /**
   * One TLS setting on one host. A pooler that refuses a setting smq only prefers gets one
   * more connection without the preferred settings, and so do all later ones: the second
   * turn has none to send, so it returns or throws (two turns at most). The server read
   * the startup message, so this TLS setting got that far: it is the one tried again (the
   * recursion this replaces began the host's TLS settings anew, to the same end).
   */
  private async openWith(host: PgHost, ssl: TlsChoice, extra: pg.ClientConfig): Promise<pg.Client> {
    for (;;) {
      const preferred = !this.preferredRefused && (this.options.preferredSettings?.length ?? 0) > 0;
      const options = preferred ? this.options : { ...this.options, preferredSettings: [] };
      const client = new pg.Client({ ...clientConfigOf(this.conn, ssl, options, host), ...extra });
      // Errors of an idle connection reach its user through its next call (or its pool's listener).
      client.on('error', () => undefined);
      try {
        await client.connect();
        return client;
      } catch (e) {
        void client.end().catch(() => undefined);
        const others = [this.conn.params['options'], ...(this.options.settings ?? [])];
        if (!preferred || !refusesPreferredSettings(e, this.options.preferredSettings ?? [], others, this.conn)) throw e;
        this.preferredRefused = true;
      }
    }
  }

  /** libpq's check, on the connection itself; a server that does not answer within the connect timeout fails it. */
  private async roleOf(client: pg.Client): Promise<ServerRole> {
    const ms = this.conn.connectTimeoutMs ?? this.options.connectTimeoutMs;
    const timer = setTimeout(() => client.connection.stream.destroy(new Error('timeout expired')), ms);
    try {
      const row = (await client.query<{ in_recovery: boolean; read_only: boolean }>(ROLE_SQL)).rows[0]!;
      return { inRecovery: row.in_recovery, readOnly: this.options.ownReadOnly ? row.in_recovery : row.read_only };
    } catch (e) {
      void client.end().catch(() => undefined);
      throw whileConnecting(e);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One host that failed to connect: its own error, as node-postgres gave it (errors.ts maps it). Else one line naming each. */
  private failure(failures: readonly { host: PgHost; error: unknown }[]): unknown {
    const only = failures[0];
    if (failures.length === 1 && only && !(only.error instanceof Mismatch)) return only.error;
    const reason = (e: unknown, host: PgHost) => {
      const err = e as { code?: string; message?: string };
      // Nothing answered: why, in words (connection refused, not found); else what the server or driver said.
      if (err?.code && isNetworkFailure(e)) return redactSecrets(networkReason(e, host.host) ?? err.code, this.ctx.secrets);
      // Closed, reset or broken while connecting: the words one host gets (errors.ts).
      const closed = closedWords(e, 'the server closed the connection before it was made');
      if (closed !== undefined) return closed;
      const text = redactSecrets(err?.message ?? String(e), this.ctx.secrets).replace(/\s+/g, ' ');
      return err?.code && !text.includes(err.code) ? `${err.code} ${text}` : text;
    };
    const attrs = this.conn.targetSessionAttrs;
    const each = failures.map((f) => `${showHost(f.host)}: ${reason(f.error, f.host)}`).join('; ');
    const hint =
      attrs === 'any' || attrs === 'prefer-standby'
        ? 'check --url and that the servers are running'
        : `none is ${WANTED[attrs]} (target_session_attrs=${attrs}): check the hosts, or wait for the failover to finish`;
    return new SmqError('connection', `cannot connect to ${this.ctx.location}: ${each}`, { hint, cause: failures.at(-1)?.error });
  }
}

/**
 * SQLSTATE classes that say what failed, and it is not a startup parameter: the password or
 * role (28), the database (3D), too many connections (53), a server starting or stopping (57).
 */
const NOT_A_PARAMETER = ['28', '3D', '53', '57'];

/** The parameters `-c name=value` options set (`--name=value` is the same, as in postgres). */
function parametersOf(options: readonly (string | undefined)[]): string[] {
  return options.flatMap((o) => [...(o ?? '').matchAll(/(?:-c\s*|--)([A-Za-z_][\w.-]*)=/g)].map((m) => m[1]!.replace(/-/g, '_')));
}

/** `name` in `text` as a word of its own, in any case. */
const names = (text: string, name: string) => new RegExp(`(?<![\\w.])${name.replace(/\./g, '\\.')}(?![\\w]|\\.\\w)`, 'i').test(text);

/**
 * Whether a server refused the connection over one of smq's preferred settings. Poolers say
 * so in different ways: PgBouncer with 08P01 "unsupported startup parameter (in options):
 * statement_timeout", RDS Proxy with "Feature not supported: RDS Proxy currently doesn't
 * support command-line options" (the `options` startup parameter they travel in), PostgreSQL
 * itself with 42704 or 22023 naming the parameter. So what counts is what the refusal names,
 * not its code: an error the server sent in answer to the startup (every error of connect()
 * is one: it ends at ReadyForQuery) whose message names a preferred setting's parameter, or
 * names `options` but none of the other parameters in them (`others`: the URL's options,
 * smq's required settings; a refusal of those is not answered by leaving out smq's).
 * The user and database names are taken out of the message first (a role called "options"
 * is not a refusal of them), and errors whose class says what failed instead (a bad
 * password, a missing database) never count.
 */
export function refusesPreferredSettings(
  e: unknown,
  preferred: readonly string[],
  others: readonly (string | undefined)[],
  conn: Pick<PgConnection, 'user' | 'database'>,
): boolean {
  if (!(e instanceof pg.DatabaseError) || typeof e.code !== 'string') return false;
  if (NOT_A_PARAMETER.some((c) => e.code!.startsWith(c))) return false;
  let text = String(e.message);
  // As PostgreSQL quotes them (role "x", database "x"); bare, a one-letter name would cut words.
  for (const name of [conn.user, conn.database]) if (name) text = text.split(`"${name}"`).join('""');
  if (parametersOf(preferred).some((p) => names(text, p))) return true;
  return names(text, 'options') && !parametersOf(others).some((p) => names(text, p));
}
