// smq send from stdin: bad input is refused before anything is sent, and a send that fails
// half way (server stopped, disk full) leaves stdout listing exactly the ids stored and
// stderr saying where to resume (--skip N); --atomic stores all lines or none.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { BIN, ensureBuilt, ndjson, runCli, type CliResult } from '../helpers/run-cli.js';
import { startPgServer, type PgServer } from '../helpers/pg-server.js';
import { installSchema } from '../helpers/schema.js';
import { screenBody, SURE_DEPTH } from '../../src/backends/pgmq/jsonb-screen.js';

/** Stops (or resumes) the postmaster and every process it started: nothing answers, nothing is closed. */
function signalServer(server: PgServer, signal: 'STOP' | 'CONT'): void {
  const pid = readFileSync(join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', pid], { encoding: 'utf8' }).split(/\s+/).filter(Boolean);
  for (const p of signal === 'STOP' ? [...children, pid] : [pid, ...children]) {
    try {
      process.kill(Number(p), `SIG${signal}`);
    } catch {
      // a child that ended meanwhile
    }
  }
}

const uniqueQueue = (p = 'sp') => `${p}_${randomBytes(5).toString('hex')}`;
const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i)).join('\n') + '\n';
const idsOf = (r: CliResult) => ndjson(r.stdout).map((x) => String(x['id']));
/** smq's whole stderr must be one line. */
function oneLine(r: CliResult): string {
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  return lines[0]!;
}

let tmp: string;
let pgClient: pg.Client;

beforeAll(async () => {
  ensureBuilt();
  tmp = mkdtempSync(join(tmpdir(), 'smq-send-'));
  pgClient = new pg.Client({ connectionString: inject('pgUrl') });
  await pgClient.connect();
});
afterAll(async () => {
  await pgClient?.end();
  rmSync(tmp, { recursive: true, force: true });
});

async function pgRows(q: string): Promise<{ id: string; body: string }[]> {
  const r = await pgClient.query<{ id: string; body: string }>(
    `SELECT msg_id::text AS id, message::text AS body FROM pgmq.${pg.escapeIdentifier(`q_${q}`)} ORDER BY msg_id`,
  );
  return r.rows;
}

describe('bodies jsonb refuses are refused before the first send (pgmq)', () => {
  const url = () => inject('pgUrl');
  // Each case: 5,000 good lines, then the bad one on line 5001. Nothing may be stored.
  const bad: [string, string, RegExp][] = [
    ['\\u0000 in a string', '{"a":"\\u0000"}', /\\u0000|Unicode escape/],
    ['\\u0000 in a key', '{"\\u0000":1}', /\\u0000|Unicode escape/],
    ['a lone high surrogate', '["\\ud800"]', /surrogate/],
    ['a lone low surrogate', '"x\\udc00"', /surrogate/],
    ['two high surrogates', '"\\ud800\\ud800"', /surrogate/],
    ['nesting deeper than the server allows', '['.repeat(60_000) + ']'.repeat(60_000), /stack depth/],
    ['a number numeric cannot hold', '{"n":1e1000000}', /numeric/],
    ['a tiny number numeric cannot hold', '1e-20000', /numeric/],
  ];
  test.each(bad)('%s: exit 2, one line naming line 5001, nothing stored', async (_name, body) => {
    const q = uniqueQueue();
    expect((await runCli(['create', q, '--url', url()])).code).toBe(0);
    const r = await runCli(['send', q, '--url', url()], { input: lines(1, 5000) + body + '\n', timeoutMs: 60_000 });
    const err = oneLine(r);
    expect(r.code, err).toBe(2);
    expect(err).toMatch(/line 5001 of stdin/);
    expect(err).toMatch(bad.find((b) => b[1] === body)![2]);
    expect(err).toMatch(/nothing was sent/);
    expect(r.stdout).toBe('');
    expect(await pgRows(q)).toHaveLength(0);
  });

  test('what jsonb accepts is sent: paired surrogates, \\u0001, deep but allowed nesting, big numbers', async () => {
    const q = uniqueQueue();
    expect((await runCli(['create', q, '--url', url()])).code).toBe(0);
    const good = ['"\\ud83d\\ude00"', '"\\u0001"', '['.repeat(2000) + ']'.repeat(2000), '1e1000', '{"n":-0.5e-300}'];
    const r = await runCli(['send', q, '--url', url()], { input: good.join('\n') + '\n', timeoutMs: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(idsOf(r)).toHaveLength(good.length);
    expect(await pgRows(q)).toHaveLength(good.length);
  });
});

describe('the screen that spares sure bodies the server check (pgmq)', () => {
  test('whatever it is sure of, the server takes as jsonb', async () => {
    const deep = fc.integer({ min: 1, max: SURE_DEPTH + 5 }).map((n) => '['.repeat(n) + ']'.repeat(n));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.json(),
          fc.string().map((t) => JSON.stringify(t)),
          deep,
          fc.double().map(String),
        ),
        async (text) => {
          if (!screenBody(text).sure) return;
          await pgClient.query('SELECT $1::jsonb', [text]);
        },
      ),
      { numRuns: 500 },
    );
  });

  test('a LATIN1 database: a character it cannot hold is refused before the first send, with its line', async () => {
    const db = `smq_latin1_${randomBytes(4).toString('hex')}`;
    await pgClient.query(`CREATE DATABASE ${db} ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`);
    try {
      const url = new URL(inject('pgUrl'));
      url.pathname = `/${db}`;
      await installSchema(url.href);
      const q = uniqueQueue();
      expect((await runCli(['create', q, '--url', url.href])).code).toBe(0);
      for (const bad of ['"中"', '"\\u4e2d"']) {
        const r = await runCli(['send', q, '--url', url.href], { input: `"é"\n"\\u00e9"\n${bad}\n`, timeoutMs: 60_000 });
        const err = oneLine(r);
        expect(r.code, err).toBe(2);
        expect(err).toMatch(/invalid message body on line 3 of stdin: the server refuses it as jsonb.*nothing was sent/);
      }
      const ok = await runCli(['send', q, '--url', url.href], { input: `"é"\n"\\u00e9"\n`, timeoutMs: 60_000 });
      expect(ok.stderr).toBe('');
      expect(idsOf(ok)).toHaveLength(2);
    } finally {
      await pgClient.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    }
  });
});

describe('a send that fails half way (pgmq, a server of its own)', () => {
  let server: PgServer;
  let admin: pg.Client;
  const N = 100_000;
  beforeAll(async () => {
    server = await startPgServer();
    await installSchema(server.url);
  });
  afterAll(async () => {
    await admin?.end().catch(() => undefined);
    server?.stop();
  });

  const rowsOf = async (q: string) => {
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    try {
      const r = await c.query<{ id: string; body: string }>(
        `SELECT msg_id::text AS id, message::text AS body FROM pgmq.${pg.escapeIdentifier(`q_${q}`)} ORDER BY msg_id`,
      );
      return r.rows;
    } finally {
      await c.end();
    }
  };

  /** Every line of 1..N stored exactly once. */
  const expectEachLineOnce = (rows: { body: string }[]) => {
    expect(rows).toHaveLength(N);
    const seen = new Set(rows.map((r) => r.body));
    expect(seen.size).toBe(N);
    for (let i = 1; i <= N; i++) if (!seen.has(String(i))) throw new Error(`line ${i} is missing`);
  };

  test('the server stops during a 100,000-line send: stdout lists exactly the stored ids, stderr says --skip N, resuming stores each line once', async () => {
    const q = uniqueQueue('halt');
    expect((await runCli(['create', q, '--url', server.url])).code).toBe(0);
    const running = runCli(['send', q, '--url', server.url], { input: lines(1, N), timeoutMs: 120_000 });
    // Stop the server once some batches are in.
    const watcher = new pg.Client({ connectionString: server.url });
    await watcher.connect();
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { rows } = await watcher.query<{ n: number }>(`SELECT count(*)::int AS n FROM pgmq.${pg.escapeIdentifier(`q_${q}`)}`);
      if (rows[0]!.n >= 5_000) break;
      if (Date.now() > deadline) throw new Error('the send never got going');
      await new Promise((r) => setTimeout(r, 20));
    }
    await watcher.end().catch(() => undefined);
    await server.halt();
    const r = await running;
    await server.start();
    const err = oneLine(r);
    expect(r.code, err).toBe(1);
    const stored = await rowsOf(q);
    expect(stored.length).toBeGreaterThanOrEqual(5_000);
    expect(stored.length).toBeLessThan(N);
    // stdout: exactly the ids stored, in order.
    expect(idsOf(r)).toEqual(stored.map((s) => s.id));
    const m = /sent (\d+) of 100000 messages.*resume with --skip (\d+)/.exec(err);
    expect(m, err).not.toBeNull();
    expect(Number(m![1])).toBe(stored.length);
    expect(Number(m![2])).toBe(stored.length); // no blank lines: line number = count
    const again = await runCli(['send', q, '--url', server.url, '--skip', m![2]!], { input: lines(1, N), timeoutMs: 120_000 });
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(idsOf(again)).toHaveLength(N - stored.length);
    expectEachLineOnce(await rowsOf(q));
  }, 240_000);

  test('the server hangs (SIGSTOP) during a send: the batch with no answer is named, and either --skip the line offers stores each line once', async () => {
    const q = uniqueQueue('hang');
    expect((await runCli(['create', q, '--url', server.url])).code).toBe(0);
    const running = runCli(['send', q, '--url', server.url, '--timeout', '2s'], { input: lines(1, N), timeoutMs: 120_000 });
    const watcher = new pg.Client({ connectionString: server.url });
    await watcher.connect();
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { rows } = await watcher.query<{ n: number }>(`SELECT count(*)::int AS n FROM pgmq.${pg.escapeIdentifier(`q_${q}`)}`);
      if (rows[0]!.n >= 5_000) break;
      if (Date.now() > deadline) throw new Error('the send never got going');
      await new Promise((r) => setTimeout(r, 20));
    }
    await watcher.end().catch(() => undefined);
    signalServer(server, 'STOP');
    let r: CliResult;
    try {
      r = await running;
    } finally {
      signalServer(server, 'CONT');
    }
    const err = oneLine(r);
    expect(r.code, err).toBe(1);
    const m =
      /no answer from .* within 2 s; sent (\d+) of 100000 messages.*; lines (\d+)-(\d+) got no answer and may be stored too.*resume with --skip (\d+), or with --skip (\d+) if 'smq peek' shows/.exec(
        err,
      );
    expect(m, err).not.toBeNull();
    const [sent, first, last, skipIfNot, skipIfStored] = m!.slice(1).map(Number) as [number, number, number, number, number];
    expect(first).toBe(sent + 1);
    expect(skipIfNot).toBe(sent);
    expect(skipIfStored).toBe(last);
    // The server may have committed the batch after smq stopped waiting: all of it or none.
    const stored = await rowsOf(q);
    expect(idsOf(r)).toEqual(stored.slice(0, sent).map((s) => s.id));
    expect([sent, last]).toContain(stored.length);
    const skip = stored.length === last ? skipIfStored : skipIfNot;
    const again = await runCli(['send', q, '--url', server.url, '--skip', String(skip)], { input: lines(1, N), timeoutMs: 120_000 });
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expectEachLineOnce(await rowsOf(q));
  }, 240_000);

  test('a full disk after 1,000 rows (disk_full raised by a trigger): exit 1, 1,000 ids, --skip 1000; --atomic stores nothing', async () => {
    const q = uniqueQueue('full');
    expect((await runCli(['create', q, '--url', server.url])).code).toBe(0);
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const table = `pgmq.${pg.escapeIdentifier(`q_${q}`)}`;
    await admin.query(`
      CREATE OR REPLACE FUNCTION public.${q}_full() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT count(*) FROM ${table}) >= 1000 THEN
          RAISE EXCEPTION 'could not extend file "base/1/2": No space left on device' USING ERRCODE = 'disk_full';
        END IF;
        RETURN NEW;
      END $$`);
    await admin.query(`CREATE TRIGGER full_disk BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION public.${q}_full()`);
    // Blank lines count in line numbers: the resume point is a line number of stdin.
    const input = '\n' + lines(1, 5000);
    const r = await runCli(['send', q, '--url', server.url], { input, timeoutMs: 60_000 });
    const err = oneLine(r);
    expect(r.code, err).toBe(1);
    expect(err).toMatch(/No space left on device/);
    expect(err).toMatch(/sent 1000 of 5000 messages/);
    expect(err).toMatch(/--skip 1001\b/);
    const stored = await rowsOf(q);
    expect(idsOf(r)).toEqual(stored.map((s) => s.id));
    expect(stored).toHaveLength(1000);

    // --atomic: the whole input in one transaction, rolled back.
    await admin.query(`DELETE FROM ${table}`);
    await admin.query(`CREATE OR REPLACE FUNCTION public.${q}_full() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.message = '4000'::jsonb THEN RAISE EXCEPTION 'No space left on device' USING ERRCODE = 'disk_full'; END IF;
        RETURN NEW;
      END $$`);
    const atomic = await runCli(['send', q, '--url', server.url, '--atomic'], { input, timeoutMs: 60_000 });
    const aerr = oneLine(atomic);
    expect(atomic.code, aerr).toBe(1);
    expect(aerr).toMatch(/nothing was sent/);
    expect(atomic.stdout).toBe('');
    expect(await rowsOf(q)).toHaveLength(0);

    await admin.query(`DROP TRIGGER full_disk ON ${table}`);
    const resumed = await runCli(['send', q, '--url', server.url, '--atomic', '--skip', '1'], { input, timeoutMs: 60_000 });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(idsOf(resumed)).toHaveLength(5000);
    expect((await rowsOf(q)).map((s) => s.body)).toEqual(lines(1, 5000).trim().split('\n'));
  }, 120_000);
});

describe('the reader of stdout goes away during a send from stdin', () => {
  // `seq 5000 | smq send q | head -1`: head exits after the first id. The send goes on: every
  // line is stored, nothing more is written, and smq exits 0 (it stopped at the closed pipe
  // before, having stored part of the input, and still exited 0).
  test.each(['pgmq', 'SmoothMQ SQLite file'])(
    '%s: every line stored, exit 0, stderr empty',
    async (kind) => {
      const q = uniqueQueue('pipe');
      let conn: string[];
      let count: () => Promise<number>;
      let db: Database.Database | undefined;
      if (kind === 'pgmq') {
        conn = ['--url', inject('pgUrl')];
        count = async () => (await pgRows(q)).length;
      } else {
        const path = join(tmp, `${q}.db`);
        expect((await runCli(['init', '--sqlite', path])).code).toBe(0);
        conn = ['--sqlite', path];
        db = new Database(path);
        count = async () => Number(db!.prepare('SELECT count(*) FROM messages').pluck().get());
      }
      try {
        expect((await runCli(['create', q, ...conn])).code).toBe(0);
        const quoted = [process.execPath, BIN, ...conn, 'send', q].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
        const out = execFileSync('bash', ['-c', `seq 1 5000 | ${quoted} 2>"$ERR" | head -1; echo "smq exit \${PIPESTATUS[1]}"`], {
          encoding: 'utf8',
          env: { ...process.env, ERR: join(tmp, `${q}.err`) },
          timeout: 60_000,
        });
        expect(out).toMatch(/^\{"id":"\d+"\}\n/);
        expect(out.trimEnd().split('\n').at(-1)).toBe('smq exit 0');
        expect(readFileSync(join(tmp, `${q}.err`), 'utf8')).toBe('');
        expect(await count()).toBe(5000);
      } finally {
        db?.close();
      }
    },
    90_000,
  );
});

describe('a send that fails half way (SmoothMQ SQLite file)', () => {
  test('a write error after 1,000 rows: exit 1, the 1,000 ids on stdout, --skip 1000 resumes; --atomic stores nothing', async () => {
    const path = join(tmp, 'partial.db');
    expect((await runCli(['init', '--sqlite', path])).code).toBe(0);
    const q = uniqueQueue('lite');
    expect((await runCli(['create', q, '--sqlite', path])).code).toBe(0);
    const db = new Database(path);
    db.defaultSafeIntegers(true);
    try {
      db.exec(`CREATE TRIGGER full_disk BEFORE INSERT ON messages WHEN (SELECT count(*) FROM messages) >= 1000
               BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
      const r = await runCli(['send', q, '--sqlite', path], { input: lines(1, 5000), timeoutMs: 60_000 });
      const err = oneLine(r);
      expect(r.code, err).toBe(1);
      expect(err).toMatch(/sent 1000 of 5000 messages.*--skip 1000\b/);
      const stored = (db.prepare('SELECT id FROM messages ORDER BY id').pluck().all() as bigint[]).map(String);
      expect(stored).toHaveLength(1000);
      expect(new Set(idsOf(r))).toEqual(new Set(stored));

      const atomic = await runCli(['send', q, '--sqlite', path, '--atomic', '--skip', '1000'], {
        input: lines(1, 5000),
        timeoutMs: 60_000,
      });
      expect(atomic.code, atomic.stderr).toBe(1);
      expect(oneLine(atomic)).toMatch(/nothing was sent/);
      expect(atomic.stdout).toBe('');
      expect(db.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(1000n);

      db.exec('DROP TRIGGER full_disk');
      const resumed = await runCli(['send', q, '--sqlite', path, '--skip', '1000'], { input: lines(1, 5000), timeoutMs: 60_000 });
      expect(resumed.stderr).toBe('');
      expect(resumed.code).toBe(0);
      const bodies = db.prepare('SELECT message FROM messages').pluck().all() as string[];
      expect(bodies.map(Number).sort((a, b) => a - b)).toEqual(lines(1, 5000).trim().split('\n').map(Number));
    } finally {
      db.close();
    }
  }, 120_000);
});

describe('--skip and --atomic as usage', () => {
  test('--skip beyond the input, a negative or fractional --skip, --skip with a body argument: exit 2, one line', async () => {
    const url = inject('pgUrl');
    const q = uniqueQueue();
    expect((await runCli(['create', q, '--url', url])).code).toBe(0);
    for (const [args, input, says] of [
      [['--skip', '3'], '1\n2\n3\n', /nothing to send after line 3/],
      [['--skip', '-1'], '1\n', /--skip/],
      [['--skip', '1.5'], '1\n', /--skip/],
      [['{}', '--skip', '1'], '', /--skip/],
    ] as const) {
      const r = await runCli(['send', q, ...args, '--url', url], { input });
      expect(r.code, r.stderr).toBe(2);
      expect(oneLine(r)).toMatch(says);
    }
    expect(await pgRows(q)).toHaveLength(0);
  });
});
