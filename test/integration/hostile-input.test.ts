// Hostile and malformed input, end to end through the built binary (and, for injection,
// through the backends and the SQL they build): bytes that are not UTF-8, 1 MB bodies,
// terminal escape sequences, Unicode queue names, SQL injection through every value and
// name smq passes to a database, and passwords that must never be shown.
//
// Output checks look at the raw bytes smq writes: no ESC, BEL, CR or other C0 control
// (newline aside), no DEL, no C1 control, no bidi override or isolate may reach stdout or
// stderr, on a pipe or on a real terminal (a pty made by script(1)).
import { spawn, spawnSync } from 'node:child_process';
import { isUtf8 } from 'node:buffer';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { BIN, REPO, cleanEnv, ensureBuilt, ndjson } from '../helpers/run-cli.js';
import { freePort } from '../helpers/pg-server.js';
import { installSchema } from '../helpers/schema.js';
import { openBackend, type Backend } from '../../src/backends/index.js';
import * as pgSql from '../../src/backends/pgmq/sql.js';
import { SmqError } from '../../src/errors.js';

type Kind = 'pgmq' | 'sqlite';
const KINDS: Kind[] = ['pgmq', 'sqlite'];

// ---- running smq and looking at its bytes -------------------------------------------------

interface RawResult {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly ms: number;
}

interface RawOptions {
  readonly input?: string | Buffer;
  readonly env?: Record<string, string | undefined>;
  /** Run on a real terminal of this many columns (stdout and stderr both go to it). */
  readonly ttyColumns?: number;
  readonly timeoutMs?: number;
}

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
/** Appended to the name of every test that needs a real terminal, so a skip says why. */
const PTY = '(on a pty; skipped where util-linux script(1), which makes it, is missing)';
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function runRaw(args: readonly string[], options: RawOptions = {}): Promise<RawResult> {
  const started = performance.now();
  const [file, argv] =
    options.ttyColumns === undefined
      ? [process.execPath, [BIN, ...args]]
      : [
          'script',
          [
            '-qec',
            // -onlcr: the pty must not turn \n into \r\n, so any CR seen is smq's own.
            `stty cols ${options.ttyColumns} rows 50 -onlcr; exec ${[process.execPath, BIN, ...args].map(shellQuote).join(' ')}`,
            '/dev/null',
          ],
        ];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv as string[], { cwd: REPO, env: cleanEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err), ms: performance.now() - started });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/**
 * The bytes a terminal would act on: C0 (newline aside), DEL, C1, bidi controls (U+061C
 * too), line/paragraph separators; and the zero-width characters that hide a difference.
 */
function unsafeBytes(buf: Buffer): string[] {
  const found: string[] = [];
  const at = (what: string, i: number) =>
    found.push(`${what} at byte ${i}: ${JSON.stringify(buf.subarray(Math.max(0, i - 12), i + 12).toString('latin1'))}`);
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]!;
    const b1 = buf[i + 1];
    const b2 = buf[i + 2];
    if (b === 0x0a) continue;
    if (b < 0x20 || b === 0x7f) at(`control 0x${b.toString(16).padStart(2, '0')}`, i);
    else if (b === 0xc2 && b1 !== undefined && b1 >= 0x80 && b1 <= 0x9f) at(`C1 U+00${b1.toString(16)}`, i);
    else if (b === 0xe2 && b1 === 0x80 && b2 !== undefined && (b2 === 0x8e || b2 === 0x8f || (b2 >= 0xaa && b2 <= 0xae)))
      at('bidi control', i);
    else if (b === 0xe2 && b1 === 0x81 && b2 !== undefined && b2 >= 0xa6 && b2 <= 0xa9) at('bidi isolate', i);
    else if (b === 0xd8 && b1 === 0x9c) at('Arabic letter mark U+061C', i);
    else if (b === 0xe2 && b1 === 0x80 && (b2 === 0xa8 || b2 === 0xa9)) at('line/paragraph separator', i);
    else if (b === 0xe2 && b1 === 0x80 && b2 !== undefined && b2 >= 0x8b && b2 <= 0x8d) at('zero-width space or joiner', i);
    else if ((b === 0xe2 && b1 === 0x81 && b2 === 0xa0) || (b === 0xef && b1 === 0xbb && b2 === 0xbf)) at('word joiner or BOM', i);
  }
  return found;
}

function expectSafe(r: RawResult, what: string): void {
  expect(isUtf8(r.stdout), `${what}: stdout is UTF-8`).toBe(true);
  expect(isUtf8(r.stderr), `${what}: stderr is UTF-8`).toBe(true);
  expect(unsafeBytes(r.stdout), `${what}: stdout`).toEqual([]);
  expect(unsafeBytes(r.stderr), `${what}: stderr`).toEqual([]);
}

function ok(r: RawResult, what: string): RawResult {
  expect(r.stderr.toString(), `${what}: stderr`).toBe('');
  expect(r.code, `${what}: exit code`).toBe(0);
  return r;
}

const lines = (b: Buffer) =>
  b
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '');

/** Display columns, the way the table counts them (wide CJK and emoji as two). */
function columnsOf(line: string): number {
  let w = 0;
  for (const ch of line) {
    if (/^(?:\p{Mn}|\p{Me}|[\u200b-\u200d\u2060]|[\ufe00-\ufe0f])$/u.test(ch)) continue;
    w +=
      /^[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]$/u.test(
        ch,
      )
        ? 2
        : 1;
  }
  return w;
}

/** Runs fns with at most n at a time (each one smq process at a time). */
async function inParallel<T>(n: number, items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

// ---- the stores ---------------------------------------------------------------------------

let tmp: string;
let admin: pg.Client;
let dbName: string;
/** This file's own database (fresh compat schema), so snapshots see only what it does. */
let pgUrl: string;
let sqlitePath: string;
const CANARY = 'canary';

function connArgs(kind: Kind): string[] {
  return kind === 'pgmq' ? ['--url', pgUrl] : ['--sqlite', sqlitePath];
}

async function withPg<T>(fn: (c: pg.Client) => Promise<T>, url = pgUrl): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const jsonSafe = (v: unknown) => JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))) as unknown;

/** Everything an injection could touch: relations, pgmq.meta, functions, roles, row counts. */
async function pgSnapshot(): Promise<unknown> {
  return withPg(async (c) => {
    const relations = await c.query<{ schema: string; name: string; kind: string }>(
      `SELECT n.nspname AS schema, c.relname AS name, c.relkind::text AS kind FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') ORDER BY 1, 2`,
    );
    const meta = await c.query('SELECT queue_name, is_partitioned, is_unlogged, created_at FROM pgmq.meta ORDER BY queue_name');
    const functions = await c.query(
      `SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args, md5(p.prosrc) AS src FROM pg_proc p
        WHERE p.pronamespace = 'pgmq'::regnamespace ORDER BY 1, 2`,
    );
    const roles = await c.query('SELECT rolname, rolsuper FROM pg_roles ORDER BY 1');
    const schemas = await c.query('SELECT nspname FROM pg_namespace ORDER BY 1');
    const counts: Record<string, number> = {};
    for (const t of relations.rows.filter((r) => r.kind === 'r' && !r.name.startsWith('meta') && r.name !== 'smq_compat')) {
      const n = await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${pg.escapeIdentifier(t.schema)}.${pg.escapeIdentifier(t.name)}`);
      counts[`${t.schema}.${t.name}`] = Number(n.rows[0]?.n);
    }
    const canary = await c.query(`SELECT msg_id, read_ct, vt, message, headers FROM pgmq.q_${CANARY} ORDER BY msg_id`);
    const y = await c.query('SELECT x FROM public.y ORDER BY x');
    return jsonSafe({
      relations: relations.rows,
      meta: meta.rows,
      functions: functions.rows,
      roles: roles.rows,
      schemas: schemas.rows,
      counts,
      canary: canary.rows,
      y: y.rows,
    });
  });
}

function sqliteSnapshot(): unknown {
  const db = new Database(sqlitePath, { readonly: true, fileMustExist: true });
  try {
    db.defaultSafeIntegers(true);
    const master = db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all() as {
      type: string;
      name: string;
    }[];
    const rows: Record<string, unknown[]> = {};
    for (const t of master.filter((m) => m.type === 'table')) {
      rows[t.name] = db.prepare(`SELECT * FROM "${t.name.replace(/"/g, '""')}" ORDER BY rowid`).all();
    }
    return jsonSafe({ master, rows });
  } finally {
    db.close();
  }
}

const snapshot = (kind: Kind) => (kind === 'pgmq' ? pgSnapshot() : Promise.resolve(sqliteSnapshot()));

beforeAll(async () => {
  ensureBuilt();
  tmp = mkdtempSync(join(tmpdir(), 'smq-hostile-'));
  const base = new URL(inject('pgUrl'));
  dbName = `smq_hostile_${randomBytes(4).toString('hex')}`;
  admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(base);
  url.pathname = `/${dbName}`;
  pgUrl = url.toString();
  await installSchema(pgUrl);
  // A canary table the injection attempts name.
  await withPg((c) => c.query('CREATE TABLE public.y (x int); INSERT INTO public.y VALUES (1), (2)'));

  sqlitePath = join(tmp, 'smoothmq.db');
  const init = await runRaw(['init', '--sqlite', sqlitePath]);
  expect(init.code, init.stderr.toString()).toBe(0);
  for (const kind of KINDS) {
    for (const args of [
      ['create', CANARY],
      ['send', CANARY, '{"keep": 1}', '--header', 'k=v'],
      ['send', CANARY, '{"keep": 2}'],
    ]) {
      const r = await runRaw([...args, ...connArgs(kind)]);
      expect(r.code, `setup ${args.join(' ')}: ${r.stderr.toString()}`).toBe(0);
    }
  }
}, 120_000);

afterAll(async () => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  if (admin) {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
});

const queueName = (prefix: string) => `${prefix}_${randomBytes(4).toString('hex')}`;

// ---- bytes that are not UTF-8 -------------------------------------------------------------

describe.each(KINDS)('bodies that are not valid UTF-8 (%s)', (kind) => {
  test('smq send refuses invalid UTF-8 on stdin with one line, exit 2, and sends nothing', async () => {
    const q = queueName('utf8');
    ok(await runRaw(['create', q, ...connArgs(kind)]), 'create');
    const before = await snapshot(kind);
    const inputs: [Buffer, RegExp][] = [
      [
        Buffer.concat([Buffer.from('"fine"\n"also fine"\n"bad '), Buffer.from([0xff, 0xfe]), Buffer.from('"\n')]),
        /line 3 of stdin is not valid UTF-8 \(byte 0xff at byte 6/,
      ],
      [
        Buffer.concat([Buffer.from('"truncated '), Buffer.from([0xe2, 0x82]), Buffer.from('"\n')]),
        /line 1 of stdin is not valid UTF-8 \(byte 0xe2/,
      ],
      // A UTF-16 surrogate written as UTF-8 (CESU-8), and an overlong "/".
      [Buffer.concat([Buffer.from('\n\n"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"\n')]), /line 3 of stdin is not valid UTF-8/],
      [Buffer.concat([Buffer.from('"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"\n')]), /line 1 of stdin is not valid UTF-8 \(byte 0xc0/],
      // Latin-1 text, as from a legacy system.
      [Buffer.from('"caf\xe9"\n', 'latin1'), /line 1 of stdin is not valid UTF-8 \(byte 0xe9 at byte 5/],
    ];
    for (const [input, says] of inputs) {
      const r = await runRaw(['send', q, ...connArgs(kind)], { input });
      const err = r.stderr.toString();
      expect(r.code, err).toBe(2);
      expect(err.trimEnd().split('\n'), 'one line').toHaveLength(1);
      expect(err).toMatch(says);
      expect(r.stdout.length).toBe(0);
      expectSafe(r, 'send');
    }
    expect(await snapshot(kind)).toEqual(before);
    // A byte order mark at the start is not part of the first message.
    const bom = ok(
      await runRaw(['send', q, '--json', ...connArgs(kind)], {
        input: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('"first"\n')]),
      }),
      'bom',
    );
    const [sent] = JSON.parse(bom.stdout.toString()) as { id: string }[];
    const [m] = JSON.parse(ok(await runRaw(['peek', q, '--id', sent!.id, '--json', ...connArgs(kind)]), 'peek').stdout.toString()) as {
      body: string;
    }[];
    expect(m?.body).toBe('"first"');
  });

  /** A SmoothMQ queue holding bytes another program wrote (not UTF-8, controls, not text). */
  async function foreignBytesQueue(): Promise<{ q: string; ids: bigint[] }> {
    const q = queueName('bytes');
    ok(await runRaw(['create', q, ...connArgs(kind)]), 'create');
    const db = new Database(sqlitePath);
    const ids = [1001n, 1002n, 1003n, 1004n];
    try {
      db.defaultSafeIntegers(true);
      db.pragma('foreign_keys = OFF'); // as SmoothMQ opens it (its kvs foreign key has no unique index to point at)
      const qid = db.prepare('SELECT id FROM queues WHERE tenant_id = 1 AND name = ?').pluck().get(q) as bigint;
      const insert = db.prepare(
        'INSERT INTO messages (id, tenant_id, queue_id, deliver_at, delivered_at, tries, max_tries, message) VALUES (?, 1, ?, 0, 0, 0, -1, ?)',
      );
      const insertText = db.prepare(
        'INSERT INTO messages (id, tenant_id, queue_id, deliver_at, delivered_at, tries, max_tries, message) VALUES (?, 1, ?, 0, 0, 0, -1, CAST(? AS TEXT))',
      );
      // A BLOB with invalid UTF-8 and an escape sequence inside.
      insert.run(ids[0], qid, Buffer.from([0x61, 0xff, 0xfe, 0x1b, 0x5b, 0x32, 0x4a, 0x80, 0xc2, 0x9b, 0x62]));
      // TEXT holding bytes that are not UTF-8 (SQLite does not check), with a NUL and a C1 as raw bytes.
      insertText.run(ids[1], qid, Buffer.from([0x61, 0xff, 0x00, 0x1b, 0x5d, 0x30, 0x3b, 0x9d, 0x07, 0x62]));
      // A lone UTF-8 continuation byte, a truncated sequence at the end.
      insertText.run(ids[2], qid, Buffer.from([0x80, 0x41, 0xe2, 0x80]));
      // Not text at all: an integer.
      insert.run(ids[3], qid, 42n);
      const kv = db.prepare('INSERT INTO kvs (tenant_id, queue_id, message_id, k, v) VALUES (1, ?, ?, CAST(? AS TEXT), CAST(? AS TEXT))');
      kv.run(qid, ids[0], Buffer.from([0x6b, 0xff, 0x1b]), Buffer.from([0x76, 0xfe, 0x07, 0x0d]));
    } finally {
      db.close();
    }
    return { q, ids };
  }

  test.runIf(kind === 'sqlite')('bytes another program wrote into messages and kvs are shown, escaped, never raw', async () => {
    const { q, ids } = await foreignBytesQueue();
    for (const format of ['table', 'json', 'ndjson']) {
      const r = ok(await runRaw(['peek', q, '--output', format, ...connArgs(kind)]), `peek ${format}`);
      expectSafe(r, `peek --output ${format}`);
      if (format === 'table') expect(lines(r.stdout)).toHaveLength(1 + ids.length);
    }
    const peeked = JSON.parse(ok(await runRaw(['peek', q, '--json', ...connArgs(kind)]), 'peek').stdout.toString()) as {
      id: string;
      body: string;
      headers: Record<string, string> | null;
    }[];
    expect(peeked.map((m) => m.id)).toEqual(ids.map(String));
    // Bytes that are not UTF-8 come out as U+FFFD; everything else is kept.
    expect(peeked[0]?.body).toBe('a\ufffd\ufffd\u001b[2J\ufffd\u009bb');
    expect(peeked[1]?.body).toBe('a\ufffd\u0000\u001b]0;\ufffd\u0007b');
    expect(peeked[2]?.body).toMatch(/^\ufffdA\ufffd+$/);
    expect(peeked[3]?.body).toBe('42');
    expect(peeked[0]?.headers).toEqual({ 'k\ufffd\u001b': 'v\ufffd\u0007\r' });
    // They can be received and deleted like any other message.
    const got = ndjson(ok(await runRaw(['receive', q, '--qty', '10', '--vt', '600', ...connArgs(kind)]), 'receive').stdout.toString());
    expect(got.map((m) => m['id'])).toEqual(ids.map(String));
    const del = ok(await runRaw(['delete', q, ...ids.map(String), '--yes', ...connArgs(kind)]), 'delete');
    expect(ndjson(del.stdout.toString())).toHaveLength(ids.length);
    ok(await runRaw(['drop', q, '--yes', ...connArgs(kind)]), 'drop');
  });

  test.skipIf(kind !== 'sqlite' || !hasScript)(`SmoothMQ: bytes another program wrote are shown escaped on a terminal ${PTY}`, async () => {
    const { q, ids } = await foreignBytesQueue();
    const r = await runRaw(['peek', q, ...connArgs(kind)], { ttyColumns: 200 });
    expect(r.code).toBe(0);
    expectSafe(r, 'peek on a terminal');
    expect(lines(r.stdout)).toHaveLength(1 + ids.length);
    ok(await runRaw(['drop', q, '--yes', ...connArgs(kind)]), 'drop');
  });
});

// ---- 1 MB bodies --------------------------------------------------------------------------

describe.each(KINDS)('1 MB bodies (%s)', (kind) => {
  const MB = 1 << 20;
  // JSON on pgmq (jsonb), raw text on SmoothMQ; both with multibyte text and an escape near the end.
  const big = (n: number) =>
    kind === 'pgmq'
      ? JSON.stringify({ n, blob: 'é注'.repeat(8) + 'x'.repeat(MB) + '\u202e\u009b2J' })
      : `${n} ` + 'é注'.repeat(8) + 'x'.repeat(MB) + '\u001b[2J\r\u202e';
  const sameBody = (got: string | undefined, sent: string) =>
    kind === 'pgmq' ? expect(JSON.parse(got ?? 'null')).toEqual(JSON.parse(sent)) : expect(got).toBe(sent);

  /** A queue holding three 1 MB bodies, each with a 100 kB header. */
  async function bigQueue(): Promise<{ q: string; bodies: string[]; ids: string[] }> {
    const q = queueName('big');
    ok(await runRaw(['create', q, ...connArgs(kind)]), 'create');
    const bodies = [big(1), big(2), big(3)];
    const header = `big=${'h'.repeat(100_000)}`;
    const sent = ok(
      await runRaw(['send', q, '--header', header, '--json', ...connArgs(kind)], { input: bodies.join('\n') + '\n', timeoutMs: 60_000 }),
      'send',
    );
    const ids = (JSON.parse(sent.stdout.toString()) as { id: string }[]).map((x) => x.id);
    expect(ids).toHaveLength(3);
    return { q, bodies, ids };
  }

  test('send, peek and receive round-trip them; tables stay one line per message, cut to fit', async () => {
    const { q, bodies, ids } = await bigQueue();

    const peeked = JSON.parse(ok(await runRaw(['peek', q, '--json', ...connArgs(kind)]), 'peek --json').stdout.toString()) as {
      id: string;
      body: string;
      headers: Record<string, string>;
    }[];
    expect(peeked.map((m) => m.id)).toEqual(ids);
    peeked.forEach((m, i) => sameBody(m.body, bodies[i]!));
    expect(peeked[0]?.headers['big']).toHaveLength(100_000);

    const nd = ok(await runRaw(['peek', q, '--output', 'ndjson', ...connArgs(kind)]), 'peek ndjson');
    expect(lines(nd.stdout)).toHaveLength(3);
    expectSafe(nd, 'ndjson');

    // Piped table: one line per message, the body cut (…), the headers too.
    const piped = ok(await runRaw(['peek', q, '--output', 'table', ...connArgs(kind)]), 'peek table');
    expectSafe(piped, 'piped table');
    const rows = lines(piped.stdout);
    expect(rows).toHaveLength(4);
    for (const row of rows.slice(1)) {
      expect(row.endsWith('…')).toBe(true);
      expect(columnsOf(row)).toBeLessThan(1300);
      expect(row).toContain('…  '); // the headers cell, cut
    }

    const got = JSON.parse(
      ok(await runRaw(['receive', q, '--qty', '3', '--vt', '600', '--json', ...connArgs(kind)]), 'receive').stdout.toString(),
    ) as { id: string; body: string }[];
    expect(got.map((m) => m.id)).toEqual(ids);
    got.forEach((m, i) => sameBody(m.body, bodies[i]!));
    const table = ok(await runRaw(['queues', '--output', 'table', ...connArgs(kind)]), 'queues');
    expect(table.stdout.toString()).toMatch(new RegExp(`^${q}\\s+0\\s+3\\s`, 'm'));
    ok(await runRaw(['drop', q, '--yes', ...connArgs(kind)]), 'drop');
  }, 120_000);

  test.skipIf(!hasScript)(
    `the table of them fits the terminal's width, one row each ${PTY}`,
    async () => {
      const { q } = await bigQueue();
      const tty = await runRaw(['peek', q, ...connArgs(kind)], { ttyColumns: 200 });
      expect(tty.code, tty.stdout.toString().slice(0, 300)).toBe(0);
      expectSafe(tty, 'table on a terminal');
      const shown = lines(tty.stdout);
      expect(shown).toHaveLength(4);
      for (const row of shown) expect(columnsOf(row), row).toBeLessThanOrEqual(200);
      ok(await runRaw(['drop', q, '--yes', ...connArgs(kind)]), 'drop');
    },
    120_000,
  );
});

// ---- terminal escape sequences ------------------------------------------------------------

const ESC = '\u001b';
const NASTY = [
  `${ESC}[2J${ESC}[H`, // clear the screen, cursor home
  `${ESC}[31;1mred${ESC}[0m`, // colours
  `${ESC}[6n`, // ask the terminal to answer (cursor position report)
  `${ESC}]0;pwned\u0007`, // set the window title
  `${ESC}]8;;https://evil.example/${ESC}\\click${ESC}]8;;${ESC}\\`, // a hyperlink
  `${ESC}]52;c;${Buffer.from('rm -rf ~').toString('base64')}\u0007`, // write the clipboard
  `${ESC}P+q544e${ESC}\\`, // DCS
  '\u0007', // bell
  'over\rwrite', // carriage return
  'back\bspace\u007f',
  '\u009b31m', // C1 CSI
  '\u009d0;c1 title\u009c', // C1 OSC ... ST
  '\u202eevil\u202c', // right-to-left override ... pop
  '\u2066isolated\u2069\u200f',
  '\u061cALM', // Arabic letter mark (a bidi mark like U+200F)
  'line\u2028sep\u2029para', // line and paragraph separators
  'zero\u200bwidth\u200c\u200d\u2060\ufeff', // invisible: two names differing by them look the same
].join(' ');

describe.each(KINDS)('escape sequences in bodies, headers and names (%s)', (kind) => {
  /** A queue holding one message with NASTY in its body and headers. */
  async function nastyQueue(): Promise<{ q: string; body: string }> {
    const q = queueName('esc');
    ok(await runRaw(['create', q, ...connArgs(kind)]), 'create');
    // pgmq bodies are JSON (C0 controls must be \u escapes there, C1 and bidi may be raw).
    const body = kind === 'pgmq' ? JSON.stringify({ t: NASTY, tab: '\t', ls: '\u2028' }) : `${NASTY}\t\u2028\u0000`;
    // On stdin, because an argument cannot hold NUL.
    ok(
      await runRaw(['send', q, '--header', `h=${NASTY}`, '--header', `${ESC}[2Jkey=v`, ...connArgs(kind)], { input: body + '\n' }),
      'send',
    );
    return { q, body };
  }

  test('table, JSON and NDJSON show them escaped; JSON keeps the exact text', async () => {
    const { q, body } = await nastyQueue();

    for (const args of [
      ['peek', q, '--output', 'table'],
      ['peek', q, '--output', 'json'],
      ['peek', q, '--output', 'ndjson'],
      ['queues', '--output', 'table'],
      ['queues', '--output', 'json'],
      ['receive', q, '--vt', '0', '--output', 'table'],
      ['receive', q, '--vt', '0', '--output', 'ndjson'],
    ] as string[][]) {
      const r = ok(await runRaw([...args, ...connArgs(kind)]), args.join(' '));
      expectSafe(r, args.join(' '));
    }
    const table = ok(await runRaw(['peek', q, '--output', 'table', ...connArgs(kind)]), 'peek table').stdout.toString();
    expect(lines(Buffer.from(table))).toHaveLength(2);
    expect(table).toContain(kind === 'pgmq' ? '\\u001b[2J' : '\\e[2J');
    expect(table).toContain('\\u{202e}evil');
    expect(table).toContain('zero\\u{200b}width\\u{200c}\\u{200d}\\u{2060}\\u{feff}');
    const [m] = JSON.parse(ok(await runRaw(['peek', q, '--json', ...connArgs(kind)]), 'peek json').stdout.toString()) as {
      body: string;
      headers: Record<string, string>;
    }[];
    if (kind === 'pgmq') expect(JSON.parse(m!.body)).toEqual(JSON.parse(body));
    else expect(m?.body).toBe(body);
    expect(m?.headers).toEqual({ h: NASTY, [`${ESC}[2Jkey`]: 'v' });
    ok(await runRaw(['drop', q, '--yes', ...connArgs(kind)]), 'drop');
  });

  test.skipIf(!hasScript)(`a table shows them escaped on a terminal ${PTY}`, async () => {
    const { q } = await nastyQueue();
    const tty = await runRaw(['peek', q, ...connArgs(kind)], { ttyColumns: 300 });
    expect(tty.code).toBe(0);
    expectSafe(tty, 'peek on a terminal');
    expect(lines(tty.stdout)).toHaveLength(2);
    ok(await runRaw(['drop', q, '--yes', ...connArgs(kind)]), 'drop');
  });

  test('names with control characters are refused, and the refusal is shown escaped', async () => {
    for (const name of [`a${ESC}[2Jb`, 'a\u0007b', 'a\rb', 'a\u009bb', 'a\nb']) {
      const r = await runRaw(['create', name, ...connArgs(kind)]);
      expect(r.code).toBe(2);
      expect(r.stderr.toString().trimEnd().split('\n')).toHaveLength(1);
      expectSafe(r, JSON.stringify(name));
    }
  });

  test.runIf(kind === 'sqlite')('SmoothMQ: a bidi override in a name, and names another program stored with escapes', async () => {
    const q = `q\u202eevil_${randomBytes(3).toString('hex')}`;
    ok(await runRaw(['create', q, ...connArgs(kind)]), 'create');
    ok(await runRaw(['send', q, 'x', ...connArgs(kind)]), 'send');
    // smq refuses control characters in names, but another program may have stored them.
    const db = new Database(sqlitePath);
    const raw = [`raw${ESC}]0;title\u0007`, `raw${ESC}[2J\r`, 'raw\u009b31m'];
    try {
      db.defaultSafeIntegers(true);
      let id = 7000n;
      for (const name of raw)
        db.prepare(
          'INSERT INTO queues (id, tenant_id, name, rate_limit, max_retries, visibility_timeout) VALUES (?, 1, ?, -1, -1, 30)',
        ).run(id++, name);
    } finally {
      db.close();
    }
    for (const format of ['table', 'json', 'ndjson']) {
      const r = ok(await runRaw(['queues', '--output', format, ...connArgs(kind)]), `queues ${format}`);
      expectSafe(r, `queues --output ${format}`);
      if (format === 'json') {
        const names = (JSON.parse(r.stdout.toString()) as { name: string }[]).map((x) => x.name);
        for (const n of [q, ...raw]) expect(names).toContain(n);
      }
    }
    const peek = ok(await runRaw(['peek', q, '--output', 'table', ...connArgs(kind)]), 'peek');
    expectSafe(peek, 'peek');
    // Such a queue is used like any other (it was refused: "invalid queue name … control characters").
    const rawPeek = await runRaw(['peek', raw[1]!, '--output', 'table', ...connArgs(kind)]);
    expect(rawPeek.code).toBe(0);
    expectSafe(rawPeek, 'peek of a raw name');
    ok(await runRaw(['drop', raw[2]!, '--yes', ...connArgs(kind)]), 'drop of a raw name');
    // An error that names the queue is escaped too.
    const missing = await runRaw(['peek', `${q}_missing\u202e`, ...connArgs(kind)]);
    expect(missing.code).toBe(3);
    expectSafe(missing, 'queue not found');
    ok(await runRaw(['drop', q, '--yes', ...connArgs(kind)]), 'drop');
    const db2 = new Database(sqlitePath);
    try {
      db2.prepare('DELETE FROM queues WHERE id >= 7000 AND id < 7010').run();
    } finally {
      db2.close();
    }
  });
});

// ---- Unicode queue names ------------------------------------------------------------------

const UNICODE_NAMES: Record<Kind, string[]> = {
  // pgmq: whatever pgmq accepts (no $ ; -- '), created by smq up to 47 bytes.
  pgmq: [
    'заказы',
    '注文_2024',
    'ñandú',
    'طلبات',
    'Ουρά',
    'ﾃｽﾄ',
    'é'.repeat(23) + 'a',
    'x' + '日'.repeat(15) + 'y',
    'नमस्ते',
    'คิว',
    '📦 orders',
    'e\u0301vénement',
    'q\u202erev',
  ],
  // SmoothMQ: any text without control characters.
  sqlite: ['заказы', '注文 2024', '📦 orders', 'e\u0301vénement', 'طلبات', 'Ουρά', 'q\u202erev', '名'.repeat(255)],
};

describe.each(KINDS)('Unicode queue names (%s)', (kind) => {
  test('create, send, peek, receive, queues and drop', async () => {
    const names = UNICODE_NAMES[kind];
    await inParallel(3, names, async (name) => {
      const c = connArgs(kind);
      const created = ok(await runRaw(['create', name, '--json', ...c]), `create ${name}`);
      expect(JSON.parse(created.stdout.toString())).toEqual({ queue: name, created: true });
      ok(await runRaw(['send', name, '{"n": 1}', ...c]), `send ${name}`);
      const peeked = ndjson(ok(await runRaw(['peek', name, ...c]), `peek ${name}`).stdout.toString());
      expect(peeked).toHaveLength(1);
      const got = ndjson(ok(await runRaw(['receive', name, '--vt', '600', ...c]), `receive ${name}`).stdout.toString());
      expect(got.map((m) => m['id'])).toEqual(peeked.map((m) => m['id']));
    });
    const listed = JSON.parse(ok(await runRaw(['queues', '--json', ...connArgs(kind)]), 'queues').stdout.toString()) as {
      name: string;
      total: number;
      inFlight: number;
    }[];
    for (const name of names)
      expect(
        listed.find((x) => x.name === name),
        name,
      ).toMatchObject({ total: 1, inFlight: 1 });
    const table = ok(await runRaw(['queues', '--output', 'table', ...connArgs(kind)]), 'queues table');
    expectSafe(table, 'queues table');
    for (const name of names.filter((n) => !/[\u202e]/.test(n) && n.length < 100)) expect(table.stdout.toString()).toContain(name);
    await inParallel(3, names, async (name) => {
      ok(await runRaw(['drop', name, '--yes', ...connArgs(kind)]), `drop ${name}`);
      expect((await runRaw(['peek', name, ...connArgs(kind)])).code).toBe(3);
    });
    const after = JSON.parse(ok(await runRaw(['queues', '--json', ...connArgs(kind)]), 'queues').stdout.toString()) as { name: string }[];
    for (const name of names) expect(after.map((x) => x.name)).not.toContain(name);
  }, 120_000);

  test.runIf(kind === 'pgmq')('pgmq: names it cannot hold are refused with one line', async () => {
    const before = await snapshot(kind);
    const cases: [string, RegExp][] = [
      ['é'.repeat(24), /48 bytes/],
      ['न'.repeat(48), /48 characters/],
      ['a$b', /\$ ; -- or '/],
    ];
    for (const [name, says] of cases) {
      const r = await runRaw(['create', name, ...connArgs(kind)]);
      expect(r.code, r.stderr.toString()).toBe(2);
      expect(r.stderr.toString().trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr.toString()).toMatch(says);
      expectSafe(r, name);
    }
    // Case folds into another queue's table: said plainly instead of "created".
    ok(await runRaw(['create', 'заказы_x', ...connArgs(kind)]), 'create');
    const clash = await runRaw(['create', 'ЗАКАЗЫ_X', ...connArgs(kind)]);
    expect(clash.code).toBe(2);
    expect(clash.stderr.toString()).toMatch(/clashes with the existing queue "заказы_x"/);
    ok(await runRaw(['drop', 'заказы_x', '--yes', ...connArgs(kind)]), 'drop');
    expect(await snapshot(kind)).toEqual(before);
  });
});

// ---- SQL injection ------------------------------------------------------------------------

/** Strings that would change a statement if spliced into SQL text, or into a format() pattern. */
const HOSTILE = [
  "x'); DROP TABLE y; --",
  'x"; DROP TABLE y; --',
  "' OR '1'='1",
  '" OR "1"="1',
  '1; DROP TABLE messages',
  '$$; DROP TABLE y; $$',
  `${CANARY}' --`,
  `q_${CANARY}" CASCADE --`,
  '%I%s%L%1$s',
  '*/ DROP TABLE y; /*',
  "x') UNION SELECT usename, passwd FROM pg_shadow --",
  "Robert'); DROP TABLE queues;--",
  '@tenant',
  ':name',
  '?',
  '$1',
  '(SELECT value FROM json_each(@ids))',
  "\\'; DROP TABLE y; --",
  // Legal pgmq names (none of $ ; -- '), so they reach the compat schema's format('%I').
  `q_${CANARY}"`,
  'x" OR pg_sleep(1) IS NULL OR "',
  'a b) UNION SELECT 1 FROM y',
  '%I%s%L',
  'pgmq.meta',
];
/** A few of them for the (slower) command-line runs: names and values ... */
const HOSTILE_CLI = [HOSTILE[0]!, HOSTILE[1]!, HOSTILE[5]!, HOSTILE[8]!];
/** ... and options, which are parsed before anything reaches a database. */
const HOSTILE_FLAGS = [HOSTILE[0]!, HOSTILE[3]!];

describe.each(KINDS)('SQL injection (%s)', (kind) => {
  test('through every command: queue names, bodies, header keys and values, ids, --after, --state, --tenant, limits', async () => {
    const before = await snapshot(kind);
    const c = connArgs(kind);
    const victim = queueName('victim');
    ok(await runRaw(['create', victim, ...c]), 'create victim');

    // Values: bodies and headers are bound, so they come back exactly as sent.
    for (const h of HOSTILE_CLI) {
      const body = kind === 'pgmq' ? JSON.stringify({ h }) : h;
      const sent = ndjson(
        ok(
          await runRaw(['send', victim, body, '--header', `${h.replace(/=/g, '')}=${h}`, '--header', `k=${h}`, ...c]),
          `send ${h}`,
        ).stdout.toString(),
      );
      const [m] = ndjson(ok(await runRaw(['peek', victim, '--id', String(sent[0]?.['id']), ...c]), 'peek').stdout.toString());
      if (kind === 'pgmq') expect(JSON.parse(String(m?.['body']))).toEqual({ h });
      else expect(m?.['body']).toBe(h);
      expect(m?.['headers']).toEqual({ [h.replace(/=/g, '')]: h, k: h });
    }
    // Stdin bodies go through the batch statement.
    const batch = ndjson(
      ok(
        await runRaw(['send', victim, ...c], { input: HOSTILE.map((h) => (kind === 'pgmq' ? JSON.stringify(h) : h)).join('\n') + '\n' }),
        'send batch',
      ).stdout.toString(),
    );
    expect(batch).toHaveLength(HOSTILE.length);

    // Names: pgmq refuses them before any SQL (exit 2); on SmoothMQ they are plain text
    // and name a queue that does not exist (exit 3).
    const missing = kind === 'pgmq' ? 2 : 3;
    const runs: [string[], number][] = [];
    for (const h of HOSTILE_CLI) {
      runs.push(
        [['send', h, '{}'], missing],
        [['receive', h], missing],
        [['peek', h], missing],
        [['peek', h, '--id', '1'], missing],
        [['delete', h, '1', '--yes'], missing],
        [['purge', h, '--yes'], missing],
        [['drop', h, '--yes'], missing],
      );
    }
    for (const h of HOSTILE_FLAGS) {
      runs.push(
        [['delete', victim, h, '--yes'], 2],
        [['peek', victim, '--id', h], 2],
        [['peek', victim, '--after', h], 2],
        [['peek', victim, '--state', h], 2],
        [['peek', victim, '--limit', h], 2],
        [['receive', victim, '--qty', h], 2],
        [['receive', victim, '--vt', h], 2],
        [['send', victim, '{}', '--delay', h], 2],
        [['queues', '--tenant', h], 2],
        [['peek', victim, '--order', h], 2],
      );
    }
    if (kind === 'pgmq') for (const h of HOSTILE_CLI) runs.push([['create', h], 2]);
    else
      for (const h of HOSTILE_FLAGS)
        runs.push([['create', victim + h, '--visibility-timeout', h], 2], [['create', victim + h, '--max-retries', h], 2]);
    await inParallel(3, runs, async ([args, code]) => {
      const r = await runRaw([...args, ...c]);
      expect(r.code, `smq ${args.join(' ')}: ${r.stderr.toString()}`).toBe(code);
      expect(r.stdout.length, `smq ${args.join(' ')}: stdout`).toBe(0);
      expect(r.stderr.toString().trimEnd().split('\n')).toHaveLength(1);
    });

    // SmoothMQ: a hostile name is just a name. The whole life of such a queue, verbatim.
    if (kind === 'sqlite') {
      // (Every backend method with every one of HOSTILE: the next test.)
      for (const h of HOSTILE_CLI.slice(0, 2)) {
        ok(await runRaw(['create', h, ...c]), `create ${h}`);
        const [s] = ndjson(ok(await runRaw(['send', h, h, '--header', `k=${h}`, ...c]), 'send').stdout.toString());
        const [p] = ndjson(ok(await runRaw(['peek', h, ...c]), 'peek').stdout.toString());
        expect(p).toMatchObject({ id: s?.['id'], body: h, headers: { k: h } });
        const [got] = ndjson(ok(await runRaw(['receive', h, '--vt', '600', ...c]), 'receive').stdout.toString());
        expect(got?.['id']).toBe(s?.['id']);
        ok(await runRaw(['delete', h, String(got?.['id']), '--yes', ...c]), 'delete');
        ok(await runRaw(['send', h, 'again', ...c]), 'send');
        expect(JSON.parse(ok(await runRaw(['purge', h, '--yes', '--json', ...c]), 'purge').stdout.toString())).toMatchObject({ purged: 1 });
        const names = (JSON.parse(ok(await runRaw(['queues', '--json', ...c]), 'queues').stdout.toString()) as { name: string }[]).map(
          (x) => x.name,
        );
        expect(names).toContain(h);
        ok(await runRaw(['drop', h, '--yes', ...c]), 'drop');
      }
    }

    ok(await runRaw(['drop', victim, '--yes', ...c]), 'drop victim');
    expect(await snapshot(kind)).toEqual(before);
  }, 180_000);

  test('through every backend method, with values the types would not even allow', async () => {
    const before = await snapshot(kind);
    const open = (options = {}): Promise<Backend> =>
      kind === 'pgmq' ? openBackend({ kind: 'pgmq', url: pgUrl }, options) : openBackend({ kind: 'sqlite', path: sqlitePath }, options);
    const backend = await open();
    const any = (v: unknown) => v as never;
    try {
      const victim = queueName('victim');
      await backend.createQueue(victim);
      for (const h of HOSTILE) {
        const calls: [string, () => Promise<unknown>][] = [
          ['queueStats', () => backend.queueStats(h)],
          ['createQueue', () => backend.createQueue(h)],
          ['send', () => backend.send(h, { body: '{}' })],
          ['sendBatch', () => backend.sendBatch(h, [{ body: '{}' }, { body: '{}', delaySec: 1 }])],
          ['receive', () => backend.receive(h, { qty: 1, vtSec: 600 })],
          ['receive naive', () => backend.receive(h, { qty: 1, vtSec: 600, dequeue: 'naive' })],
          ['peek', () => backend.peek(h, { limit: 5 })],
          ['setVisibility', () => backend.setVisibility(h, [1n], 0)],
          ['delete', () => backend.delete(h, [1n])],
          ['archive', () => backend.archive(h, [1n])],
          ['purgeQueue', () => backend.purgeQueue(h)],
          ['dropQueue', () => backend.dropQueue(h)],
        ];
        if (kind === 'pgmq' && (/[$;']|--/.test(h) || [...h].length > 47)) {
          // What pgmq refuses is refused before any SQL runs.
          for (const [what, call] of calls) {
            await expect(call(), `${what}(${JSON.stringify(h)})`).rejects.toMatchObject({ kind: 'invalid-queue-name' });
          }
        } else {
          // Plain text on SmoothMQ, and a name pgmq accepts: a missing queue first, then one
          // that works like any other.
          await expect(backend.queueStats(h)).rejects.toMatchObject({ kind: 'queue-not-found' });
          expect(await backend.createQueue(h)).toBe(true);
          for (const [what, call] of calls) {
            if (what === 'archive' && kind === 'sqlite') await expect(call()).rejects.toMatchObject({ kind: 'invalid-input' });
            else if (what === 'createQueue') expect(await call()).toBe(false);
            else await call();
          }
          await expect(backend.queueStats(h)).rejects.toMatchObject({ kind: 'queue-not-found' });
        }

        // Bodies, header keys and values: bound, returned as given.
        const body = kind === 'pgmq' ? JSON.stringify(h) : h;
        const id = await backend.send(victim, { body, headers: { [h]: h } });
        const [m] = await backend.peek(victim, { limit: 1, id });
        expect(kind === 'pgmq' ? JSON.parse(m!.body) : m?.body).toBe(h);
        expect(m?.headers).toEqual({ [h]: h });

        // Values of the wrong type, as a careless caller might pass them.
        const wrong: [string, () => Promise<unknown>][] = [
          ['delete ids', () => backend.delete(victim, [any(h)])],
          ['setVisibility ids', () => backend.setVisibility(victim, [any(h)], 0)],
          ['setVisibility vt', () => backend.setVisibility(victim, [id], any(h))],
          ['peek id', () => backend.peek(victim, { limit: 5, id: any(h) })],
          ['peek after', () => backend.peek(victim, { limit: 5, afterId: any(h) })],
          ['peek limit', () => backend.peek(victim, { limit: any(h) })],
          ['peek state', () => backend.peek(victim, { limit: 5, state: any(h) })],
          ['receive qty', () => backend.receive(victim, { qty: any(h) })],
          ['receive vt', () => backend.receive(victim, { qty: 1, vtSec: any(h) })],
          ['send delay', () => backend.send(victim, { body: '{}', delaySec: any(h) })],
        ];
        for (const [what, call] of wrong) await expect(call(), `${what} = ${JSON.stringify(h)}`).rejects.toBeInstanceOf(SmqError);
        await expect(backend.peek(victim, { limit: 5, state: any('constructor') })).rejects.toBeInstanceOf(SmqError);
        if (kind === 'sqlite') await expect(open({ tenant: any(h) })).rejects.toBeInstanceOf(SmqError);
      }
      // Ids at and past the edges of a 64-bit integer.
      for (const id of [-1n, 2n ** 63n, 2n ** 64n]) {
        await expect(backend.delete(victim, [id])).rejects.toBeInstanceOf(SmqError);
      }
      await backend.dropQueue(victim);
    } finally {
      await backend.close();
    }
    expect(await snapshot(kind)).toEqual(before);
  }, 120_000);

  test.runIf(kind === 'pgmq')(
    "pgmq: hostile names another client created (smq's compat SQL and every statement smq builds from a name)",
    async () => {
      const before = await snapshot(kind);
      // The compat schema refuses what pgmq refuses ($ ; -- '); the rest are legal pgmq names
      // that smq itself would not create, yet lists and reads safely.
      const legal = HOSTILE.filter((h) => !/[$;']|--/.test(h));
      expect(legal.length).toBeGreaterThanOrEqual(6);
      await withPg(async (client) => {
        for (const h of HOSTILE.filter((x) => !legal.includes(x))) {
          await expect(client.query('SELECT pgmq.create($1)', [h])).rejects.toThrow(/invalid queue name/);
        }
        for (const h of legal) {
          await client.query('SELECT pgmq.create($1)', [h]);
          await client.query('SELECT * FROM pgmq.send($1, $2::jsonb, $3::jsonb)', [h, JSON.stringify({ h }), JSON.stringify({ [h]: h })]);
        }
        // smq queues lists them, counted (format('%I') and regclass on the server side).
        const listed = JSON.parse(ok(await runRaw(['queues', '--json', '--url', pgUrl]), 'queues').stdout.toString()) as {
          name: string;
          total: number;
        }[];
        for (const h of legal)
          expect(
            listed.find((x) => x.name === h),
            h,
          ).toMatchObject({ total: 1 });

        // Every statement the backend builds around a name, run with these names.
        const cols: pgSql.Columns = { headers: true, lastReadAt: true };
        for (const h of legal) {
          const run = async (q: pgSql.Query) => (await client.query(q.text, q.values)).rows;
          const [t] = await run(pgSql.queueTableQuery(h));
          const rel = String(t?.['rel']);
          expect(rel.startsWith('pgmq.')).toBe(true);
          const catalog = await run(pgSql.queueCatalogQuery(h));
          expect(catalog).toHaveLength(1);
          const target = { qrel: String(catalog[0]?.['qrel']), arel: String(catalog[0]?.['arel']) };
          expect(await run(pgSql.queueStatsQuery([{ ...target, estimate: false, estimateArchive: false }]))).toHaveLength(1);
          expect(await run(pgSql.queueStatsQuery([{ ...target, estimate: true, estimateArchive: true }]))).toHaveLength(1); // the estimated branch
          const peeked = await run(pgSql.peekQuery(rel, cols, { limit: 10, state: 'all' }));
          expect(peeked).toHaveLength(1);
          const msgId = BigInt(String(peeked[0]?.['msg_id']));
          await client.query('BEGIN');
          const picked = await run(pgSql.naiveSelectQuery(rel, 5));
          expect(
            await run(
              pgSql.naiveUpdateQuery(
                rel,
                picked.map((r) => BigInt(String(r['msg_id']))),
                600,
                cols,
              ),
            ),
          ).toHaveLength(1);
          await client.query('ROLLBACK');
          expect(await run(pgSql.readQuery(h, 600, 1, cols))).toHaveLength(1);
          expect(await run(pgSql.setVisibilityQuery(h, [msgId], 0))).toHaveLength(1);
          expect(await run(pgSql.sendQuery(h, '{"again": 1}', { [h]: h }, 0, cols))).toHaveLength(1);
          expect(await run(pgSql.sendBatchQuery(h, ['{}', '{}'], [{ [h]: h }, undefined], 0, cols))).toHaveLength(2);
          await client.query('SELECT * FROM pgmq.archive($1, $2::bigint)', [h, msgId]);
          await client.query('SELECT * FROM pgmq.metrics($1)', [h]);
          await client.query('SELECT pgmq.purge_queue($1)', [h]);
          await client.query('SELECT pgmq.drop_queue($1)', [h]);
        }
      });
      expect(await snapshot(kind)).toEqual(before);
    },
    120_000,
  );
});

// ---- passwords ----------------------------------------------------------------------------

describe('passwords never appear in output (pgmq)', () => {
  // Characters that URL-encoding changes, so the encoded form is a different string to look for.
  const PASSWORD = `Pw@:/%41 é&x=1#?_${randomBytes(3).toString('hex')}`;
  const WRONG = `Wr0ng@:/%42 ü&_${randomBytes(3).toString('hex')}`;
  const role = `smq_pw_${randomBytes(3).toString('hex')}`;
  const db = `smq_pw_${randomBytes(3).toString('hex')}`;
  let host: string;
  let port: string;
  let closedPort: number;
  const enc = encodeURIComponent;
  const url = (o: { password?: string; port?: string | number; db?: string; host?: string } = {}) =>
    `postgres://${role}:${enc(o.password ?? PASSWORD)}@${o.host ?? host}:${o.port ?? port}/${o.db ?? db}`;
  const env = (o: { password?: string; port?: string | number; db?: string; host?: string } = {}) => ({
    PGHOST: o.host ?? host,
    PGPORT: String(o.port ?? port),
    PGUSER: role,
    PGDATABASE: o.db ?? db,
    PGPASSWORD: o.password ?? PASSWORD,
  });
  const forbidden = () => [PASSWORD, enc(PASSWORD), WRONG, enc(WRONG), PASSWORD.slice(0, 8), enc(PASSWORD).slice(0, 12), WRONG.slice(0, 8)];

  const checked: string[] = [];
  function expectNoSecret(r: RawResult, what: string): void {
    const text = r.stdout.toString() + r.stderr.toString();
    for (const s of forbidden()) expect(text.includes(s), `${what} shows ${JSON.stringify(s)}: ${text.slice(0, 400)}`).toBe(false);
    checked.push(what);
  }

  beforeAll(async () => {
    const base = new URL(inject('pgUrl'));
    host = base.hostname;
    port = base.port;
    closedPort = await freePort();
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD ${admin.escapeLiteral(PASSWORD)}`);
    await admin.query(`CREATE DATABASE ${db} OWNER ${role}`);
  });
  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => undefined);
    await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  });

  /** Every command once, in an order that works on a fresh database. */
  const COMMANDS = (q: string): { args: string[]; input?: string; id?: boolean }[] => [
    { args: ['init'] },
    { args: ['queues'] },
    { args: ['create', q] },
    { args: ['send', q, '{"a": 1}', '--header', 'k=v'] },
    { args: ['send', q], input: '{"b": 2}\n{"c": 3}\n' },
    { args: ['peek', q] },
    { args: ['receive', q, '--vt', '600'] },
    { args: ['delete', q, '--yes'], id: true },
    { args: ['purge', q, '--yes'] },
    { args: ['drop', q, '--yes'] },
  ];

  type Conn = (o?: { password?: string; port?: string | number; db?: string; host?: string }) => {
    args: string[];
    env: Record<string, string>;
  };
  const ALL = new Set(COMMANDS('q').map((c) => c.args[0]!));
  const SOME = new Set(['init', 'queues', 'peek', 'send']);
  test.each([
    ['--url', ALL, (o = {}) => ({ args: ['--url', url(o)], env: {} })],
    ['PG* variables, no --url', ALL, (o = {}) => ({ args: [], env: env(o) })],
    ['DATABASE_URL', SOME, (o = {}) => ({ args: [], env: { DATABASE_URL: url(o) } })],
    [
      '?password= in the URL',
      SOME,
      (o = {}) => ({
        args: ['--url', `postgres://${role}@${o.host ?? host}:${o.port ?? port}/${o.db ?? db}?password=${enc(o.password ?? PASSWORD)}`],
        env: {},
      }),
    ],
  ] as [string, Set<string>, Conn][])(
    'password given by %s: success with --json, and every failure',
    async (_how, commands, conn) => {
      const q = queueName('pw');
      // Success paths, every command, JSON and the other formats.
      let lastId = '';
      for (const c of COMMANDS(q)) {
        for (const format of ['--json', '--output=table', '--output=ndjson']) {
          if (format !== '--json' && !['queues', 'peek'].includes(c.args[0]!)) continue;
          const { args, env: e } = conn();
          const full = [...c.args, ...(c.id ? [lastId] : []), format, ...args];
          const r = await runRaw(full, { env: e, ...(c.input ? { input: c.input } : {}) });
          expect(r.code, `smq ${c.args.join(' ')}: ${r.stderr.toString()}`).toBe(0);
          expectNoSecret(r, `success: ${c.args[0]} ${format}`);
          if (c.args[0] === 'receive') lastId = String((JSON.parse(r.stdout.toString()) as { id: string }[])[0]?.id);
          if (c.args[0] === 'init') expect(r.stdout.toString()).toMatch(/"location": "postgres:\/\/[^"]*"/);
        }
      }
      // Errors after connecting: queue not found, a refused write.
      for (const args of [
        ['peek', 'no_such_queue'],
        ['send', 'no_such_queue', '{}'],
        ['purge', 'no_such_queue', '--yes', '--read-only'],
      ]) {
        const { args: a, env: e } = conn();
        const r = await runRaw([...args, ...a], { env: e });
        expect(r.code).not.toBe(0);
        expectNoSecret(r, `error: ${args.join(' ')}`);
      }
      // Failures while connecting; SMQ_DEBUG=1 (stack traces) once per kind of failure.
      const failures: [string, { password?: string; port?: string | number; db?: string; host?: string }][] = [
        ['wrong password', { password: WRONG }],
        ['closed port', { port: closedPort }],
        ['unknown database', { db: `${db}_nope` }],
        ['unknown host', { host: 'smq-no-such-host.invalid' }],
      ];
      const runs = failures.flatMap(([why, o]) => [
        ...COMMANDS(q)
          // A host that does not resolve fails in the same place for every command.
          .filter((c) => commands.has(c.args[0]!) && (why !== 'unknown host' || SOME.has(c.args[0]!)))
          .map((c) => ({ why, o, c, debug: false })),
        { why, o, c: COMMANDS(q)[1]!, debug: true },
      ]);
      await inParallel(4, runs, async ({ why, o, c, debug }) => {
        const { args, env: e } = conn(o);
        const r = await runRaw([...c.args, ...(c.id ? ['1'] : []), '--json', ...args], {
          env: { ...e, ...(debug ? { SMQ_DEBUG: '1' } : {}) },
          ...(c.input ? { input: c.input } : {}),
        });
        expect(r.code, `${why}: smq ${c.args.join(' ')}: ${r.stderr.toString()}`).toBe(1);
        expect(r.stdout.length).toBe(0);
        if (debug) expect(r.stderr.toString()).toContain('    at ');
        else expect(r.stderr.toString().trimEnd().split('\n')).toHaveLength(1);
        expectNoSecret(r, `${why}: ${c.args[0]}${debug ? ' (SMQ_DEBUG=1)' : ''}`);
      });
    },
    180_000,
  );

  test('the checks ran', () => {
    expect(checked.length).toBeGreaterThan(80);
  });
});
