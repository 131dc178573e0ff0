// node bench/cpu-floor.js (after npm run build): how little client CPU can ANY Node.js client
// spend per pgmq call on this machine, against pgbench's libpq? (issue 14: the tester's CPU
// per message on the send → read → delete cycle is ~3x pgbench's client CPU per cycle, bar 1.5x.)
//
// Paired rounds, closed loops on 8 connections to 127.0.0.1 over TCP, the tester's own
// statements (src/backends/pgmq/sql.ts) prepared once per connection:
//   pgbench   pgbench -c 8 -j 8 -M prepared, the same scripts as bench/run.js; CPU from sh's `times`
//   raw       the floor: one Node thread drives the 8 sockets itself; each call is a Bind/Execute/
//             Sync written straight to the socket, its reply scanned for ReadyForQuery and, for
//             the read, the first column of its row (the id to delete). No library, no promise,
//             no histogram, no checker: what no Node client can go below. CPU from cpuUsage().
// Workloads: `send` (pgmq.send alone) and `cycle` (send, read 1, delete it; pgbench's cycle).
// Environment: BENCH_SECONDS (5), BENCH_TRIALS (5), BENCH_SIZE (256).
// Results: bench/results/<date>-cpu-floor.md.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPgServer } from './pg-server.js';

const BENCH = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const TRIALS = Number(process.env.BENCH_TRIALS ?? 5);
const SIZE = Number(process.env.BENCH_SIZE ?? 256);
const CLIENTS = 8;
const log = (t) => process.stderr.write(`cpu-floor: ${t}\n`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const { startPgServer, TEST_PG_PASSWORD } = await loadPgServer();
const pg = (await import('pg')).default;
const { serialize } = await import('pg-protocol');
const { initPgmq } = await import('../dist/backends/pgmq/install.js');
const sql = await import('../dist/backends/pgmq/sql.js');

const server = await startPgServer();
process.on('exit', () => server.stop());
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await initPgmq(admin);
const Q = 'floor_cpu';
await admin.query('SELECT pgmq.create($1)', [Q]);

const body = JSON.stringify({ r: 'floor', p: 'x'.repeat(Math.max(0, SIZE - 20)) });
const SEND = sql.sendQuery(Q, body, undefined, 0, {});
const READ = sql.readQuery(Q, 30, 1, {});
const DELETE = sql.deleteQuery(Q, [0n]);

// ---- pgbench ----------------------------------------------------------------------------
const literal = (v) => (typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
const inline = (q, overrides) => q.text.replace(/\$(\d+)/g, (_, n) => overrides[n] ?? literal(q.values[Number(n) - 1]));
const dir = mkdtempSync(join(os.tmpdir(), 'smq-cpu-floor-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const sendSql = `${inline(SEND, { 1: ':queue', 2: ':body' })};\n`;
const scripts = {
  send: join(dir, 'send.sql'),
  cycle: join(dir, 'cycle.sql'),
};
writeFileSync(scripts.send, sendSql);
writeFileSync(
  scripts.cycle,
  '\\set msg_id -1\n' +
    sendSql +
    `${inline(READ, { 1: ':queue' })} \\aset\n` +
    `${inline(DELETE, { 1: ':queue', 2: 'ARRAY[:msg_id]' })};\n`,
);

/** pgbench's transactions and its own CPU (user + system µs) for one run. */
function pgbench(workload) {
  const args = ['-n', '-M', 'prepared', '-c', String(CLIENTS), '-j', String(CLIENTS), '-T', String(SECONDS)];
  args.push('-f', scripts[workload], '-D', `queue=${Q}`, '-D', `body=${body}`, '-h', '127.0.0.1', '-p', String(server.port));
  args.push('-U', os.userInfo().uid === 0 ? 'postgres' : os.userInfo().username, 'smq_test');
  const out = execFileSync('sh', ['-c', '"$@"; s=$?; times; exit $s', 'sh', 'pgbench', ...args], {
    encoding: 'utf8',
    env: { ...process.env, PGPASSWORD: TEST_PG_PASSWORD },
  });
  const tx = Number(/number of transactions actually processed: (\d+)/.exec(out)?.[1]);
  const t = [...out.matchAll(/(\d+)m([\d.]+)s (\d+)m([\d.]+)s/g)].at(-1);
  const cpuUs = ((Number(t[1]) + Number(t[3])) * 60 + Number(t[2]) + Number(t[4])) * 1e6;
  return { tx, cpuUs };
}

// ---- the raw Node floor -----------------------------------------------------------------
const bindOf = (q, values) =>
  Buffer.concat([serialize.bind({ statement: q.name, values: values.map(String) }), serialize.execute({}), serialize.sync()]);
const arrayText = (id) => `{${id}}`;

async function rawConnection() {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  for (const q of [SEND, READ, DELETE])
    await c.query({ name: q.name, text: q.text, values: q.values.map((v) => (Array.isArray(v) ? arrayText(-1) : v)) });
  const stream = c.connection.stream;
  stream.removeAllListeners('data');
  c.on('error', () => {}); // the socket is closed under the client on purpose
  return stream;
}

/**
 * One closed loop per socket: send (and, for the cycle, read then delete), then again, until
 * `stopAt`. A reply is complete at ReadyForQuery; a read's first DataRow gives the id.
 */
function drive(stream, workload, stopAt, counts) {
  const sendMsg = bindOf(SEND, SEND.values);
  const readMsg = bindOf(READ, READ.values);
  let step = 0; // 0 send, 1 read, 2 delete
  let id = null;
  let pending = Buffer.alloc(0);
  return new Promise((resolve) => {
    const next = () => {
      if (step === 0 && performance.now() >= stopAt) {
        stream.removeAllListeners('data');
        resolve();
        return;
      }
      if (step === 0) stream.write(sendMsg);
      else if (step === 1) stream.write(readMsg);
      else stream.write(bindOf(DELETE, [Q, arrayText(id ?? -1)]));
    };
    stream.on('data', (chunk) => {
      let buf = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      let off = 0;
      while (buf.length - off >= 5) {
        const len = buf.readInt32BE(off + 1);
        if (buf.length - off < len + 1) break;
        const type = buf[off];
        if (type === 0x44 && step === 1) {
          // DataRow: int16 columns, then int32 length + text of the first column (msg_id).
          const l = buf.readInt32BE(off + 7);
          id = l < 0 ? null : buf.toString('latin1', off + 11, off + 11 + l);
        } else if (type === 0x45) {
          throw new Error(`server error: ${buf.toString('utf8', off + 5, off + 1 + len)}`);
        } else if (type === 0x5a) {
          if (step === 0) counts.sent++;
          if (workload === 'cycle') step = (step + 1) % 3;
          if (step === 0 && workload === 'cycle') counts.cycles++;
          if (step === 1) id = null;
          off += len + 1;
          next();
          continue;
        }
        off += len + 1;
      }
      pending = off < buf.length ? buf.subarray(off) : Buffer.alloc(0);
    });
    next();
  });
}

async function raw(workload, streams) {
  const counts = { sent: 0, cycles: 0 };
  const cpu0 = process.cpuUsage();
  const stopAt = performance.now() + SECONDS * 1000;
  await Promise.all(streams.map((s) => drive(s, workload, stopAt, counts)));
  const cpu = process.cpuUsage(cpu0);
  return { tx: workload === 'cycle' ? counts.cycles : counts.sent, cpuUs: cpu.user + cpu.system };
}

// ---- paired rounds ------------------------------------------------------------------------
const streams = [];
for (let i = 0; i < CLIENTS; i++) streams.push(await rawConnection());
const reset = () => admin.query('SELECT pgmq.purge_queue($1)', [Q]).then(() => admin.query(`VACUUM pgmq.q_${Q}`));

log(`warm-up, then ${TRIALS} paired rounds of ${SECONDS} s per workload, ${CLIENTS} connections a side`);
const results = {};
for (const workload of ['send', 'cycle']) {
  await reset();
  pgbench(workload);
  await raw(workload, streams);
  const rounds = [];
  for (let i = 0; i < TRIALS; i++) {
    await reset();
    const b = pgbench(workload);
    await reset();
    const r = await raw(workload, streams);
    const round = { pgbenchUs: b.cpuUs / b.tx, rawUs: r.cpuUs / r.tx, pgbenchTps: b.tx / SECONDS, rawTps: r.tx / SECONDS };
    rounds.push(round);
    log(
      `${workload} round ${i + 1}: client CPU per ${workload === 'cycle' ? 'cycle' : 'send'}: pgbench ${round.pgbenchUs.toFixed(1)} µs, raw Node ${round.rawUs.toFixed(1)} µs (${(round.rawUs / round.pgbenchUs).toFixed(2)}x); ${Math.round(round.pgbenchTps)} / ${Math.round(round.rawTps)} per s`,
    );
  }
  results[workload] = rounds;
}
for (const s of streams) s.destroy();
await admin.end();

const row = (workload, label) => {
  const r = results[workload];
  return `| ${label} | ${median(r.map((x) => x.pgbenchUs)).toFixed(1)} | ${median(r.map((x) => x.rawUs)).toFixed(1)} | **${median(r.map((x) => x.rawUs / x.pgbenchUs)).toFixed(2)}** | ${r.map((x) => (x.rawUs / x.pgbenchUs).toFixed(2)).join(', ')} | ${Math.round(median(r.map((x) => x.pgbenchTps)))} / ${Math.round(median(r.map((x) => x.rawTps)))} |`;
};
const text = [
  `# Client CPU per call: the floor of a Node.js client against pgbench, ${new Date().toISOString().slice(0, 16)}Z`,
  '',
  `- ${os.cpus()[0]?.model ?? '?'} × ${os.availableParallelism()}, ${process.platform} ${os.release()}, Node ${process.version}, ${execFileSync('pgbench', ['--version'], { encoding: 'utf8' }).trim()}, smq's compat schema`,
  `- ${TRIALS} paired rounds of ${SECONDS} s, ${CLIENTS} connections a side, closed loops; load average at the end: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
  '',
  '| workload | pgbench client CPU (µs) | raw Node client CPU (µs) | ratio (median of rounds) | per round | per second, pgbench / raw |',
  '|---|---:|---:|---:|---|---:|',
  row('send', '`pgmq.send`, per send'),
  row('cycle', 'send → read → delete, per cycle'),
  '',
].join('\n');
mkdirSync(join(BENCH, 'results'), { recursive: true });
const file = join(BENCH, 'results', `${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}-cpu-floor.md`);
writeFileSync(file, text);
process.stdout.write(text);
log(`written to ${file}`);
process.exit(0);
