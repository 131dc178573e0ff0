// smq on a SmoothMQ file that other processes write to at the same time, in WAL mode:
// several `smq send` / `smq receive` / `smq peek` processes side by side with a second
// program (a child process on the built backend) that sends, receives, holds the write
// lock for a while and checkpoints the WAL. Nothing of SQLite's locking may reach the user
// (no SQLITE_BUSY, no "database is locked", every exit 0, stderr empty), no message is
// handed out twice (a long vt: every delivery in this test is a first one), every message
// sent is received exactly once, and the file passes PRAGMA integrity_check.
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO, ensureBuilt, ndjson, runCli, type CliResult } from '../helpers/run-cli.js';

const QUEUE = 'work';
/** How long the senders keep sending; receivers then drain what is left. */
const SEND_FOR_MS = 4000;
/** A lease far longer than the test: a message handed out twice would be a double-dequeue. */
const VT = '3600';

let dir: string;
let file: string;

// The second program: the built backend plus its own raw better-sqlite3 connection.
// It sends and receives in a loop, and now and then holds SQLite's write lock for a
// while (BEGIN IMMEDIATE ... sleep ... COMMIT) or checkpoints the WAL, as another
// process on the file (SmoothMQ itself, a backup job) may.
const PEER = `
const { backendUrl, sqliteUrl, path, queue, runMs, holdMs, tag } = JSON.parse(process.argv[2]);
const { openSqliteBackend } = await import(backendUrl);
const { default: Database } = await import(sqliteUrl);
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const sent = [];
const received = [];
const errors = [];
const backend = await openSqliteBackend(path, {});
const raw = new Database(path, { timeout: 10000 });
const until = Date.now() + runMs;
let round = 0;
while (Date.now() < until) {
  round += 1;
  try {
    const ids = await backend.sendBatch(queue, Array.from({ length: 5 }, (_, i) => ({ body: tag + '-' + round + '-' + i, headers: { peer: tag } })));
    for (const id of ids) sent.push(id.toString());
    for (const m of await backend.receive(queue, { qty: 6, vtSec: 3600 })) received.push(m.id.toString());
  } catch (e) {
    errors.push(String(e && e.message));
  }
  if (round % 7 === 0) {
    // Another program's long write transaction: smq must wait for it, not fail.
    raw.exec('BEGIN IMMEDIATE');
    raw.prepare('UPDATE queues SET rate_limit = rate_limit WHERE name = ?').run(queue);
    pause(holdMs);
    raw.exec('COMMIT');
  }
  pause(5);
  if (round % 11 === 0) {
    // Its own result does not matter (readers may keep it from finishing); smq's does.
    try { raw.pragma('wal_checkpoint(TRUNCATE)'); } catch {}
  }
}
raw.close();
await backend.close();
process.send({ sent, received, errors }, () => process.exit(0));
`;

// Holds the write lock (BEGIN IMMEDIATE) for holdMs, saying when it has it.
const HOLD = `
const { sqliteUrl, path, holdMs } = JSON.parse(process.argv[2]);
const { default: Database } = await import(sqliteUrl);
const db = new Database(path, { timeout: 10000 });
db.exec('BEGIN IMMEDIATE');
db.prepare("UPDATE queues SET rate_limit = rate_limit WHERE 0").run();
process.send('locked');
setTimeout(() => { db.exec('COMMIT'); db.close(); process.exit(0); }, holdMs);
`;

interface PeerResult {
  readonly sent: string[];
  readonly received: string[];
  readonly errors: string[];
}

function startPeer(script: string, tag: string, runMs: number): { child: ChildProcess; done: Promise<PeerResult> } {
  const config = {
    backendUrl: pathToFileURL(join(REPO, 'dist', 'backends', 'sqlite', 'backend.js')).href,
    // The script lives in a temp folder: hand it the project's better-sqlite3.
    sqliteUrl: pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href,
    path: file,
    queue: QUEUE,
    runMs,
    holdMs: 400,
    tag,
  };
  const child = fork(script, [JSON.stringify(config)], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<PeerResult>((resolve, reject) => {
    child.on('message', (m) => resolve(m as PeerResult));
    child.on('exit', (code) => reject(new Error(`peer ${tag} exited with ${code} before reporting: ${stderr}`)));
    child.on('error', reject);
  });
  return { child, done };
}

/** Every smq run of the test, for the checks at the end. */
const runs: { args: string[]; result: CliResult }[] = [];

async function smq(args: string[], input?: string): Promise<CliResult> {
  const full = [...args, '--sqlite', file];
  const result = await runCli(full, { ...(input === undefined ? {} : { input }), timeoutMs: 60_000 });
  runs.push({ args: full, result });
  return result;
}

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'smq-contention-'));
  file = join(dir, 'smoothmq.db');
  writeFileSync(join(dir, 'peer.mjs'), PEER);
  writeFileSync(join(dir, 'hold.mjs'), HOLD);
  for (const args of [['init'], ['create', QUEUE]]) {
    const r = await smq(args);
    expect(r.code, r.stderr).toBe(0);
  }
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('SQLite contention: smq beside other writers on one WAL file', () => {
  test('concurrent senders, receivers and readers across processes', async () => {
    const peerScript = join(dir, 'peer.mjs');
    const started = Date.now();
    const sending = () => Date.now() - started < SEND_FOR_MS;

    const sentByCli: string[] = [];
    const receivedByCli: string[][] = [];

    const sender = async (k: number) => {
      for (let round = 0; sending(); round++) {
        const lines = Array.from({ length: 40 }, (_, i) => `cli${k}-${round}-${i}`).join('\n') + '\n';
        const r = await smq(['send', QUEUE, '--header', `sender=${k}`], lines);
        if (r.code === 0) sentByCli.push(...ndjson(r.stdout).map((x) => String(x['id'])));
      }
      // One more, single message from the argument (a different code path: send, not sendBatch).
      const r = await smq(['send', QUEUE, `cli${k}-last`, '--header', `sender=${k}`]);
      if (r.code === 0) sentByCli.push(...ndjson(r.stdout).map((x) => String(x['id'])));
    };

    let sendersDone = false;
    let sendsDoneAt = 0;
    const receiver = async (k: number) => {
      const got: string[] = [];
      receivedByCli[k] = got;
      let emptyAfterSenders = 0;
      while (emptyAfterSenders < 2) {
        // Small claims while the others write; big ones to drain what is left.
        const qty = sendersDone ? 50 : 5 + k * 3;
        const r = await smq(['receive', QUEUE, '--qty', String(qty), '--vt', VT]);
        const ids = r.code === 0 ? ndjson(r.stdout).map((x) => String(x['id'])) : [];
        got.push(...ids);
        if (r.code !== 0) break; // reported by the checks below
        if (ids.length === 0 && sendersDone) emptyAfterSenders += 1;
        else if (ids.length > 0) emptyAfterSenders = 0;
      }
    };

    const reader = async () => {
      while (!sendersDone) {
        await smq(['peek', QUEUE, '--limit', '5', '--state', 'ready']);
        await smq(['queues', '--json']);
      }
    };

    const peers = [startPeer(peerScript, 'peerA', SEND_FOR_MS), startPeer(peerScript, 'peerB', SEND_FOR_MS)];
    try {
      const receivers = [receiver(0), receiver(1)];
      const readers = reader();
      await Promise.all([sender(0), sender(1), ...peers.map((p) => p.done)]);
      sendersDone = true;
      sendsDoneAt = Date.now();
      await Promise.all([...receivers, readers]);
    } finally {
      for (const p of peers) p.child.kill();
    }
    const peerResults = await Promise.all(peers.map((p) => p.done));

    console.log(
      `contention: ${runs.length} smq runs, ${sentByCli.length} sent by smq, ${receivedByCli.flat().length} received by smq, ` +
        peerResults.map((p) => `${p.sent.length}/${p.received.length} sent/received by a peer`).join(', ') +
        `, ${Date.now() - started} ms; slowest smq runs: ${runs
          .map((r) => Math.round(r.result.ms))
          .sort((a, b) => b - a)
          .slice(0, 5)
          .join(', ')} ms; sends done at ${sendsDoneAt - started} ms`,
    );
    // Nothing of SQLite's locking reached anyone.
    const failures = runs.filter((r) => r.result.code !== 0 || r.result.stderr !== '');
    expect(
      failures.map((f) => `smq ${f.args.join(' ')} -> ${f.result.code}: ${f.result.stderr}`),
      'smq runs that failed or wrote to stderr',
    ).toEqual([]);
    for (const r of runs) expect(r.result.stdout + r.result.stderr).not.toMatch(/SQLITE_BUSY|database is locked|locked/i);
    expect(
      peerResults.flatMap((p) => p.errors),
      'errors seen by the backend in the other process',
    ).toEqual([]);

    // They really overlapped: several smq runs of each kind, and both peers worked.
    expect(runs.filter((r) => r.args[0] === 'send').length).toBeGreaterThanOrEqual(4);
    expect(runs.filter((r) => r.args[0] === 'receive').length).toBeGreaterThanOrEqual(4);
    for (const p of peerResults) expect(p.sent.length).toBeGreaterThan(0);

    // Every message sent was received exactly once, by someone.
    const sent = [...sentByCli, ...peerResults.flatMap((p) => p.sent)];
    const received = [...receivedByCli.flat(), ...peerResults.flatMap((p) => p.received)];
    expect(new Set(sent).size, 'ids handed out by two senders').toBe(sent.length);
    const seen = new Map<string, number>();
    for (const id of received) seen.set(id, (seen.get(id) ?? 0) + 1);
    const twice = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
    expect(twice, 'messages received twice while their lease was valid').toEqual([]);
    expect(new Set(received)).toEqual(new Set(sent));

    // The file agrees, and is sound.
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      db.defaultSafeIntegers(true);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(Number(db.prepare('SELECT count(*) FROM messages').pluck().get())).toBe(sent.length);
      expect(db.prepare('SELECT DISTINCT tries FROM messages').pluck().all()).toEqual([1n]);
      // Each message's attribute rows (name + name_DataType) arrived with it.
      expect(Number(db.prepare('SELECT count(*) FROM kvs').pluck().get())).toBe(2 * sent.length);
    } finally {
      db.close();
    }
  }, 120_000);

  test('a write lock held longer than the busy timeout: one clear line, exit 1, nothing changed; readers go on', async () => {
    const before = await smq(['peek', QUEUE, '--json', '--limit', '1000']);
    expect(before.code).toBe(0);
    // Another program takes the write lock and keeps it past smq's busy timeout (5 s).
    const holder = fork(
      join(dir, 'hold.mjs'),
      [
        JSON.stringify({
          sqliteUrl: pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href,
          path: file,
          // Past the peek and the send's 5 s wait also on a loaded machine (killed after them).
          holdMs: 30_000,
        }),
      ],
      { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.on('message', () => resolve());
        holder.on('exit', (code) => reject(new Error(`lock holder exited early (${code})`)));
      });
      // Readers are not blocked by a writer in WAL mode.
      const peek = await smq(['peek', QUEUE, '--limit', '1']);
      expect(peek.code, peek.stderr).toBe(0);
      expect(peek.ms, 'a peek that waited for the lock would take the 5 s busy timeout').toBeLessThan(4500);

      const send = await smq(['send', QUEUE, 'blocked']);
      expect(send.code).toBe(1);
      expect(send.stdout).toBe('');
      expect(send.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(send.stderr).toMatch(/^smq: .*stayed locked by another connection for over 5 s: try again/);
      expect(send.stderr).not.toMatch(/SQLITE_BUSY| {4}at /);
      expect(send.ms).toBeGreaterThanOrEqual(4900);
    } finally {
      holder.kill();
    }
    const after = await smq(['peek', QUEUE, '--json', '--limit', '1000']);
    expect(after.stdout).toBe(before.stdout);
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  }, 60_000);
});
