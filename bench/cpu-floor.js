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
// and, on the cycle, the steps from that floor up to the tester (each in this one process):
//   lean      the tester's connection (src/backends/pgmq/wire.ts): pg-protocol's serializer and
//             parser, a promise per call, rows typed as through a pg.Pool; 8 awaited loops
//   backend   the Backend contract over the same connections (openBackend, dedicated): the
//             names checked, the options validated, rows made Messages; 8 awaited loops
//   shape     4 senders + 4 receivers on the Backend under a backlog of 32, each receiver's
//             delete pipelined behind its next receive, nothing recorded: the 4 + 4 shape alone
//   loops     the tester's own sender and receiver loops (src/tester/loops), 4 + 4 under a
//             backlog of 32 as bench/run.js runs them, recording everything the checker and
//             the report need (no worker thread, no checker: those are the tester's alone)
//   tester    `smq tester --senders 4 --receivers 4 --max-backlog 32`, the real binary in a process
//             of its own: its worker thread, its checker and live view on the main thread, V8's
//             threads; its steady CPU per message (report.tester.steadyCpu), after its own
//             warm-up (BENCH_TESTER_WARMUP, 6 s), as bench/run.js's targets measure it
// Workloads: `send` (pgmq.send alone) and `cycle` (send, read 1, delete it; pgbench's cycle).
// Environment: BENCH_SECONDS (5), BENCH_TRIALS (5), BENCH_SIZE (256).
// Results: bench/results/<date>-cpu-floor.md.
import { execFile, execFileSync } from 'node:child_process';
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
// Every client reads the columns this pgmq has, as the tester does (its Backend finds them).
const { openBackend } = await import('../dist/backends/index.js');
const probe = await openBackend({ kind: 'pgmq', url: server.url });
const COLUMNS = probe.columns;
await probe.close();
const SEND = sql.sendQuery(Q, body, undefined, 0, COLUMNS);
const READ = sql.readQuery(Q, 30, 1, COLUMNS);
const DELETE = sql.deleteQuery(Q, [0n]);

// ---- pgbench ----------------------------------------------------------------------------
const literal = (v) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
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
  Buffer.concat([
    serialize.bind({ statement: q.name, values: values.map((v) => (v === null ? null : String(v))) }),
    serialize.execute({}),
    serialize.sync(),
  ]);
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

// ---- the steps up to the tester, on the cycle -------------------------------------------
const { WireConnection } = await import('../dist/backends/pgmq/wire.js');
const { ownReadsSocket } = await import('../dist/backends/pgmq/wire-socket.js');
const { loopContext } = await import('../dist/tester/loops/context.js');
const { runSender } = await import('../dist/tester/loops/sender.js');
const { runReceiver } = await import('../dist/tester/loops/receiver.js');
const { Recorder } = await import('../dist/tester/recorder.js');
const { newBacklogCells } = await import('../dist/tester/backlog.js');
const { monoUs } = await import('../dist/tester/clock.js');

/** CPU (user + system µs) of this process while `run(stopAt)` runs its loops; they return the cycles done. */
async function timed(run) {
  const cpu0 = process.cpuUsage();
  const tx = await run(performance.now() + SECONDS * 1000);
  const cpu = process.cpuUsage(cpu0);
  return { tx, cpuUs: cpu.user + cpu.system };
}

const backends = [];
for (let i = 0; i < CLIENTS; i++) backends.push(await openBackend({ kind: 'pgmq', url: server.url }, { dedicated: true }));
const leanConnections = [];
for (let i = 0; i < CLIENTS; i++)
  leanConnections.push(await WireConnection.open({ connectionString: server.url, stream: ownReadsSocket }, undefined, 100));
const lean = () =>
  timed(async (stopAt) => {
    let cycles = 0;
    const send = sql.sendQuery(Q, body, undefined, 0, COLUMNS);
    const read = sql.readQuery(Q, 30, 1, COLUMNS);
    await Promise.all(
      leanConnections.map(async (c) => {
        while (performance.now() < stopAt) {
          await c.query(send);
          const { rows } = await c.query(read);
          await c.query(
            sql.deleteQuery(
              Q,
              rows.map((r) => BigInt(r.msg_id)),
            ),
          );
          cycles++;
        }
      }),
    );
    return cycles;
  });

const backend = () =>
  timed(async (stopAt) => {
    let cycles = 0;
    await Promise.all(
      backends.map(async (b) => {
        while (performance.now() < stopAt) {
          await b.send(Q, { body });
          const got = await b.receive(Q, { qty: 1, vtSec: 30 });
          await b.delete(
            Q,
            got.map((m) => m.id),
          );
          cycles++;
        }
      }),
    );
    return cycles;
  });

const HALF = CLIENTS / 2;
/**
 * The 4 + 4 shape alone: 4 senders and 4 receivers on the Backend, closed under a backlog of
 * 32 (a counter; waiting senders woken when it falls to 16, as the tester's gate does), each
 * receiver's delete sent behind its next receive, as the tester's are; nothing recorded, no
 * watch over calls. Between `backend` and `loops`: what the shape costs, apart from the loops.
 */
const shape = () =>
  timed(async (stopAt) => {
    let backlog = 0;
    let received = 0;
    let waiting = [];
    const wakeAll = () => {
      const w = waiting;
      waiting = [];
      for (const resolve of w) resolve();
    };
    const sender = async (b) => {
      while (performance.now() < stopAt) {
        if (backlog >= 32) {
          await new Promise((resolve) => waiting.push(resolve));
          continue;
        }
        backlog += 1;
        await b.send(Q, { body });
      }
    };
    const receiver = async (b) => {
      let ack;
      while (performance.now() < stopAt) {
        const next = b.receive(Q, { qty: 1, vtSec: 30 });
        if (ack) await ack;
        const got = await next;
        ack = undefined;
        if (got.length === 0) {
          await new Promise((resolve) => setTimeout(resolve, 1));
          continue;
        }
        received += got.length;
        backlog -= got.length;
        if (backlog <= 16) wakeAll();
        ack = b.delete(
          Q,
          got.map((m) => m.id),
        );
      }
      if (ack) await ack;
    };
    const senders = backends.slice(0, HALF).map(sender);
    await Promise.all(backends.slice(HALF).map(receiver));
    const timer = setInterval(wakeAll, 5);
    await Promise.all(senders);
    clearInterval(timer);
    return received;
  });
const loops = () =>
  timed(async (stopAt) => {
    const cells = newBacklogCells();
    const runId = `cpu-floor-${Date.now()}`;
    const context = (role) => {
      const recorder = new Recorder(() => {});
      recorder.start(monoUs(), 0);
      return loopContext(
        {
          role,
          indices: Array.from({ length: HALF }, (_, i) => i),
          sharesThread: true,
          target: { kind: 'pgmq', url: server.url },
          open: { dedicated: true },
          queue: Q,
          runId,
          sizeBytes: SIZE,
          batch: 1,
          vtSec: 30,
          ack: 'delete',
          dequeue: 'safe',
          naivePauseMs: 0,
          groups: 0,
          read: 'plain',
          pollSec: undefined,
          listen: undefined,
          ackDelayMs: 0,
          receiveByRunId: false,
          messages: undefined,
          durationMs: undefined,
          ratePerSec: 0,
          backlog: { cells, max: 32, stuckMs: 10_000 },
          warmupMs: 0,
          outageTimeoutMs: 30_000,
          faults: {},
          writeOutage: new SharedArrayBuffer(8),
        },
        recorder,
      );
    };
    const senders = context('sender');
    const receivers = context('receiver');
    // As a worker thread does: a report to the main thread every 100 ms (here it goes nowhere).
    const flush = setInterval(() => {
      senders.recorder.progress(false, 0);
      receivers.recorder.progress(false, 0);
    }, 100);
    const running = [
      ...backends.slice(0, HALF).map((b, i) => runSender(senders, i, b)),
      ...backends.slice(HALF).map((b, i) => runReceiver(receivers, i, b)),
    ];
    await new Promise((resolve) => setTimeout(resolve, stopAt - performance.now()));
    const received = receivers.recorder.totals.received;
    senders.stop.stop();
    receivers.stop.stop();
    await Promise.all(running);
    clearInterval(flush);
    return received;
  });
const TESTER_WARMUP = Number(process.env.BENCH_TESTER_WARMUP ?? 6);
const tester = async () => {
  const args = ['--url', server.url, '--senders', String(HALF), '--receivers', String(HALF)];
  args.push('--max-backlog', '32', '--size', String(SIZE), '--batch', '1', '--drain-timeout', '5s');
  args.push('--duration', `${SECONDS + TESTER_WARMUP}s`, '--warmup', `${TESTER_WARMUP}s`, '--json');
  const out = await new Promise((resolve, reject) =>
    execFile(process.execPath, [join(BENCH, '..', 'bin', 'smq.js'), 'tester', ...args], { maxBuffer: 1 << 26 }, (e, stdout) =>
      e && e.code !== 1 ? reject(e) : resolve(stdout),
    ),
  );
  const steady = JSON.parse(out).tester.steadyCpu;
  return { tx: steady.messages, cpuUs: steady.cpuUsPerMessage * steady.messages, seconds: steady.seconds };
};
const STEPS = { lean, backend, shape, loops, tester };

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
  const steps = workload === 'cycle' ? Object.entries(STEPS) : [];
  for (const [, step] of steps) {
    await reset();
    await step(); // warm-up: V8 compiles each step's path before it is measured
  }
  const rounds = [];
  for (let i = 0; i < TRIALS; i++) {
    await reset();
    const b = pgbench(workload);
    await reset();
    const r = await raw(workload, streams);
    const round = { pgbenchUs: b.cpuUs / b.tx, rawUs: r.cpuUs / r.tx, pgbenchTps: b.tx / SECONDS, rawTps: r.tx / SECONDS, steps: {} };
    for (const [name, step] of steps) {
      await reset();
      const x = await step();
      round.steps[name] = { us: x.cpuUs / x.tx, tps: x.tx / (x.seconds ?? SECONDS) };
      log(
        `${workload} round ${i + 1}: ${name} ${round.steps[name].us.toFixed(1)} µs per cycle (${(round.steps[name].us / round.pgbenchUs).toFixed(2)}x pgbench), ${Math.round(round.steps[name].tps)} per s`,
      );
    }
    rounds.push(round);
    log(
      `${workload} round ${i + 1}: client CPU per ${workload === 'cycle' ? 'cycle' : 'send'}: pgbench ${round.pgbenchUs.toFixed(1)} µs, raw Node ${round.rawUs.toFixed(1)} µs (${(round.rawUs / round.pgbenchUs).toFixed(2)}x); ${Math.round(round.pgbenchTps)} / ${Math.round(round.rawTps)} per s`,
    );
  }
  results[workload] = rounds;
}
for (const s of streams) s.destroy();
await Promise.all([...leanConnections.map((c) => c.end()), ...backends.map((b) => b.close())]);
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
  'From the floor up to the tester, on the cycle (CPU per cycle, in this process; the tester loops: per message received):',
  '',
  '| client | CPU per cycle (µs) | / pgbench (median of rounds) | per round | cycles per second |',
  '|---|---:|---:|---|---:|',
  ...[
    ['raw', 'raw socket (the floor)'],
    ['lean', "the tester's connection (wire.ts)"],
    ['backend', 'the Backend contract on it'],
    ['shape', '4 + 4 on the Backend, backlog 32, nothing recorded'],
    ['loops', "the tester's loops, 4 + 4, recording"],
    ['tester', '`smq tester`, 4 + 4 (steady state)'],
  ].map(([name, label]) => {
    const r = results.cycle;
    const us = (x) => (name === 'raw' ? x.rawUs : x.steps[name].us);
    const tps = (x) => (name === 'raw' ? x.rawTps : x.steps[name].tps);
    return `| ${label} | ${median(r.map(us)).toFixed(1)} | **${median(r.map((x) => us(x) / x.pgbenchUs)).toFixed(2)}** | ${r.map((x) => (us(x) / x.pgbenchUs).toFixed(2)).join(', ')} | ${Math.round(median(r.map(tps)))} |`;
  }),
  '',
].join('\n');
mkdirSync(join(BENCH, 'results'), { recursive: true });
const file = join(BENCH, 'results', `${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}-cpu-floor.md`);
writeFileSync(file, text);
process.stdout.write(text);
log(`written to ${file}`);
process.exit(0);
