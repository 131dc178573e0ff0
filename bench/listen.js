// smq tester --listen against --read poll and plain polling: end-to-end latency at a low,
// steady rate (50 msg/s for ~20 s, 1 sender, 2 receivers), the tester's own runs (dist/).
// Paired rounds: each round runs the three modes back to back, in a rotated order (a slow
// spell of the shared host falls on all alike); per mode the median over rounds of the run's
// end-to-end p50 and p99 (ms, from the intended send time), and the empty reads per second.
// On a throwaway PostgreSQL with smq's compat schema, and on real pgmq 1.13.0 installed from
// its SQL file when SMQ_TEST_PGMQ_DIR names the folder (an oracle, never copied).
//   npm run build && node bench/listen.js [ROUNDS] [SECONDS]
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { loadPgServer } from './pg-server.js';

const ROUNDS = Number(process.argv[2] ?? 3);
const SECONDS = Number(process.argv[3] ?? 20);
const RATE = 50;
const log = (m) => process.stderr.write(`${m}\n`);

const { startPgServer } = await loadPgServer();
const { initPgmq } = await import('../dist/backends/pgmq/install.js');
const { TesterRun } = await import('../dist/tester/index.js');
const pg = (await import('pg')).default;

const MODES = {
  listen: { listen: true },
  'read-poll': { read: 'poll' },
  polling: {},
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function onePass(url, mode) {
  const report = await new TesterRun({
    target: { kind: 'pgmq', url },
    senders: 1,
    receivers: 2,
    durationMs: SECONDS * 1000,
    sizeBytes: 200,
    batch: 1,
    vtSec: 30,
    ratePerSec: RATE,
    warmupMs: 2000,
    keep: false,
    ack: 'delete',
    drainTimeoutMs: 5000,
    dequeue: 'safe',
    connectTimeoutMs: 5000,
    ...MODES[mode],
  }).run();
  if (report.verdict !== 'clean') throw new Error(`${mode}: verdict ${report.verdict}`);
  const e = report.latency.endToEnd;
  return { p50: e.p50, p99: e.p99, emptyPerSec: report.calls.receiveEmpty / (report.durationMs / 1000) };
}

async function store(label, url) {
  const names = Object.keys(MODES);
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const mode of order) {
      const x = await onePass(url, mode);
      runs[mode].push(x);
      log(
        `${label} round ${r + 1} ${mode}: p50 ${x.p50.toFixed(2)} ms, p99 ${x.p99.toFixed(2)} ms, ${x.emptyPerSec.toFixed(1)} empty reads/s`,
      );
    }
  }
  const out = {};
  for (const n of names) {
    out[n] = {
      p50Ms: +median(runs[n].map((x) => x.p50)).toFixed(2),
      p99Ms: +median(runs[n].map((x) => x.p99)).toFixed(2),
      emptyReadsPerSec: +median(runs[n].map((x) => x.emptyPerSec)).toFixed(1),
    };
  }
  return out;
}

log('starting a throwaway PostgreSQL');
const server = await startPgServer();
process.on('exit', () => server.stop());
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await initPgmq(admin);
const version = (await admin.query('SHOW server_version')).rows[0].server_version;

const results = { compat: await store('compat', server.url) };
const dir = process.env['SMQ_TEST_PGMQ_DIR'];
if (dir) {
  await admin.query('CREATE DATABASE bench_pgmq_113');
  const u = new URL(server.url);
  u.pathname = '/bench_pgmq_113';
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  await c.query(readFileSync(join(dir, '1.13.0', 'pgmq.sql'), 'utf8'));
  await c.end();
  results['pgmq 1.13.0'] = await store('pgmq 1.13.0', u.toString());
}
await admin.end();
process.stdout.write(
  JSON.stringify(
    {
      date: new Date().toISOString(),
      rate: RATE,
      seconds: SECONDS,
      rounds: ROUNDS,
      senders: 1,
      receivers: 2,
      postgres: version,
      node: process.version,
      cpu: `${os.cpus()[0]?.model ?? '?'} × ${os.availableParallelism()}`,
      loadavg: os.loadavg().map((x) => +x.toFixed(2)),
      results,
    },
    null,
    2,
  ) + '\n',
);
process.exit(0);
