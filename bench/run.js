#!/usr/bin/env node
// npm run bench: smq tester against pgbench on one throwaway PostgreSQL, the tester on
// SQLite, and the checker's memory per message. Writes bench/results/<date>.md with the
// environment (versions, PostgreSQL settings) beside the numbers.
//
// Same SQL on both sides: pgbench runs pgmq.send alone, and a send -> read -> delete cycle
// (three statements, like a tester sender plus receiver), at 8 clients; the tester runs 8
// senders (send only), then senders and receivers in a closed loop (--max-backlog), 8 + 8 and
// 4 + 4. (A tester receiver pipelines its delete with its next read: the same statements,
// fewer writes.) pgbench and the tester
// run in BENCH_TRIALS interleaved rounds of BENCH_SECONDS each (after warm-ups that are thrown
// away); a ratio is the median of the rounds' paired ratios.
//
// Latency at a fixed rate: 1 sender at --rate BENCH_RATE against pgbench -c 1 -R BENCH_RATE,
// the same statement, in paired rounds: the tester's send service time against pgbench's
// per-call latency, and its corrected send latency (from the due time) against pgbench's
// latency including its schedule lag (both from pgbench's per-transaction log).
//
// Environment: BENCH_SECONDS (default 10), BENCH_TRIALS (5), BENCH_CLIENTS (8),
// BENCH_SIZE (body bytes, 256), BENCH_RATE (200), SMQ_PG_BIN (PostgreSQL binaries),
// BENCH_ONLY=rate (only the fixed-rate latency comparison), BENCH_ONLY=targets (only the
// issue-14 targets, about 7 minutes), BENCH_TESTER_WARMUP (8 s), BENCH_ONLY=pipeline (only the
// hot-path comparison below, about 2.5 minutes), BENCH_PIPELINE_SECONDS / _ROUNDS (its rounds).
//
// The hot path (bench/pipeline.js): wire.ts against node-postgres's pipeline mode, same
// statements, 8 connections a side, paired rounds; on smq's compat schema and, when
// SMQ_TEST_PGMQ_DIR (or ../shared/pgmq) holds the releases, on the real pgmq 1.13.0.
// The targets table: tester/pgbench throughput ratios and tester CPU per message against
// pgbench's client CPU per transaction (pgbench run under sh, whose `times` reports it).
//
// One script over 350 lines on purpose: a run is one sequence on one server (its scripts,
// queues and core placement shared by every part), read top to bottom like its report; the
// parts that stand alone live beside it (pipeline.js, pg-server.js, checker-memory.js).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPgServer } from './pg-server.js';
import { comparePipelines, createRealPgmqDatabase, pipelineLines, realPgmqDir } from './pipeline.js';

const BENCH = dirname(fileURLToPath(import.meta.url));
const REPO = join(BENCH, '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TRIALS = Number(process.env.BENCH_TRIALS ?? 5);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const SIZE = Number(process.env.BENCH_SIZE ?? 256);
const WARMUP_SECONDS = Math.max(2, Math.round(SECONDS / 5));
// The tester's measured runs begin with a warm-up of their own, thrown away: each run is a new
// process whose threads V8 compiles anew (see src/tester/cpu-window.ts); pgbench, compiled
// ahead, needs none.
const TESTER_WARMUP_SECONDS = Number(process.env.BENCH_TESTER_WARMUP ?? 8);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const ONLY = process.env.BENCH_ONLY;

const log = (text) => process.stderr.write(`bench: ${text}\n`);
/** Writes a report to bench/results/<date><suffix>.md and stdout, and ends the run. */
function finish(suffix, text) {
  mkdirSync(join(BENCH, 'results'), { recursive: true });
  const file = join(BENCH, 'results', `${environment.date.slice(0, 19).replace(/[:T]/g, '-')}${suffix}.md`);
  writeFileSync(file, text);
  process.stdout.write(text + '\n');
  log(`written to ${file}`);
  process.exit(0);
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round = (n) => Math.round(n);

if (!existsSync(join(REPO, 'dist', 'tester', 'index.js'))) {
  log("dist/ is missing: run 'npm run bench' (it builds first)");
  process.exit(1);
}

const { startPgServer, TEST_PG_PASSWORD } = await loadPgServer();
const { initPgmq } = await import('../dist/backends/pgmq/install.js');
const pg = (await import('pg')).default;

log('starting a throwaway PostgreSQL');
const server = await startPgServer();
process.on('exit', () => server.stop());
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

let client = new pg.Client({ connectionString: server.url });
await client.connect();
await initPgmq(client);
const sql = async (text, values = []) => (await client.query(text, values)).rows;

// ---- environment ---------------------------------------------------------------------
const settingNames = [
  'server_version',
  'shared_buffers',
  'max_connections',
  'fsync',
  'synchronous_commit',
  'full_page_writes',
  'wal_level',
  'work_mem',
  'effective_io_concurrency',
  'default_transaction_isolation',
  'autovacuum',
];
const settings = await sql('SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1) ORDER BY name', [settingNames]);
const pgmqVersion = (await sql('SELECT version FROM pgmq.smq_compat LIMIT 1').catch(() => [{ version: 'extension' }]))[0]?.version;
const environment = {
  date: new Date().toISOString(),
  node: process.version,
  platform: `${process.platform} ${os.release()} ${process.arch}`,
  cpu: `${os.cpus()[0]?.model ?? '?'} × ${os.availableParallelism()}`,
  memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
  postgres: settings.find((s) => s.name === 'server_version')?.setting,
  pgmq: `smq compat schema ${pgmqVersion}`,
  pgbench: execFileSync('pgbench', ['--version'], { encoding: 'utf8' }).trim(),
  smq: JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(join(REPO, 'package.json'), 'utf8'))).version,
};

// ---- pgbench -------------------------------------------------------------------------
const body = JSON.stringify({ r: 'pgbench', s: 0, q: 0, t: 0, p: '' });
const padded = JSON.stringify({ r: 'pgbench', s: 0, q: 0, t: 0, p: 'x'.repeat(Math.max(0, SIZE - body.length)) });
const scripts = mkdtempSync(join(os.tmpdir(), 'smq-bench-sql-'));
process.on('exit', () => rmSync(scripts, { recursive: true, force: true }));
const sendScript = join(scripts, 'send.sql');
const cycleScript = join(scripts, 'cycle.sql');
// The same SQL on both sides, by construction: pgbench's scripts are the tester's own
// statements (src/backends/pgmq/sql.ts, as the pgmq backend builds them for this server's
// columns), run -M prepared as the tester prepares its statements. The queue name and the
// body are pgbench variables (-D), which -M prepared sends as bind parameters: the server
// then parses the jsonb body on every call, as it must for the tester's bodies (each one
// different). Written into the statement as literals, the body would be parsed once, when
// the statement is prepared, and pgbench would skip work no real client can skip (measured on
// the 2-core host: 5-8% more sends per second in four paired runs). The small integers (delay, vt, qty) stay
// literals; the tester binds them, a difference of a few bytes. The cycle reads the whole
// message as the tester's receivers do.
const sqlText = await import('../dist/backends/pgmq/sql.js');
const { openBackend } = await import('../dist/backends/index.js');
const probe = await openBackend({ kind: 'pgmq', url: server.url });
const columns = probe.columns;
await probe.close();
const literal = (v) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
const inline = (q, overrides = {}) => q.text.replace(/\$(\d+)/g, (_, n) => overrides[n] ?? literal(q.values[Number(n) - 1]));
const Q = 'bench_pgbench';
const sendSql = `${inline(sqlText.sendQuery(Q, padded, undefined, 0, columns), { 1: ':queue', 2: ':body' })};\n`;
writeFileSync(sendScript, sendSql);
// read may find nothing (another client holds every visible row): \aset then sets nothing and
// the delete repeats an id already deleted, a no-op (the first one deletes id -1).
writeFileSync(
  cycleScript,
  '\\set msg_id -1\n' +
    sendSql +
    `${inline(sqlText.readQuery(Q, 30, 1, columns), { 1: ':queue' })} \\aset\n` +
    `${inline(sqlText.deleteQuery(Q, []), { 1: ':queue', 2: 'ARRAY[:msg_id]' })};\n`,
);
log(`pgbench cycle script (:queue = ${Q}, :body = a ${padded.length}-byte JSON body):\n${readFileSync(cycleScript, 'utf8')}`);

// Placement: null (every process on every core, the server's backends competing with the
// clients for them), or the cores clients are pinned to while the server has the others.
let clientCpus = null;
const placed = (file, args) => (clientCpus === null ? [file, args] : ['taskset', ['-c', clientCpus, file, ...args]]);

const pgbenchTarget = () => [
  '-D',
  `queue=${Q}`,
  '-D',
  `body=${padded}`,
  '-h',
  '127.0.0.1',
  '-p',
  String(server.port),
  '-U',
  os.userInfo().uid === 0 ? 'postgres' : os.userInfo().username,
  'smq_test',
];
/** pgbench's own CPU (user + system, µs) per transaction in the last pgbench() run. */
let lastPgbenchCpuUsPerTx = NaN;
function pgbench(script, seconds) {
  // Run under sh, whose `times` then prints the CPU its child (pgbench) used: the client CPU
  // per transaction beside the tester's CPU per message.
  const [file, args] = placed('pgbench', [
    '-n',
    '-M',
    'prepared',
    '-c',
    String(CLIENTS),
    '-j',
    String(CLIENTS),
    '-T',
    String(seconds),
    '-f',
    script,
    ...pgbenchTarget(),
  ]);
  const out = execFileSync('sh', ['-c', '"$@"; s=$?; times; exit $s', 'sh', file, ...args], {
    encoding: 'utf8',
    env: { ...process.env, PGPASSWORD: TEST_PG_PASSWORD },
  });
  const m = /tps = ([\d.]+) \(without initial connection time\)/.exec(out);
  if (!m) throw new Error(`cannot read pgbench output:\n${out}`);
  const tx = /number of transactions actually processed: (\d+)/.exec(out);
  const times = [...out.matchAll(/(\d+)m([\d.]+)s (\d+)m([\d.]+)s/g)].at(-1);
  lastPgbenchCpuUsPerTx =
    tx && times ? (((Number(times[1]) + Number(times[3])) * 60 + Number(times[2]) + Number(times[4])) * 1e6) / Number(tx[1]) : NaN;
  return Number(m[1]);
}

/** The tester's CPU (all its threads, the whole run) per message: per message received when it receives, else per message sent. */
const testerWholeRunCpuUsPerMessage = (r) => {
  const messages = r.config.receivers > 0 ? r.counts.received : r.counts.sent;
  return ((r.tester.cpuPercentOfCores / 100) * r.tester.cores * r.durationMs * 1000) / Math.max(1, messages);
};
/**
 * The tester's CPU per message in its steady state (report.tester.steadyCpu: every thread, from
 * the end of its --warmup to the end of sending), the figure the targets compare with pgbench's;
 * the whole run's (above) also holds the seconds in which V8 compiles each thread's hot paths.
 */
const testerCpuUsPerMessage = (r) => r.tester.steadyCpu?.cpuUsPerMessage ?? testerWholeRunCpuUsPerMessage(r);

// ---- smq tester (the real binary) -------------------------------------------------------
function tester(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(...placed(process.execPath, [join(REPO, 'bin', 'smq.js'), 'tester', ...args, '--json']), {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(PG|DATABASE_URL$|SMQ_URL$)/.test(k))),
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      try {
        const report = JSON.parse(out);
        if (code !== 0 && code !== 1) throw new Error(`exit ${code}`);
        resolve(report);
      } catch (e) {
        reject(new Error(`smq tester ${args.join(' ')} failed (${code}): ${err.trim().split('\n').pop()} ${e.message}`));
      }
    });
  });
}

async function testerTrials(args, pick) {
  await tester([...args, '--duration', `${WARMUP_SECONDS}s`]);
  const values = [];
  const reports = [];
  for (let i = 0; i < TRIALS; i++) {
    const r = await testerTrial(args);
    reports.push(r);
    values.push(pick(r));
  }
  return { values, reports };
}

/**
 * One measured tester run: warm-up excluded from its statistics. On Postgres it runs on the
 * queue bench_tester, purged and vacuumed first exactly as pgbench's queue is, so that both
 * sides start every round from a table in the same state.
 */
async function testerTrial(args) {
  if (args.includes('--url')) {
    await sql("SELECT pgmq.purge_queue('bench_tester')");
    await sql('VACUUM pgmq.q_bench_tester');
    args = [...args, '--queue', 'bench_tester'];
  } else await sql('VACUUM').catch(() => undefined);
  return tester([...args, '--duration', `${SECONDS + TESTER_WARMUP_SECONDS}s`, '--warmup', `${TESTER_WARMUP_SECONDS}s`]);
}

/** One measured pgbench run on a fresh, vacuumed queue. */
async function pgbenchTrial(script) {
  await sql("SELECT pgmq.purge_queue('bench_pgbench')");
  await sql('VACUUM pgmq.q_bench_pgbench');
  return pgbench(script, SECONDS);
}

const results = {};
const sizeArgs = ['--size', String(SIZE), '--batch', '1'];
const pgArgs = ['--url', server.url];

// The ceiling of the client library itself: CLIENTS node-postgres connections in one thread,
// each sending in a loop with the same prepared statement the pgmq backend's pool path uses,
// and nothing else (no tester, no worker threads, no bookkeeping).
async function bareNodePostgresSend(seconds) {
  const conns = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const c = new pg.Client({ connectionString: server.url });
      await c.connect();
      return c;
    }),
  );
  await sql("SELECT pgmq.create('bench_bare')");
  let sent = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    conns.map(async (c) => {
      while (Date.now() < end) {
        await c.query({
          name: 'bare_send',
          text: 'SELECT * FROM pgmq.send($1::text, $2::jsonb, $3::jsonb, $4::integer) AS id',
          values: ['bench_bare', padded, null, 0],
        });
        sent++;
      }
    }),
  );
  await Promise.all(conns.map((c) => c.end()));
  await sql("SELECT pgmq.drop_queue('bench_bare')");
  return sent / seconds;
}

// ---- latency at a fixed rate: 1 × 1 --rate RATE against pgbench -c 1 -R RATE ---------------
const pct50 = (xs) => median(xs);

/**
 * pgbench -c 1 -R RATE with its per-transaction log: per transaction, the latency from the
 * scheduled start (its "time" under -R) and the schedule lag; time - lag is the call itself.
 */
function pgbenchRated(script, seconds) {
  const dir = mkdtempSync(join(os.tmpdir(), 'smq-bench-log-'));
  try {
    execFileSync(
      ...placed('pgbench', [
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
        String(seconds),
        '-l',
        '--log-prefix',
        join(dir, 'tx'),
        '-f',
        script,
        ...pgbenchTarget(),
      ]),
      { encoding: 'utf8', env: { ...process.env, PGPASSWORD: TEST_PG_PASSWORD } },
    );
    // client_id transaction_no time script_no time_epoch time_us schedule_lag
    const rows = readdirSync(dir)
      .flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n'))
      .map((l) => l.split(' ').map(Number));
    if (rows.length === 0 || rows[0].length < 7) throw new Error('pgbench wrote no per-transaction log with a schedule lag');
    return {
      count: rows.length,
      // pgbench reads its clock lazily, once per turn of its loop: a transaction begun and
      // ended in one turn logs time == lag, a call of 0 µs. Their share says how far its
      // call p50 (time - lag) is biased low; its time (from the schedule) is not affected.
      zeroCallShare: rows.filter((r) => r[2] === r[6]).length / rows.length,
      latencyP50: pct50(rows.map((r) => r[2])) / 1000,
      serviceP50: pct50(rows.map((r) => r[2] - r[6])) / 1000,
      lagP50: pct50(rows.map((r) => r[6])) / 1000,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Paired rounds: pgbench -R, then the tester at the same rate (1 sender, send only). */
async function rateLatency() {
  await sql("SELECT pgmq.create('bench_pgbench')");
  await sql("SELECT pgmq.create('bench_tester')");
  const testerArgs = [...pgArgs, ...sizeArgs, '--senders', '1', '--receivers', '0', '--rate', String(RATE)];
  log(`1 × 1 at ${RATE}/s: warm-up`);
  pgbenchRated(sendScript, WARMUP_SECONDS);
  await tester([...testerArgs, '--queue', 'bench_tester', '--duration', `${WARMUP_SECONDS}s`]);
  const rounds = [];
  for (let i = 0; i < TRIALS; i++) {
    await sql("SELECT pgmq.purge_queue('bench_pgbench')");
    await sql('VACUUM pgmq.q_bench_pgbench');
    const ref = pgbenchRated(sendScript, SECONDS);
    const r = await testerTrial(testerArgs);
    const t = {
      sendP50: r.latency.send.p50,
      serviceP50: r.latency.sendService.p50,
      lagP50: r.latency.scheduleLag?.p50 ?? NaN,
      count: r.latency.send.count,
    };
    rounds.push({ pgbench: ref, tester: t, serviceRatio: t.serviceP50 / ref.serviceP50, correctedRatio: t.sendP50 / ref.latencyP50 });
    log(
      `1 × 1 at ${RATE}/s: round ${i + 1}/${TRIALS}: pgbench call p50 ${ref.serviceP50.toFixed(3)} ms (with lag ${ref.latencyP50.toFixed(3)}, lag ${ref.lagP50.toFixed(3)}), ` +
        `tester service p50 ${t.serviceP50.toFixed(3)} ms (corrected ${t.sendP50.toFixed(3)}, lag ${t.lagP50.toFixed(3)})`,
    );
  }
  await sql("SELECT pgmq.drop_queue('bench_pgbench')");
  await sql("SELECT pgmq.drop_queue('bench_tester')");
  return rounds;
}

/** The fixed-rate table for the report. */
function rateLines(rounds) {
  const m = (f) => median(rounds.map(f));
  const bar = (ratio) => (ratio <= 1.2 ? 'within 20%' : 'NOT within 20%');
  const service = m((x) => x.serviceRatio);
  const corrected = m((x) => x.correctedRatio);
  return [
    `## Latency at a fixed rate: 1 sender, --rate ${RATE}, against pgbench -c 1 -R ${RATE}`,
    '',
    '| p50 (ms) | pgbench | smq tester | ratio (median of rounds) | bar |',
    '|---|---:|---:|---:|---|',
    `| the send call itself (pgbench: time − schedule lag; tester: send service) | ${m((x) => x.pgbench.serviceP50).toFixed(3)} | ${m((x) => x.tester.serviceP50).toFixed(3)} | **${service.toFixed(2)}** | ${bar(service)} |`,
    `| from the scheduled time (pgbench: time under -R; tester: send, corrected) | ${m((x) => x.pgbench.latencyP50).toFixed(3)} | ${m((x) => x.tester.sendP50).toFixed(3)} | **${corrected.toFixed(2)}** | ${bar(corrected)} |`,
    `| schedule lag | ${m((x) => x.pgbench.lagP50).toFixed(3)} | ${m((x) => x.tester.lagP50).toFixed(3)} | | |`,
    '',
    `- per-round ratios, service: ${rounds.map((x) => x.serviceRatio.toFixed(2)).join(', ')}; corrected: ${rounds.map((x) => x.correctedRatio.toFixed(2)).join(', ')}`,
    `- sends per round: pgbench ${rounds.map((x) => x.pgbench.count).join(', ')}; tester (after its warm-up) ${rounds.map((x) => x.tester.count).join(', ')}`,
    `- pgbench transactions logged with time = schedule lag (a call of 0 µs: its clock is read once per turn of its loop, so its call p50 is biased low): ${rounds.map((x) => `${Math.round(x.pgbench.zeroCallShare * 100)}%`).join(', ')}`,
    '',
  ];
}

// ---- the hot path: wire.ts against node-postgres's pipeline mode -------------------------
const PIPE = {
  clients: CLIENTS,
  seconds: Number(process.env.BENCH_PIPELINE_SECONDS ?? (ONLY === 'pipeline' ? 3 : 5)),
  rounds: Number(process.env.BENCH_PIPELINE_ROUNDS ?? (ONLY === 'pipeline' ? 5 : TRIALS)),
};
async function pipelineSection() {
  const run = (url, label) => comparePipelines({ pg, dist: join(REPO, 'dist'), url, ...PIPE, bodyBytes: SIZE, label, log });
  const lines = ['## The hot path: wire.ts against node-postgres pipeline mode', ''];
  log(`wire.ts vs pg pipeline mode, smq compat schema: ${PIPE.rounds} paired rounds of ${PIPE.seconds}s per side`);
  lines.push(...pipelineLines(`smq compat schema ${pgmqVersion}`, await run(server.url, 'compat'), PIPE));
  const dir = realPgmqDir(REPO);
  if (dir === undefined) {
    log('real pgmq 1.13.0 skipped: set SMQ_TEST_PGMQ_DIR (or put ../shared/pgmq beside the repo)');
    lines.push('- real pgmq 1.13.0: skipped (no SMQ_TEST_PGMQ_DIR, no ../shared/pgmq)', '');
  } else {
    const url = await createRealPgmqDatabase(pg, server.url, dir);
    log(`wire.ts vs pg pipeline mode, real pgmq 1.13.0 (${dir}): ${PIPE.rounds} paired rounds of ${PIPE.seconds}s per side`);
    lines.push(...pipelineLines('real pgmq 1.13.0 (plain SQL install)', await run(url, 'pgmq 1.13.0'), PIPE));
  }
  lines.push(
    `- load average when this part ended: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (${os.availableParallelism()} cores, shared)`,
    '',
  );
  return lines;
}

if (ONLY === 'pipeline') {
  const text = [
    `# smq hot path benchmark (BENCH_ONLY=pipeline), ${environment.date.slice(0, 10)}`,
    '',
    '## Environment',
    '',
    ...Object.entries(environment).map(([k, v]) => `- ${k}: ${v}`),
    '',
    ...(await pipelineSection()),
  ].join('\n');
  await client.end();
  finish('-pipeline', text);
}

if (ONLY === 'rate') {
  log(`only the fixed-rate latency comparison (BENCH_ONLY=rate): ${TRIALS} paired rounds of ${SECONDS}s`);
  const text = [
    `# smq tester benchmark (fixed-rate latency only), ${environment.date.slice(0, 10)}`,
    '',
    '## Environment',
    '',
    ...Object.entries(environment).map(([k, v]) => `- ${k}: ${v}`),
    '',
    ...rateLines(await rateLatency()),
  ].join('\n');
  await client.end();
  finish('-rate', text);
}

// Tester layouts: the default (on Postgres, half the cores' threads per role, every sender and
// receiver on its own connection) and one thread per sender and per receiver.
const CORES = os.availableParallelism();
const LAYOUTS = [
  [`default (${Math.max(1, Math.floor(CORES / 2))} thread(s) per role)`, []],
  ['one thread per sender/receiver', ['--threads', String(CLIENTS)]],
];

// Interleaved rounds: each round runs pgbench, then every tester layout, back to back, so a
// slow spell of the host (whose cores other machines' work shares) falls on both sides of a
// ratio alike. Ratios are taken per round (paired) and the tables give their median.
async function interleaved(label, script, testerArgs, pick, extra, layouts = LAYOUTS) {
  await sql("SELECT pgmq.create('bench_pgbench')");
  await sql("SELECT pgmq.create('bench_tester')");
  log(`${label}: warm-up`);
  pgbench(script, WARMUP_SECONDS);
  for (const [, layout] of layouts) {
    // A send-only warm-up leaves its messages behind; the tester refuses a queue that holds some.
    await sql("SELECT pgmq.purge_queue('bench_tester')");
    await tester([...testerArgs(0), ...layout, '--queue', 'bench_tester', '--duration', `${WARMUP_SECONDS}s`]);
  }
  const out = {
    pgbench: [],
    pgbenchCpu: [],
    tester: Object.fromEntries(layouts.map(([name]) => [name, { values: [], reports: [], ratios: [], cpuRatios: [] }])),
    extra: [],
  };
  for (let i = 0; i < TRIALS; i++) {
    const ref = await pgbenchTrial(script);
    out.pgbench.push(ref);
    const refCpu = lastPgbenchCpuUsPerTx;
    out.pgbenchCpu.push(refCpu);
    for (const [name, layout] of layouts) {
      const r = await testerTrial([...testerArgs(ref), ...layout]);
      const t = out.tester[name];
      t.reports.push(r);
      t.values.push(pick(r));
      t.ratios.push(pick(r) / ref);
      t.cpuRatios.push(testerCpuUsPerMessage(r) / refCpu);
    }
    if (extra) out.extra.push({ value: await extra(), ref });
    log(
      `${label}: round ${i + 1}/${TRIALS}: pgbench ${round(ref)}/s, ` +
        layouts.map(([name]) => `${name} ${round(out.tester[name].values.at(-1))}/s`).join(', '),
    );
  }
  await sql("SELECT pgmq.drop_queue('bench_pgbench')");
  await sql("SELECT pgmq.drop_queue('bench_tester')");
  return out;
}

const BACKLOG = 4 * CLIENTS;
// The tester's cycle has CLIENTS senders and CLIENTS receivers, twice pgbench's connections;
// a third layout splits CLIENTS connections in all (half senders, half receivers), the same
// number of server connections as pgbench's clients.
const HALF = Math.max(1, Math.floor(CLIENTS / 2));
const CYCLE_LAYOUTS = [
  ...LAYOUTS.map(([name, args]) => [name, ['--senders', String(CLIENTS), '--receivers', String(CLIENTS), ...args]]),
  [
    `default, ${HALF} senders + ${HALF} receivers (${2 * HALF} connections, as pgbench's ${CLIENTS} clients)`,
    ['--senders', String(HALF), '--receivers', String(HALF)],
  ],
];
const sendArgs = () => [...pgArgs, ...sizeArgs, '--senders', String(CLIENTS), '--receivers', '0'];
const cycleArgs = () => [...pgArgs, ...sizeArgs, '--max-backlog', String(BACKLOG), '--drain-timeout', '5s'];

// BENCH_ONLY=targets: only the issue-14 targets (send-only in the default layout, the HALF + HALF cycle).
if (ONLY === 'targets') {
  log(`only the targets (BENCH_ONLY=targets): ${TRIALS} paired rounds of ${SECONDS}s`);
  const send = await interleaved('send', sendScript, sendArgs, (r) => r.throughput.sendPerSec, undefined, [LAYOUTS[0]]);
  const cycle = await interleaved('cycle', cycleScript, cycleArgs, (r) => r.throughput.receivePerSec, undefined, [CYCLE_LAYOUTS.at(-1)]);
  const text = [
    `# smq tester targets (BENCH_ONLY=targets), ${environment.date.slice(0, 10)}`,
    '',
    ...Object.entries(environment).map(([k, v]) => `- ${k}: ${v}`),
    `- method: ${CLIENTS} clients, ${SIZE}-byte JSON bodies, ${TRIALS} interleaved rounds of ${SECONDS} s; each tester run measured after its own ${TESTER_WARMUP_SECONDS} s warm-up`,
    `- pgbench per round (msg/s): send ${send.pgbench.map(round).join(', ')}; cycle ${cycle.pgbench.map(round).join(', ')}`,
    `- tester per round (msg/s): send ${send.tester[LAYOUTS[0][0]].values.map(round).join(', ')}; cycle ${cycle.tester[CYCLE_LAYOUTS.at(-1)[0]].values.map(round).join(', ')}`,
    '',
    ...targetLines(send, cycle),
  ].join('\n');
  await client.end();
  finish('-targets', text);
}

/**
 * The issue-14 targets: send-only 8 senders and the 4 + 4 cycle at >= 0.95x pgbench, and the
 * tester's CPU per message on that cycle at most 1.5x pgbench's client CPU per transaction.
 */
function targetLines(send, cycle) {
  const lines = [];
  const sendDefault = send.tester[LAYOUTS[0][0]];
  const cycleHalf = cycle.tester[CYCLE_LAYOUTS.at(-1)[0]];
  const us = (xs) => `${median(xs).toFixed(1)} µs`;
  lines.push('### Targets', '');
  lines.push('| target | measured (median of paired rounds) | per-round | bar | met |');
  lines.push('|---|---:|---|---|---|');
  const row = (what, xs, ok, bar) =>
    lines.push(
      `| ${what} | **${median(xs).toFixed(2)}** | ${xs.map((x) => x.toFixed(2)).join(', ')} | ${bar} | ${ok(median(xs)) ? 'yes' : 'no'} |`,
    );
  row(`send-only, ${CLIENTS} senders (default layout) / pgbench -c ${CLIENTS}`, sendDefault.ratios, (x) => x >= 0.95, '≥ 0.95');
  row(`cycle, ${HALF} + ${HALF} / pgbench -c ${CLIENTS}`, cycleHalf.ratios, (x) => x >= 0.95, '≥ 0.95');
  row(
    `tester CPU per message on the ${HALF} + ${HALF} cycle (steady state) / pgbench client CPU per cycle`,
    cycleHalf.cpuRatios,
    (x) => x <= 1.5,
    '≤ 1.5',
  );
  const whole = cycleHalf.reports.map((r, i) => testerWholeRunCpuUsPerMessage(r) / cycle.pgbenchCpu[i]);
  lines.push('');
  lines.push(
    `- CPU per message: tester ${us(cycleHalf.reports.map(testerCpuUsPerMessage))} (all its threads, per message received, from the end of its ${TESTER_WARMUP_SECONDS} s warm-up to the end of sending), ` +
      `pgbench ${us(cycle.pgbenchCpu)} per cycle (its process's user + system time, from sh's times, per transaction); ` +
      `send-only: tester ${us(sendDefault.reports.map(testerCpuUsPerMessage))} per message sent, pgbench ${us(send.pgbenchCpu)} per send, ratio ${median(sendDefault.cpuRatios).toFixed(2)}`,
    `- the tester's CPU over its whole run (warm-up, JIT compilation and drain included): ${us(cycleHalf.reports.map(testerWholeRunCpuUsPerMessage))} per message on the cycle, ${median(whole).toFixed(2)}x pgbench's (per round ${whole.map((x) => x.toFixed(2)).join(', ')})`,
    `- load average when the targets were measured: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
    '',
  );
  return lines;
}

log(`pgmq.send, ${CLIENTS} clients: pgbench and the tester in ${TRIALS} interleaved rounds of ${SECONDS}s`);
results.send = await interleaved(
  'send',
  sendScript,
  sendArgs,
  (r) => r.throughput.sendPerSec,
  () => bareNodePostgresSend(SECONDS),
);
// The cycle: a closed loop on both sides. Each pgbench client runs send, read, delete in turn,
// so at most CLIENTS of its messages wait in the queue. The tester's senders and receivers
// are separate clients; --max-backlog makes them a closed loop too: senders wait while
// BACKLOG of their messages are not yet received. Unbounded, the senders would outrun the
// receivers and measure a growing backlog, not the cycle; offered pgbench's rate (--rate, an
// open loop, as until 2026-12-03) the tester fell behind for good in any slow spell of the host.
log(`send -> read -> delete, ${CLIENTS} clients: pgbench and the tester in ${TRIALS} interleaved rounds`);
results.cycle = await interleaved('cycle', cycleScript, cycleArgs, (r) => r.throughput.receivePerSec, undefined, CYCLE_LAYOUTS);

log(`1 sender at --rate ${RATE} against pgbench -c 1 -R ${RATE}: latency in ${TRIALS} paired rounds`);
results.rate = await rateLatency();

results.pipeline = await pipelineSection();

log('smq tester on SQLite (embedded file)');
results.sqlite = {};
for (const [senders, receivers, batch] of [
  [1, 1, 1],
  [CLIENTS, CLIENTS, 1],
  [2, 2, 10],
]) {
  const key = `${senders}x${receivers} batch ${batch}`;
  results.sqlite[key] = await testerTrials(
    ['--size', String(SIZE), '--batch', String(batch), '--senders', String(senders), '--receivers', String(receivers)],
    (r) => r.throughput.receivePerSec,
  );
}

// The server on its own cores: its processes (the postmaster, whose forks inherit the mask,
// and the background processes already running) pinned to the upper half of the cores, the
// clients (pgbench, the tester) to the lower half, as when the load generator runs beside
// the database rather than on its CPUs. Skipped with fewer than 2 cores or without taskset.
const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (CORES >= 2 && hasTaskset && process.env.BENCH_SPLIT !== '0') {
  const half = Math.floor(CORES / 2);
  const serverCpus = `${half}-${CORES - 1}`;
  clientCpus = `0-${half - 1}`;
  const postmaster = Number(readFileSync(join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    });
  for (const pid of [postmaster, ...children]) execFileSync('taskset', ['-a', '-p', '-c', serverCpus, String(pid)], { stdio: 'ignore' });
  // Connections opened before the pinning (this script's own) keep their old mask.
  await client.end();
  client = new pg.Client({ connectionString: server.url });
  await client.connect();
  results.placement = { serverCpus, clientCpus };
  const threads = Math.max(1, Math.floor(half / 2));
  const defaultOnly = [[`default (${threads} thread(s) per role)`, []]];
  const cycleSplitLayout = [
    [
      `default, ${HALF} senders + ${HALF} receivers, ${threads} thread(s) per role`,
      ['--senders', String(HALF), '--receivers', String(HALF)],
    ],
  ];
  log(`server on cores ${serverCpus}, clients on ${clientCpus}: pgmq.send`);
  results.sendSplit = await interleaved(
    'send (split cores)',
    sendScript,
    () => [...pgArgs, ...sizeArgs, '--senders', String(CLIENTS), '--receivers', '0'],
    (r) => r.throughput.sendPerSec,
    undefined,
    defaultOnly,
  );
  log(`server on cores ${serverCpus}, clients on ${clientCpus}: send -> read -> delete`);
  results.cycleSplit = await interleaved(
    'cycle (split cores)',
    cycleScript,
    () => [...pgArgs, ...sizeArgs, '--max-backlog', String(BACKLOG), '--drain-timeout', '5s'],
    (r) => r.throughput.receivePerSec,
    undefined,
    cycleSplitLayout,
  );
  clientCpus = null;
}

log('checker memory at 1M and 10M messages');
results.memory = [1_000_000, 10_000_000].map((n) =>
  JSON.parse(execFileSync(process.execPath, ['--expose-gc', join(BENCH, 'checker-memory.js'), String(n)], { encoding: 'utf8' })),
);
await client.end();

// ---- the report ----------------------------------------------------------------------
const trialsText = (xs) => xs.map(round).join(', ');
const verdicts = (rs) => [...new Set(rs.map((r) => r.verdict))].join('/');
const warnings = (rs) => [...new Set(rs.flatMap((r) => r.tester.warnings))];
const cpu = (rs) => median(rs.map((r) => r.tester.cpuPercentOfCores));
const waited = (rs) => Math.round(median(rs.map((r) => (r.backlog?.senderWaitShare ?? 0) * 100)));
const lat = (rs, h) => {
  const p = (k) => median(rs.map((r) => r.latency[h][k])).toFixed(2);
  return `p50 ${p('p50')} / p99 ${p('p99')} / max ${p('max')} ms`;
};

const lines = [];
lines.push(`# smq tester benchmark, ${environment.date.slice(0, 10)}`, '');
lines.push('## Environment', '');
for (const [k, v] of Object.entries(environment)) lines.push(`- ${k}: ${v}`);
lines.push('- PostgreSQL settings: ' + settings.map((s) => `${s.name}=${s.setting}${s.unit ? s.unit : ''}`).join(', '));
lines.push(
  `- method: throwaway server (test/helpers/pg-server.ts), same host as the clients; ${CLIENTS} clients; ` +
    `${SIZE}-byte JSON bodies; warm-up ${WARMUP_SECONDS}s discarded; ${TRIALS} interleaved rounds of ${SECONDS}s (pgbench, then each tester layout)`,
  '',
);
lines.push('## Tester vs pgbench on PostgreSQL', '');
lines.push('| workload | tester layout | pgbench (msg/s) | smq tester (msg/s) | ratio | tester trials | pgbench trials |');
lines.push('|---|---|---:|---:|---:|---|---|');
for (const [workload, res] of [
  ['pgmq.send', results.send],
  [`send → read → delete (closed loop; tester --max-backlog ${BACKLOG})`, results.cycle],
]) {
  for (const [name, r] of Object.entries(res.tester)) {
    lines.push(
      `| ${workload} | ${name} | ${round(median(res.pgbench))} | ${round(median(r.values))} | **${median(r.ratios).toFixed(2)}** | ${trialsText(r.values)} | ${trialsText(res.pgbench)} |`,
    );
  }
}
const bare = results.send.extra;
lines.push(
  `| pgmq.send | bare node-postgres loop (pg.Client), ${CLIENTS} connections in one thread, no tester | ${round(median(bare.map((b) => b.ref)))} | ${round(median(bare.map((b) => b.value)))} | ${median(bare.map((b) => b.value / b.ref)).toFixed(2)} | ${trialsText(bare.map((b) => b.value))} | ${trialsText(bare.map((b) => b.ref))} |`,
);
lines.push('');
lines.push(...targetLines(results.send, results.cycle));
lines.push("- ratio: the median of the rounds' ratios (each tester trial divided by the pgbench trial of its own round).");
for (const [name] of LAYOUTS) {
  const send = results.send.tester[name].reports;
  const cycle = results.cycle.tester[name].reports;
  lines.push(
    `- tester send-only (${name}): per-round ratios ${results.send.tester[name].ratios.map((x) => x.toFixed(2)).join(', ')}; verdict ${verdicts(send)}, send latency ${lat(send, 'send')}, tester CPU ${cpu(send)}% of cores`,
  );
  lines.push(
    `- tester cycle (${name}): per-round ratios ${results.cycle.tester[name].ratios.map((x) => x.toFixed(2)).join(', ')}; verdict ${verdicts(cycle)}, end-to-end ${lat(cycle, 'endToEnd')}, ` +
      `senders waited for the backlog ${waited(cycle)}% of the time, tester CPU ${cpu(cycle)}% of cores`,
  );
  for (const w of warnings([...send, ...cycle])) lines.push(`  - warning: ${w}`);
}
for (const [name] of CYCLE_LAYOUTS.slice(LAYOUTS.length)) {
  const cycle = results.cycle.tester[name].reports;
  lines.push(
    `- tester cycle (${name}): per-round ratios ${results.cycle.tester[name].ratios.map((x) => x.toFixed(2)).join(', ')}; verdict ${verdicts(cycle)}, end-to-end ${lat(cycle, 'endToEnd')}, ` +
      `senders waited for the backlog ${waited(cycle)}% of the time, tester CPU ${cpu(cycle)}% of cores`,
  );
  for (const w of warnings(cycle)) lines.push(`  - warning: ${w}`);
}
lines.push(
  "- pgbench counts one transaction (script run) per message; its cycle script is 3 statements like the tester's send, receive and delete calls.",
);
lines.push(
  '- pgbench binds the queue name and the body as parameters (-D variables under -M prepared), as the tester does; see the comment in bench/run.js.',
);
lines.push(
  `- load average when the run ended: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} (other processes on the host share these cores)`,
);
if (results.placement) {
  const { serverCpus, clientCpus: cc } = results.placement;
  lines.push('', `### The server on its own cores (PostgreSQL pinned to cores ${serverCpus}, pgbench and the tester to ${cc})`, '');
  lines.push('| workload | tester layout | pgbench (msg/s) | smq tester (msg/s) | ratio | per-round ratios | tester CPU | verdict |');
  lines.push('|---|---|---:|---:|---:|---|---:|---|');
  for (const [workload, res] of [
    ['pgmq.send', results.sendSplit],
    [`send → read → delete (closed loop; tester --max-backlog ${BACKLOG})`, results.cycleSplit],
  ]) {
    for (const [name, r] of Object.entries(res.tester)) {
      lines.push(
        `| ${workload} | ${name} | ${round(median(res.pgbench))} | ${round(median(r.values))} | **${median(r.ratios).toFixed(2)}** | ${r.ratios.map((x) => x.toFixed(2)).join(', ')} | ${cpu(r.reports)}% | ${verdicts(r.reports)} |`,
      );
    }
  }
  lines.push('', "- tester CPU: percent of the cores the tester may use (the clients' half).");
}
lines.push('');
lines.push(...rateLines(results.rate));
lines.push(...results.pipeline);
lines.push('## Tester on SQLite (embedded file, safe dequeue)', '');
lines.push('| senders × receivers, batch | received (msg/s) | trials | end-to-end | verdict |');
lines.push('|---|---:|---|---|---|');
for (const [key, r] of Object.entries(results.sqlite)) {
  lines.push(`| ${key} | ${round(median(r.values))} | ${trialsText(r.values)} | ${lat(r.reports, 'endToEnd')} | ${verdicts(r.reports)} |`);
}
lines.push('');
lines.push('## Checker memory', '');
lines.push('| messages | typed arrays | bytes/message | arrayBuffers Δ | heap Δ | RSS Δ | events/s |');
lines.push('|---:|---:|---:|---:|---:|---:|---:|');
for (const m of results.memory) {
  lines.push(
    `| ${m.messages.toLocaleString('en-US')} | ${m.typedArrayMiB} MiB | ${m.bytesPerMessage.toFixed(2)} | ${m.arrayBuffersDeltaMiB} MiB | ${m.heapUsedDeltaMiB} MiB | ${m.rssDeltaMiB} MiB | ${m.eventsPerSec.toLocaleString('en-US')} |`,
  );
}
lines.push('');
const text = lines.join('\n');
finish('', text);
