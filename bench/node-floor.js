// node bench/node-floor.js: how fast can ANY Node.js client make one pgmq.send round trip on
// this machine, against pgbench's libpq? (issue 13, item 18: the tester's send service p50 at
// 1 x 1 --rate 200 is ~1.6x pgbench's per-call latency, bar 1.2x.)
//
// Paired rounds at a fixed rate of BENCH_RATE (200) calls per second, one connection each,
// over TCP to 127.0.0.1, the same prepared statement and body:
//   pgbench   pgbench -c 1 -R RATE -M prepared, per-call latency = logged time - schedule lag
//   pg        node-postgres Client.query with a named statement (what the tester's pool does)
//   raw       the floor: the same connection's socket written with a Bind/Execute/Sync built
//             once, and resolved on ReadyForQuery; no parsing of rows, no library in the way.
// Every Node side paces itself with the same timer + short spin for the last millisecond, and
// times only the call. Environment: BENCH_SECONDS (5), BENCH_TRIALS (5), BENCH_RATE (200),
// BENCH_SIZE (256). Results: bench/results/<date>-node-floor.md.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPgServer } from './pg-server.js';

const BENCH = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const TRIALS = Number(process.env.BENCH_TRIALS ?? 5);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SIZE = Number(process.env.BENCH_SIZE ?? 256);
const log = (t) => process.stderr.write(`node-floor: ${t}\n`);
const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];

const { startPgServer, TEST_PG_PASSWORD } = await loadPgServer();
const pg = (await import('pg')).default;
const { serialize } = await import('pg-protocol');
const { initPgmq } = await import('../dist/backends/pgmq/install.js');

const server = await startPgServer();
process.on('exit', () => server.stop());
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await initPgmq(admin);
await admin.query("SELECT pgmq.create('floor')");

const body = JSON.stringify({ r: 'floor', p: 'x'.repeat(Math.max(0, SIZE - 20)) });
const TEXT = 'SELECT * FROM pgmq.send($1::text, $2::jsonb)';

/** Wait until `due` (performance.now() ms): a timer to 1 ms before, then a spin. */
async function until(due) {
  const early = due - performance.now() - 1;
  if (early > 0) await new Promise((r) => setTimeout(r, early));
  while (performance.now() < due) {
    /* spin the last millisecond */
  }
}

async function paced(call) {
  const n = SECONDS * RATE;
  const lat = [];
  const t0 = performance.now() + 10;
  for (let i = 0; i < n; i++) {
    await until(t0 + (i * 1000) / RATE);
    const s = performance.now();
    await call();
    lat.push(performance.now() - s);
  }
  return lat;
}

async function viaPg() {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  const q = () => c.query({ name: 'floor_send', text: TEXT, values: ['floor', body] });
  await q();
  try {
    return await paced(q);
  } finally {
    await c.end();
  }
}

async function viaRaw() {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  await c.query({ name: 'floor_send', text: TEXT, values: ['floor', body] });
  const stream = c.connection.stream;
  stream.removeAllListeners('data');
  const message = Buffer.concat([
    serialize.bind({ statement: 'floor_send', values: ['floor', body] }),
    serialize.execute({}),
    serialize.sync(),
  ]);
  let done = () => {};
  let tail = Buffer.alloc(0);
  stream.on('data', (chunk) => {
    // ReadyForQuery ('Z', length 5, status) ends every reply: the last 6 bytes of the chunk.
    tail = Buffer.concat([tail, chunk]).subarray(-6);
    if (tail[0] === 0x5a) done();
  });
  try {
    return await paced(
      () =>
        new Promise((r) => {
          done = r;
          tail = Buffer.alloc(0);
          stream.write(message);
        }),
    );
  } finally {
    c.on('error', () => {}); // the socket is closed under the client on purpose
    stream.destroy();
  }
}

function viaPgbench() {
  const dir = mkdtempSync(join(os.tmpdir(), 'smq-floor-'));
  try {
    writeFileSync(join(dir, 'send.sql'), 'SELECT * FROM pgmq.send(:queue::text, :body::jsonb);\n');
    execFileSync(
      'pgbench',
      [
        '-n',
        '-M',
        'prepared',
        '-c',
        '1',
        '-j',
        '1',
        '-R',
        String(RATE),
        '-T',
        String(SECONDS),
        '-l',
        '--log-prefix',
        join(dir, 'tx'),
        '-f',
        join(dir, 'send.sql'),
        '-D',
        'queue=floor',
        '-D',
        `body=${body}`,
        '-h',
        '127.0.0.1',
        '-p',
        String(server.port),
        '-U',
        os.userInfo().uid === 0 ? 'postgres' : os.userInfo().username,
        'smq_test',
      ],
      { encoding: 'utf8', env: { ...process.env, PGPASSWORD: TEST_PG_PASSWORD } },
    );
    const rows = readdirSync(dir)
      .filter((f) => f.startsWith('tx'))
      .flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n'))
      .map((l) => l.split(' ').map(Number));
    return rows.map((r) => (r[2] - r[6]) / 1000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

log(`warm-up, then ${TRIALS} paired rounds of ${SECONDS}s at ${RATE}/s`);
viaPgbench();
await viaPg();
await viaRaw();
const rounds = [];
for (let i = 0; i < TRIALS; i++) {
  const r = { pgbench: viaPgbench(), pg: await viaPg(), raw: await viaRaw() };
  await admin.query("SELECT pgmq.purge_queue('floor')");
  const line = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, { p50: p50(v), p90: pct(v, 0.9) }]));
  rounds.push(line);
  log(
    `round ${i + 1}: pgbench ${line.pgbench.p50.toFixed(3)} ms, pg ${line.pg.p50.toFixed(3)} ms, raw ${line.raw.p50.toFixed(3)} ms (p50 of the call)`,
  );
}
await admin.end();

const med = (f) => p50(rounds.map(f));
const text = [
  `# One pgmq.send round trip at ${RATE}/s, 1 connection: Node.js against pgbench, ${new Date().toISOString().slice(0, 16)}Z`,
  '',
  `- ${os.cpus()[0]?.model ?? '?'} × ${os.availableParallelism()}, ${process.platform} ${os.release()}, Node ${process.version}, ${execFileSync('pgbench', ['--version'], { encoding: 'utf8' }).trim()}`,
  `- ${TRIALS} paired rounds of ${SECONDS} s; the call's p50 and p90 per round, the median of rounds below`,
  '',
  '| client | call p50 (ms) | p90 (ms) | p50 / pgbench |',
  '|---|---:|---:|---:|',
  ...['pgbench', 'pg', 'raw'].map(
    (k) =>
      `| ${k} | ${med((r) => r[k].p50).toFixed(3)} | ${med((r) => r[k].p90).toFixed(3)} | ${med((r) => r[k].p50 / r.pgbench.p50).toFixed(2)} |`,
  ),
  '',
  `- per-round p50 ratios raw/pgbench: ${rounds.map((r) => (r.raw.p50 / r.pgbench.p50).toFixed(2)).join(', ')}; pg/pgbench: ${rounds.map((r) => (r.pg.p50 / r.pgbench.p50).toFixed(2)).join(', ')}`,
  '',
].join('\n');
mkdirSync(join(BENCH, 'results'), { recursive: true });
const file = join(BENCH, 'results', `${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}-node-floor.md`);
writeFileSync(file, text);
process.stdout.write(text);
log(`written to ${file}`);
process.exit(0);
