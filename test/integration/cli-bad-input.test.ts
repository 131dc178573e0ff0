// Bad input, table-driven, through the built binary: each case must end with the right
// exit code, exactly one line on stderr, no stack trace, no password anywhere, and the
// store exactly as it was.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { ensureBuilt, runCli, type CliResult } from '../helpers/run-cli.js';
import { freePort } from '../helpers/pg-server.js';
import { installSchema } from '../helpers/schema.js';

const WRONG_PASSWORD = 'wrong-Pw_' + randomBytes(3).toString('hex');

interface World {
  /** This file's own database (a clone of the suite's server settings, fresh pgmq schema). */
  readonly url: string;
  readonly password: string;
  readonly port: string;
  readonly user: string;
  readonly host: string;
  readonly db: string;
  /** A seeded SmoothMQ file. */
  readonly sqlite: string;
  readonly dir: string;
  /** A queue with messages, on both stores. */
  readonly queue: string;
  readonly closedPort: number;
  /** Accepts TCP connections and never answers (a hung server or a black-holing proxy). */
  readonly silentPort: number;
  /** Accepts TCP connections and closes them at once, before a byte is exchanged. */
  readonly closingPort: number;
  /** Reads the first packet of the connection's startup, then closes it. */
  readonly startupClosingPort: number;
}

let world: World;
let silent: Server;
let closers: Server[] = [];
let admin: pg.Client;
let dbName: string;

async function pgSnapshot(): Promise<unknown> {
  const c = new pg.Client({ connectionString: world.url });
  await c.connect();
  try {
    const meta = await c.query('SELECT queue_name, is_partitioned, is_unlogged, created_at FROM pgmq.meta ORDER BY queue_name');
    const tables = await c.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
        WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
    );
    const counts: Record<string, number> = {};
    for (const t of tables.rows) {
      if (t.schema === 'pgmq' && !/^[qa]_/.test(t.name)) continue;
      const r = await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${pg.escapeIdentifier(t.schema)}.${pg.escapeIdentifier(t.name)}`);
      counts[`${t.schema}.${t.name}`] = Number(r.rows[0]?.n);
    }
    const messages = await c.query(
      `SELECT msg_id, read_ct, vt, message FROM pgmq.${pg.escapeIdentifier(`q_${world.queue}`)} ORDER BY msg_id`,
    );
    return { meta: meta.rows, tables: tables.rows, counts, messages: messages.rows };
  } finally {
    await c.end();
  }
}

function sqliteSnapshot(path: string): unknown {
  if (!existsSync(path)) return { missing: true };
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    db.defaultSafeIntegers(true);
    const schema = db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all() as { type: string; name: string }[];
    const rows: Record<string, unknown[]> = {};
    for (const t of schema.filter((s) => s.type === 'table')) {
      rows[t.name] = db.prepare(`SELECT * FROM "${t.name.replace(/"/g, '""')}" ORDER BY 1`).all();
    }
    return JSON.parse(JSON.stringify({ schema, rows }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
  } finally {
    db.close();
  }
}

async function snapshot(): Promise<unknown> {
  return { pg: await pgSnapshot(), sqlite: sqliteSnapshot(world.sqlite) };
}

beforeAll(async () => {
  ensureBuilt();
  const base = new URL(inject('pgUrl'));
  dbName = `smq_cli_bad_${randomBytes(4).toString('hex')}`;
  admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(base);
  url.pathname = `/${dbName}`;
  await installSchema(url.toString());

  const sockets = new Set<Socket>();
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  silent.on('close', () => sockets.forEach((s) => s.destroy()));
  const silentPort = await new Promise<number>((resolve) => {
    silent.listen(0, '127.0.0.1', () => {
      const addr = silent.address();
      resolve(typeof addr === 'object' && addr ? addr.port : 0);
    });
  });

  const listening = (server: Server) =>
    new Promise<number>((resolve) => {
      server.listen(0, '127.0.0.1', () => {
        const addr = server.address();
        resolve(typeof addr === 'object' && addr ? addr.port : 0);
      });
    });
  closers = [
    createServer((socket) => socket.destroy()),
    createServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () => socket.destroy());
    }),
  ];
  const [closingPort, startupClosingPort] = await Promise.all(closers.map(listening));

  const dir = mkdtempSync(join(tmpdir(), 'smq-cli-bad-'));
  const sqlite = join(dir, 'seeded.db');
  const queue = `seeded_${randomBytes(3).toString('hex')}`;
  world = {
    url: url.toString(),
    password: decodeURIComponent(base.password),
    port: base.port,
    user: decodeURIComponent(base.username),
    host: base.hostname,
    db: dbName,
    sqlite,
    dir,
    queue,
    closedPort: await freePort(),
    silentPort,
    closingPort: closingPort!,
    startupClosingPort: startupClosingPort!,
  };
  const must = async (args: string[]) => {
    const r = await runCli(args);
    if (r.code !== 0) throw new Error(`setup failed: smq ${args.join(' ')}: ${r.stderr}`);
  };
  await must(['init', '--sqlite', sqlite]);
  for (const conn of [
    ['--url', world.url],
    ['--sqlite', sqlite],
  ]) {
    await must(['create', queue, ...conn]);
    await must(['send', queue, '{"seed": 1}', ...conn]);
    await must(['send', queue, '{"seed": 2}', ...conn]);
  }
  // A canary the injection attempts name.
  const c = new pg.Client({ connectionString: world.url });
  await c.connect();
  await c.query('CREATE TABLE public.y (x int); INSERT INTO public.y VALUES (1)');
  await c.end();
});

afterAll(async () => {
  silent?.close();
  for (const server of closers) server.close();
  if (world) rmSync(world.dir, { recursive: true, force: true });
  if (admin) {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
});

interface Case {
  readonly name: string;
  readonly args: (w: World) => string[];
  readonly code: 1 | 2 | 3;
  readonly input?: string;
  readonly env?: (w: World) => Record<string, string>;
  /** What the one line must say. */
  readonly says?: RegExp;
  /** Upper bound for the whole process (connection timeouts). */
  readonly withinMs?: number;
  /** Paths that must not exist afterwards. */
  readonly noFile?: (w: World) => string;
}

const pgmq = (w: World) => ['--url', w.url];
const sqlite = (w: World) => ['--sqlite', w.sqlite];
const longName = 'n'.repeat(48);

const cases: Case[] = [
  // An operand left out: which one, and the command's form (not yargs' "Not enough non-option arguments").
  {
    name: 'peek without a queue',
    args: () => ['peek'],
    code: 2,
    says: /^smq: missing <queue>: smq peek <queue> \[options\]: see 'smq peek --help'$/m,
  },
  {
    name: 'a value that is not one of the choices',
    args: (w) => ['peek', w.queue, '--state', 'nope', '--order', 'x', ...sqlite(w)],
    code: 2,
    says: /^smq: --state "nope" is not one of "ready", "inflight", "delayed", "failed", "all"; --order "x" is not one of "oldest", "newest": see 'smq peek --help'$/m,
  },
  {
    name: 'delete without ids',
    args: (w) => ['delete', w.queue, ...sqlite(w)],
    code: 2,
    says: /^smq: missing <ids\.\.>: smq delete <queue> <ids\.\.> \[options\]: see 'smq delete --help'$/m,
  },
  // Queue names that try SQL injection, or that pgmq cannot hold.
  // (Quotes, spaces, emoji and bidi controls are names pgmq accepts: pgmq-names.test.ts.)
  ...['x; drop table y', "x'; drop table y; --", 'a$b', 'a--b', "it's", ''].flatMap((name): Case[] => [
    { name: `pgmq create ${JSON.stringify(name)}`, args: (w) => ['create', name, ...pgmq(w)], code: 2, says: /invalid queue name/ },
    { name: `pgmq send to ${JSON.stringify(name)}`, args: (w) => ['send', name, '{}', ...pgmq(w)], code: 2, says: /invalid queue name/ },
    { name: `pgmq peek ${JSON.stringify(name)}`, args: (w) => ['peek', name, ...pgmq(w)], code: 2, says: /invalid queue name/ },
  ]),
  { name: 'pgmq name over 47 bytes', args: (w) => ['create', longName, ...pgmq(w)], code: 2, says: /47/ },
  { name: 'pgmq name over 47 bytes (multibyte)', args: (w) => ['create', 'é'.repeat(24), ...pgmq(w)], code: 2, says: /47/ },
  {
    name: 'SmoothMQ: an SQL-looking name is just a missing queue',
    args: (w) => ['peek', "x'; DROP TABLE messages; --", ...sqlite(w)],
    code: 3,
  },
  { name: 'SmoothMQ name over 255 characters', args: (w) => ['create', 'n'.repeat(256), ...sqlite(w)], code: 2, says: /255/ },
  { name: 'a control character in a name', args: (w) => ['create', 'a\u001b[2Jb', ...sqlite(w)], code: 2, says: /control/ },
  {
    name: 'pgmq: a name over 47 characters in another script',
    args: (w) => ['peek', 'न'.repeat(48), ...pgmq(w)],
    code: 2,
    says: /48 characters/,
  },
  {
    name: 'SmoothMQ: an attribute named like a type row',
    args: (w) => ['send', w.queue, 'x', '--header', 'a_DataType=1', ...sqlite(w)],
    code: 2,
    says: /_DataType/,
  },
  { name: 'SmoothMQ: --tenant 0', args: (w) => ['queues', '--tenant', '0', ...sqlite(w)], code: 2, says: /--tenant/ },
  { name: 'SmoothMQ: --tenant abc', args: (w) => ['queues', '--tenant', 'abc', ...sqlite(w)], code: 2, says: /--tenant/ },
  {
    name: 'SmoothMQ: --max-retries -2',
    args: (w) => ['create', 'new_q', '--max-retries', '-2', ...sqlite(w)],
    code: 2,
    says: /--max-retries/,
  },
  { name: 'SmoothMQ: --unlogged', args: (w) => ['create', 'new_q', '--unlogged', ...sqlite(w)], code: 2, says: /--unlogged/ },
  {
    name: 'SmoothMQ: --visibility-timeout 1.5s',
    args: (w) => ['create', 'new_q', '--visibility-timeout', '1.5s', ...sqlite(w)],
    code: 2,
    says: /visibility timeout 1\.5.*whole/,
  },
  {
    name: 'SmoothMQ: --visibility-timeout -1',
    args: (w) => ['create', 'new_q', '--visibility-timeout', '-1', ...sqlite(w)],
    code: 2,
    says: /--visibility-timeout/,
  },
  { name: 'pgmq: --visibility-timeout', args: (w) => ['create', 'new_q', '--visibility-timeout', '5', ...pgmq(w)], code: 2 },

  // Missing queue, unknown message.
  ...(['pgmq', 'sqlite'] as const).flatMap((kind): Case[] => {
    const conn = kind === 'pgmq' ? pgmq : sqlite;
    return [
      { name: `${kind}: peek a missing queue`, args: (w) => ['peek', 'no_such_queue', ...conn(w)], code: 3, says: /does not exist/ },
      { name: `${kind}: send to a missing queue`, args: (w) => ['send', 'no_such_queue', '{}', ...conn(w)], code: 3 },
      { name: `${kind}: receive from a missing queue`, args: (w) => ['receive', 'no_such_queue', ...conn(w)], code: 3 },
      { name: `${kind}: drop a missing queue`, args: (w) => ['drop', 'no_such_queue', '--yes', ...conn(w)], code: 3 },
      { name: `${kind}: purge a missing queue`, args: (w) => ['purge', 'no_such_queue', '--yes', ...conn(w)], code: 3 },
      { name: `${kind}: delete an unknown id`, args: (w) => ['delete', w.queue, '999999', '--yes', ...conn(w)], code: 3, says: /999999/ },
      { name: `${kind}: peek an unknown id`, args: (w) => ['peek', w.queue, '--id', '999999', ...conn(w)], code: 3 },
      {
        name: `${kind}: non-numeric id`,
        args: (w) => ['delete', w.queue, 'abc', '--yes', ...conn(w)],
        code: 2,
        says: /invalid message id/,
      },
      { name: `${kind}: negative id`, args: (w) => ['delete', w.queue, '-1', '--yes', ...conn(w)], code: 2 },
      { name: `${kind}: fractional --after`, args: (w) => ['peek', w.queue, '--after', '1.5', ...conn(w)], code: 2 },
      { name: `${kind}: --qty 0`, args: (w) => ['receive', w.queue, '--qty', '0', ...conn(w)], code: 2, says: /--qty/ },
      { name: `${kind}: --qty -2`, args: (w) => ['receive', w.queue, '--qty', '-2', ...conn(w)], code: 2, says: /--qty/ },
      { name: `${kind}: --qty abc`, args: (w) => ['receive', w.queue, '--qty', 'abc', ...conn(w)], code: 2, says: /--qty/ },
      { name: `${kind}: --limit 0`, args: (w) => ['peek', w.queue, '--limit', '0', ...conn(w)], code: 2 },
      { name: `${kind}: --delay -5`, args: (w) => ['send', w.queue, '{}', '--delay', '-5', ...conn(w)], code: 2 },
      { name: `${kind}: --vt 1.5`, args: (w) => ['receive', w.queue, '--vt', '1.5', ...conn(w)], code: 2 },
      // Durations: one parser, one line; a fraction the store cannot keep is refused, not rounded.
      { name: `${kind}: --vt 500ms`, args: (w) => ['receive', w.queue, '--vt', '500ms', ...conn(w)], code: 2, says: /0\.5/ },
      {
        name: `${kind}: --vt abc`,
        args: (w) => ['receive', w.queue, '--vt', 'abc', ...conn(w)],
        code: 2,
        says: /^smq: invalid --vt "abc": give a duration such as 30s, 2m or 1m30s \(a bare number is seconds\)$/m,
      },
      {
        name: `${kind}: --vt given twice`,
        args: (w) => ['receive', w.queue, '--vt', '1', '--vt', '2', ...conn(w)],
        code: 2,
        says: /--vt given more than once/,
      },
      {
        name: `${kind}: --delay 5 minutes`,
        args: (w) => ['send', w.queue, '{}', '--delay', '5 minutes', ...conn(w)],
        code: 2,
        says: /invalid --delay "5 minutes"/,
      },
      {
        name: `${kind}: top --interval 250ms`,
        args: (w) => ['top', '--interval', '250ms', ...conn(w)],
        code: 2,
        says: /--interval must be at least 0\.5s, not "250ms"/,
      },
      {
        name: `${kind}: top --interval soon`,
        args: (w) => ['top', '--interval', 'soon', ...conn(w)],
        code: 2,
        says: /invalid --interval "soon"/,
      },
      { name: `${kind}: --header without =`, args: (w) => ['send', w.queue, '{}', '--header', 'k', ...conn(w)], code: 2 },
      { name: `${kind}: --state bogus`, args: (w) => ['peek', w.queue, '--state', 'bogus', ...conn(w)], code: 2 },
      { name: `${kind}: send with empty stdin`, args: (w) => ['send', w.queue, ...conn(w)], input: '', code: 2 },
      {
        name: `${kind}: send with only blank lines`,
        args: (w) => ['send', w.queue, ...conn(w)],
        input: '\n  \r\n\t\n',
        code: 2,
        says: /no message/,
      },
      {
        name: `${kind}: --header with an empty name`,
        args: (w) => ['send', w.queue, '{}', '--header', '=v', ...conn(w)],
        code: 2,
        says: /--header/,
      },
      {
        name: `${kind}: an id beyond 64 bits`,
        args: (w) => ['peek', w.queue, '--id', '99999999999999999999', ...conn(w)],
        code: 2,
        says: /64-bit/,
      },
      { name: `${kind}: an id in hex`, args: (w) => ['delete', w.queue, '0x10', '--yes', ...conn(w)], code: 2, says: /invalid message id/ },
      { name: `${kind}: --id and --after together`, args: (w) => ['peek', w.queue, '--id', '1', '--after', '1', ...conn(w)], code: 2 },
      { name: `${kind}: --output xml`, args: (w) => ['peek', w.queue, '--output', 'xml', ...conn(w)], code: 2, says: /xml/ },
      {
        name: `${kind}: --json with --output table`,
        args: (w) => ['queues', '--json', '--output', 'table', ...conn(w)],
        code: 2,
        says: /contradict/,
      },
      { name: `${kind}: --qty Infinity`, args: (w) => ['receive', w.queue, '--qty', 'Infinity', ...conn(w)], code: 2, says: /--qty/ },
      // Destructive commands without --yes, stdin not a terminal.
      { name: `${kind}: drop without --yes`, args: (w) => ['drop', w.queue, ...conn(w)], code: 2, says: /--yes/ },
      { name: `${kind}: purge without --yes`, args: (w) => ['purge', w.queue, ...conn(w)], code: 2, says: /--yes/ },
      { name: `${kind}: delete without --yes`, args: (w) => ['delete', w.queue, '1', ...conn(w)], code: 2, says: /--yes/ },
      {
        name: `${kind}: write under --read-only`,
        args: (w) => ['purge', w.queue, '--yes', '--read-only', ...conn(w)],
        code: 2,
        says: /read-only/,
      },
    ];
  }),

  // pgmq bodies are jsonb.
  { name: 'pgmq: body that is not JSON', args: (w) => ['send', w.queue, 'hello', ...pgmq(w)], code: 2, says: /JSON/ },
  { name: 'pgmq: truncated JSON body', args: (w) => ['send', w.queue, '{"a":', ...pgmq(w)], code: 2, says: /JSON/ },
  {
    name: 'pgmq: one bad stdin line sends nothing',
    args: (w) => ['send', w.queue, ...pgmq(w)],
    input: '{"ok":1}\nnope\n{"ok":2}\n',
    code: 2,
    says: /line 2/,
  },
  // jsonb holds text: no \u0000, no lone surrogates.
  {
    name: 'pgmq: a body with \\u0000',
    args: (w) => ['send', w.queue, '"a\\u0000b"', ...pgmq(w)],
    code: 2,
    says: /invalid message body.*\\u0000/,
  },
  {
    name: 'pgmq: a body with a lone surrogate',
    args: (w) => ['send', w.queue, '"\\ud800"', ...pgmq(w)],
    code: 2,
    says: /invalid message body.*surrogate/,
  },
  {
    name: 'pgmq: a stdin line with \\u0000 sends nothing',
    args: (w) => ['send', w.queue, ...pgmq(w)],
    input: '{"ok":1}\n"\\u0000"\n',
    code: 2,
    says: /\\u0000/,
  },
  // Numbers PostgreSQL's integer cannot hold: refused as input, not as a database failure.
  {
    name: 'pgmq: --vt beyond 32 bits',
    args: (w) => ['receive', w.queue, '--vt', '99999999999', ...pgmq(w)],
    code: 2,
    says: /invalid visibility timeout 99999999999: give a whole number of seconds up to 2147483647/,
  },
  {
    name: 'pgmq: --qty beyond 32 bits',
    args: (w) => ['receive', w.queue, '--qty', '3000000000', ...pgmq(w)],
    code: 2,
    says: /up to 2147483647/,
  },
  {
    name: 'pgmq: --limit beyond 32 bits',
    args: (w) => ['peek', w.queue, '--limit', '3000000000', ...pgmq(w)],
    code: 2,
    says: /up to 2147483647/,
  },
  {
    name: 'pgmq: --delay beyond 32 bits',
    args: (w) => ['send', w.queue, '{}', '--delay', '3000000000', ...pgmq(w)],
    code: 2,
    says: /up to 2147483647/,
  },
  { name: 'pgmq: --state failed', args: (w) => ['peek', w.queue, '--state', 'failed', ...pgmq(w)], code: 2 },
  { name: 'pgmq: --tenant', args: (w) => ['queues', '--tenant', '2', ...pgmq(w)], code: 2 },

  // Connections.
  { name: 'no database given', args: () => ['queues'], code: 2, says: /no database given: pass --url postgres:\/\/… or --sqlite PATH/ },
  {
    name: 'malformed URL (port)',
    args: (w) => ['queues', '--url', `postgres://${w.user}:${encodeURIComponent(w.password)}@${w.host}:notaport/${w.db}`],
    code: 2,
    says: /malformed URL/,
  },
  {
    name: 'unsupported URL scheme',
    args: (w) => ['queues', '--url', `mysql://root:${w.password}@localhost/db`],
    code: 2,
    says: /unsupported URL/,
  },
  { name: '--url and --sqlite together', args: (w) => ['queues', ...pgmq(w), ...sqlite(w)], code: 2 },
  // libpq takes whole seconds: anything else is refused before connecting, not ignored.
  ...['abc', '1.5', '10s'].map((value): Case => ({
    name: `connect_timeout=${value} in the URL`,
    args: (w) => ['purge', w.queue, '--yes', '--url', `${w.url}${w.url.includes('?') ? '&' : '?'}connect_timeout=${value}`],
    code: 2,
    says: /connect_timeout/,
  })),
  {
    name: 'PGCONNECT_TIMEOUT=abc',
    args: (w) => ['purge', w.queue, '--yes'],
    env: (w) => ({ PGHOST: w.host, PGPORT: w.port, PGUSER: w.user, PGDATABASE: w.db, PGPASSWORD: w.password, PGCONNECT_TIMEOUT: 'abc' }),
    code: 2,
    says: /connect_timeout/,
  },
  {
    name: 'unreachable server (closed port)',
    args: (w) => ['queues', '--url', `postgres://${w.user}:${encodeURIComponent(w.password)}@127.0.0.1:${w.closedPort}/${w.db}`],
    code: 1,
    says: /cannot connect/,
    withinMs: 5000,
  },
  {
    // The connect timeout is 5 s; the rest is Node starting and exiting.
    name: 'a server that accepts but never answers',
    args: (w) => ['queues', '--url', `postgres://${w.user}:${encodeURIComponent(w.password)}@127.0.0.1:${w.silentPort}/${w.db}`],
    code: 1,
    says: /cannot connect.*timeout/,
    withinMs: 8000,
  },
  {
    // Never connected: not "lost the connection".
    name: 'a server that accepts and closes at once',
    args: (w) => ['queues', '--url', `postgres://${w.user}:${encodeURIComponent(w.password)}@127.0.0.1:${w.closingPort}/${w.db}`],
    code: 1,
    says: /^smq: cannot connect to postgres:\/\/\S+: the server closed the connection before it was made/,
    withinMs: 5000,
  },
  {
    name: 'a server that closes during the startup',
    args: (w) => ['queues', '--url', `postgres://${w.user}:${encodeURIComponent(w.password)}@127.0.0.1:${w.startupClosingPort}/${w.db}`],
    code: 1,
    says: /^smq: cannot connect to postgres:\/\/\S+: the server closed the connection before it was made/,
    withinMs: 5000,
  },
  {
    name: 'wrong password',
    args: (w) => ['queues', '--url', `postgres://${w.user}:${WRONG_PASSWORD}@${w.host}:${w.port}/${w.db}`],
    code: 1,
    says: /authentication failed|password/,
  },
  {
    name: 'wrong password in PGPASSWORD',
    args: () => ['peek', 'anything'],
    env: (w) => ({ PGHOST: w.host, PGPORT: w.port, PGUSER: w.user, PGDATABASE: w.db, PGPASSWORD: WRONG_PASSWORD }),
    code: 1,
  },
  {
    name: 'wrong password via DATABASE_URL',
    args: () => ['queues'],
    env: (w) => ({ DATABASE_URL: `postgres://${w.user}:${WRONG_PASSWORD}@${w.host}:${w.port}/${w.db}` }),
    code: 1,
  },
  {
    name: 'init on a wrong password',
    args: (w) => ['init', '--url', `postgres://${w.user}:${WRONG_PASSWORD}@${w.host}:${w.port}/${w.db}`],
    code: 1,
  },
  { name: 'database that does not exist', args: (w) => ['queues', '--url', world.url.replace(w.db, `${w.db}_nope`)], code: 1 },
  { name: 'a usage error next to a password', args: (w) => ['bogus', ...pgmq(w)], code: 2 },
  { name: 'an unknown command with --help', args: (w) => ['bogus', '--help', ...pgmq(w)], code: 2, says: /unknown command: bogus/ },
  { name: 'an unknown option next to a password', args: (w) => ['queues', '--frobnicate', ...pgmq(w)], code: 2 },
  // After '--' nothing is an option's value: the option right before it has none.
  ...[pgmq, sqlite].flatMap((conn): Case[] => [
    {
      name: `${conn === pgmq ? 'pgmq' : 'sqlite'}: send --delay -- queue body`,
      args: (w) => ['send', ...conn(w), '--delay', '--', w.queue, '{}'],
      code: 2,
      says: /^smq: --delay needs a value: see 'smq send --help'$/m,
    },
    {
      name: `${conn === pgmq ? 'pgmq' : 'sqlite'}: receive --qty -- queue`,
      args: (w) => ['receive', ...conn(w), '--qty', '--', w.queue],
      code: 2,
      says: /^smq: --qty needs a value/,
    },
    {
      name: `${conn === pgmq ? 'pgmq' : 'sqlite'}: --header -- queue body`,
      args: (w) => ['send', ...conn(w), '--header', '--', w.queue, 'x=y'],
      code: 2,
      says: /^smq: --header needs a value/,
    },
  ]),

  // A word starting with '-' after an option that takes a value is no value (a getopt-style
  // bundle of flags to yargs): `--queue -dash` once read as -d -a -s -h and showed the help,
  // exit 0; a CI gate `--max-regression -h` passed without comparing.
  ...(
    [
      [
        'tester --queue -dash',
        (w) => ['tester', ...sqlite(w), '--messages', '5', '--queue', '-dash'],
        /^smq: --queue needs a value: see 'smq tester --help'$/m,
      ],
      ['tester --run-id -hx', (w) => ['tester', ...sqlite(w), '--messages', '5', '--run-id', '-hx'], /^smq: --run-id needs a value/],
      ['tester --html --help', (w) => ['tester', ...sqlite(w), '--messages', '5', '--html', '--help'], /^smq: --html needs a value/],
      [
        'tester --queue --version',
        (w) => ['tester', ...sqlite(w), '--messages', '5', '--queue', '--version'],
        /^smq: --queue needs a value/,
      ],
      [
        'tester compare --max-regression -h',
        () => ['tester', 'compare', 'a.json', 'c.json', '--max-regression', '-h'],
        /^smq: --max-regression needs a value: see 'smq tester compare --help'$/m,
      ],
      ['peek --limit -h', (w) => ['peek', w.queue, '--limit', '-h', ...sqlite(w)], /^smq: --limit needs a value: see 'smq peek --help'$/m],
      ['peek -n -h', (w) => ['peek', w.queue, '-n', '-h', ...sqlite(w)], /^smq: -n needs a value/],
      ['drop --timeout -h', (w) => ['drop', w.queue, '--yes', '--timeout', '-h', ...sqlite(w)], /^smq: --timeout needs a value/],
      ['--sqlite -h before the command', () => ['--sqlite', '-h', 'queues'], /^smq: --sqlite needs a value/],
    ] satisfies [string, (w: World) => string[], RegExp][]
  ).map(([name, args, says]): Case => ({ name: `a word like -h as a value: ${name}`, args, code: 2, says })),

  // SQLite files.
  {
    name: 'a file that is not SQLite',
    args: (w) => ['queues', '--sqlite', join(w.dir, 'not-sqlite.txt')],
    code: 1,
    says: /not an SQLite database/,
  },
  {
    name: 'an SQLite file that is not SmoothMQ',
    args: (w) => ['queues', '--sqlite', join(w.dir, 'other.db')],
    code: 1,
    says: /not a SmoothMQ file/,
  },
  { name: 'a directory instead of a file', args: (w) => ['queues', '--sqlite', w.dir], code: 1 },
  // /dev/null was "an empty SQLite database" with the advice to run smq init on it; init failed with an I/O error.
  ...['queues', 'init'].map((command): Case => ({
    name: `a device instead of a file (${command})`,
    args: () => [command, '--sqlite', '/dev/null'],
    code: 1,
    says: /^smq: \/dev\/null is not a regular file \(a device, pipe or socket\), not an SQLite file: give the path of a SmoothMQ file$/m,
  })),
  { name: 'an empty --sqlite path', args: () => ['queues', '--sqlite', ''], code: 2, says: /--sqlite/ },
  {
    name: 'a zero-byte file',
    args: (w) => ['queues', '--sqlite', join(w.dir, 'zero.db')],
    code: 1,
    says: /empty SQLite database, not a SmoothMQ file.*smq init/,
  },
  {
    name: 'a zero-byte file, to be written',
    args: (w) => ['send', 'q', 'x', '--sqlite', join(w.dir, 'zero.db')],
    code: 1,
    says: /not a SmoothMQ file/,
  },
  { name: 'a malformed postgres URL (bracket)', args: () => ['queues', '--url', 'postgresql://[::1'], code: 2, says: /malformed URL/ },
  { name: 'an empty sqlite: URL', args: () => ['queues', '--url', 'sqlite:'], code: 2, says: /malformed URL/ },
  {
    name: 'a missing file',
    args: (w) => ['peek', 'q', '--sqlite', join(w.dir, 'missing.db')],
    code: 1,
    says: /does not exist.*smq init/,
    noFile: (w) => join(w.dir, 'missing.db'),
  },
  {
    name: 'sqlite: URL to a missing file',
    args: (w) => ['queues', '--url', `sqlite:${join(w.dir, 'missing2.db')}`],
    code: 1,
    noFile: (w) => join(w.dir, 'missing2.db'),
  },
  {
    name: 'init in a missing directory',
    args: (w) => ['init', '--sqlite', join(w.dir, 'no-such-dir', 'x.db')],
    code: 1,
    says: /does not exist/,
    noFile: (w) => join(w.dir, 'no-such-dir'),
  },
  {
    name: 'init where a file stands in for the directory',
    args: (w) => ['init', '--sqlite', join(w.dir, 'not-sqlite.txt', 'x.db')],
    code: 1,
  },
];

describe('bad input', () => {
  beforeAll(() => {
    writeFileSync(join(world.dir, 'not-sqlite.txt'), 'just some text, definitely not a database\n'.repeat(20));
    writeFileSync(join(world.dir, 'zero.db'), '');
    const other = new Database(join(world.dir, 'other.db'));
    other.exec("CREATE TABLE notes (id integer primary key, body text); INSERT INTO notes (body) VALUES ('keep me')");
    other.close();
  });

  // Concurrently (maxConcurrency in vitest.config.ts): each case is one smq process, and none
  // changes anything (each checks that), so they cannot disturb each other's checks.
  test.concurrent.for(cases)('$name', async (c, { expect }) => {
    const before = await snapshot();
    const notSqlite = readFileSync(join(world.dir, 'not-sqlite.txt'));
    const other = sqliteSnapshot(join(world.dir, 'other.db'));
    const zero = readFileSync(join(world.dir, 'zero.db'));

    const r: CliResult = await runCli(c.args(world), {
      ...(c.input === undefined ? {} : { input: c.input }),
      ...(c.env ? { env: c.env(world) } : {}),
    });

    const output = r.stdout + r.stderr;
    expect(r.code, `exit code; stderr: ${r.stderr}`).toBe(c.code);
    expect(r.stderr.endsWith('\n')).toBe(true);
    expect(r.stderr.trimEnd().split('\n'), 'exactly one line on stderr').toHaveLength(1);
    expect(r.stderr).toMatch(/^smq: \S/);
    expect(output).not.toContain('    at ');
    expect(output).not.toContain(world.password);
    expect(output).not.toContain(encodeURIComponent(world.password));
    expect(output).not.toContain(WRONG_PASSWORD);
    expect(r.stdout).toBe('');
    if (c.says) expect(r.stderr).toMatch(c.says);
    if (c.withinMs !== undefined) expect(r.ms).toBeLessThan(c.withinMs);
    if (c.noFile) expect(existsSync(c.noFile(world))).toBe(false);

    expect(await snapshot()).toEqual(before);
    expect(readFileSync(join(world.dir, 'not-sqlite.txt')).equals(notSqlite)).toBe(true);
    expect(sqliteSnapshot(join(world.dir, 'other.db'))).toEqual(other);
    expect(readFileSync(join(world.dir, 'zero.db')).equals(zero), 'the zero-byte file is left alone').toBe(true);
  });

  // Root may write anywhere, so the permission case only means something for other users.
  test.skipIf(process.getuid?.() === 0)('init in a directory without write permission', async () => {
    const locked = join(world.dir, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o500);
    try {
      const r = await runCli(['init', '--sqlite', join(locked, 'x.db')]);
      expect(r.code).toBe(1);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/permission/);
      expect(existsSync(join(locked, 'x.db'))).toBe(false);
    } finally {
      chmodSync(locked, 0o700);
    }
  });

  test("-h as a word of its own still shows the help; the = form gives an option a value starting with '-'", async () => {
    const help = await runCli(['peek', world.queue, '-h', '--sqlite', world.sqlite]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^smq peek <queue>\n/);
    const limit = await runCli(['peek', world.queue, '--limit=-h', '--sqlite', world.sqlite]);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toBe('smq: --limit must be a whole number of 1 or more: for example --limit 20\n');
    const runId = await runCli(['tester', '--sqlite', world.sqlite, '--messages', '5', '--run-id=-hx']);
    expect(runId.code).toBe(2);
    expect(runId.stderr).toMatch(/^smq: --run-id must be 4 to 64 letters/);
  });

  // kubectl's -ojson: a short option's value may follow it in the same word (getopt does this
  // too). yargs read -ojson as the flags -o -j -s -o -n ('--output given more than once').
  test('a short option with its value attached: -ojson, -otable, -n1', async () => {
    const json = await runCli(['peek', world.queue, '-ojson', '--sqlite', world.sqlite]);
    expect(json.stderr).toBe('');
    expect(Array.isArray(JSON.parse(json.stdout))).toBe(true);
    const table = await runCli(['peek', world.queue, '-otable', '-n1', '--sqlite', world.sqlite]);
    expect(table.stderr).toBe('');
    expect(table.stdout).toMatch(/^ +ID +STATE/);
    expect(table.stdout.trimEnd().split('\n')).toHaveLength(2);
    const bad = await runCli(['peek', world.queue, '-oxml', '--sqlite', world.sqlite]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^smq: .*"xml"/);
  });

  // A lone '-': yargs made it '' ('invalid queue name ""'), and `smq send q -` sent an empty
  // body on SQLite. As an operand it is the word '-'; as send's body it means stdin (as in cat).
  test("'-' is a word of its own; send's body '-' reads stdin", async () => {
    const db = join(world.dir, 'dash.db');
    expect((await runCli(['init', '--sqlite', db])).code).toBe(0);
    expect((await runCli(['create', 'dq', '--sqlite', db])).code).toBe(0);
    const sent = await runCli(['send', 'dq', '-', '--sqlite', db], { input: 'one\ntwo\n' });
    expect(sent.stderr).toBe('');
    const bodies = (await runCli(['peek', 'dq', '--json', '--sqlite', db])).stdout;
    expect((JSON.parse(bodies) as { body: string }[]).map((m) => m.body)).toEqual(['one', 'two']);
    const peek = await runCli(['peek', '-', ...['--url', world.url]]);
    expect(peek.stderr).toMatch(/^smq: queue "-" does not exist/); // was: invalid queue name "": it is empty
    expect(peek.code).toBe(3);
  });

  test('SMQ_DEBUG=1 adds the stack, still without the password', async () => {
    const r = await runCli(['queues', '--url', `postgres://${world.user}:${WRONG_PASSWORD}@${world.host}:${world.port}/${world.db}`], {
      env: { SMQ_DEBUG: '1' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('    at ');
    expect(r.stderr).not.toContain(WRONG_PASSWORD);
  });
});
