#!/usr/bin/env node
// What one `smq top` refresh costs the database, against pgmq's own way to get the same
// numbers. 200 pgmq queues holding 2,000,000 messages in all; one refresh is one
// backend.listQueues() call (the exact threshold decides which queues are counted and
// which estimated); the comparison is `SELECT * FROM pgmq.metrics_all()`, which counts
// every queue exactly.
//
// Database time is the server's own: pg_stat_statements' planning plus execution time of
// each statement (top-level, nested work included), averaged over BENCH_TRIALS calls after
// a warm-up.
// The client's round-trip time is reported beside it. A third column measures a sketch of
// a cheaper refresh (candidateRefresh below), as a yardstick for the backend's listQueues.
//
//   npm run build && node bench/top-refresh.js
//
// Environment: BENCH_QUEUES (200), BENCH_MESSAGES (2000000), BENCH_TRIALS (11),
// BENCH_THRESHOLDS (comma list; default "10000,1000"), BENCH_LAYOUTS ("uniform,skewed"),
// SMQ_BENCH_PG_URL (use that server instead of a throwaway one; it needs
// pg_stat_statements preloaded), SMQ_PG_BIN (PostgreSQL binaries).
// Writes bench/top-refresh.results.json and prints a table.
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { loadPgServer } from './pg-server.js';

const BENCH = dirname(fileURLToPath(import.meta.url));
const REPO = join(BENCH, '..');
const QUEUES = Number(process.env.BENCH_QUEUES ?? 200);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 2_000_000);
const TRIALS = Number(process.env.BENCH_TRIALS ?? 11);
const WARMUP = 3;
const THRESHOLDS = (process.env.BENCH_THRESHOLDS ?? '10000,1000').split(',').map(Number);
const LAYOUTS = (process.env.BENCH_LAYOUTS ?? 'uniform,skewed').split(',');
// In flight: messages someone has read and not yet deleted (vt in the future, read_ct 1).
const IN_FLIGHT_SHARE = 0.01;
const PREFIX = 'topbench_';

const log = (text) => process.stderr.write(`top-refresh: ${text}\n`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round2 = (n) => Math.round(n * 100) / 100;

if (!existsSync(join(REPO, 'dist', 'backends', 'index.js'))) {
  log("dist/ is missing: run 'npm run build' first");
  process.exit(1);
}
const { initPgmq } = await import('../dist/backends/pgmq/install.js');
const { openBackend } = await import('../dist/backends/index.js');
const pg = (await import('pg')).default;

/** Queue sizes adding up to MESSAGES: all equal, or Zipf-like (a few large, many small). */
function sizesFor(layout) {
  if (layout === 'uniform') {
    const each = Math.floor(MESSAGES / QUEUES);
    return Array.from({ length: QUEUES }, (_, i) => each + (i < MESSAGES - each * QUEUES ? 1 : 0));
  }
  const weights = Array.from({ length: QUEUES }, (_, i) => 1 / (i + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((w) => Math.floor((w / sum) * MESSAGES));
  sizes[0] += MESSAGES - sizes.reduce((a, b) => a + b, 0);
  return sizes;
}

async function load(client, layout) {
  const sizes = sizesFor(layout);
  log(`${layout}: creating ${QUEUES} queues, ${MESSAGES} messages (largest ${sizes[0]}, smallest ${sizes.at(-1)})`);
  const existing = await client.query(`SELECT queue_name FROM pgmq.meta WHERE queue_name LIKE '${PREFIX}%'`);
  for (const r of existing.rows) await client.query('SELECT pgmq.drop_queue($1)', [r.queue_name]);
  for (let i = 0; i < QUEUES; i++) {
    const name = `${PREFIX}${String(i).padStart(3, '0')}`;
    await client.query('SELECT pgmq.create($1)', [name]);
    // Rows as pgmq.send_batch writes them, inserted in one statement per queue for speed.
    await client.query(
      `INSERT INTO pgmq.${'q_' + name} (vt, message)
       SELECT now(), jsonb_build_object('order', g, 'body', repeat('x', 64)) FROM generate_series(1, $1) g`,
      [sizes[i]],
    );
    const inflight = Math.floor(sizes[i] * IN_FLIGHT_SHARE);
    if (inflight > 0) {
      await client.query(
        `UPDATE pgmq.${'q_' + name} SET vt = now() + interval '1 hour', read_ct = 1, last_read_at = now()
         WHERE msg_id <= $1`,
        [inflight],
      );
    }
  }
  log(`${layout}: VACUUM ANALYZE`);
  await client.query('VACUUM ANALYZE');
  return sizes;
}

async function statementStats(client) {
  const r = await client.query(`SELECT query, calls, total_exec_time + total_plan_time AS total_time FROM pg_stat_statements
    WHERE query LIKE '%smq:queue-%' OR query LIKE '%metrics_all%' OR query LIKE '%candidate-%'`);
  const pick = (re) => r.rows.filter((x) => re.test(x.query) && !/pg_stat_statements/.test(x.query));
  const sum = (rows) => ({
    calls: rows.reduce((a, x) => a + Number(x.calls), 0),
    totalMs: rows.reduce((a, x) => a + Number(x.total_time), 0),
  });
  return {
    // One refresh is one catalog statement plus one stats statement per hundred queues.
    list: { calls: sum(pick(/smq:queue-catalog/)).calls, totalMs: sum(pick(/smq:queue-/)).totalMs },
    metrics: sum(pick(/metrics_all/)),
    // Two statements per candidate refresh: their time adds up, their calls count once.
    candidate: { calls: sum(pick(/candidate-catalog/)).calls, totalMs: sum(pick(/candidate-/)).totalMs },
  };
}

/**
 * Not smq's code: a sketch of a cheaper refresh for comparison. One catalog query gives
 * each queue's table and live-tuple count; one UNION ALL over the queue tables (no
 * query_to_xml, no per-queue dynamic SQL) counts small queues exactly and, for large ones,
 * only the invisible part through the vt index, taking the rest from the statistics.
 */
async function candidateRefresh(client, threshold) {
  const list = await client.query(`SELECT /* candidate-catalog */ m.queue_name,
      format('%I.%I', 'pgmq', 'q_' || lower(m.queue_name)) AS rel,
      coalesce(pg_stat_get_live_tuples(to_regclass(format('pgmq.%I', 'q_' || lower(m.queue_name)))), 0) AS live
    FROM pgmq.meta m WHERE to_regclass(format('pgmq.%I', 'q_' || lower(m.queue_name))) IS NOT NULL
    ORDER BY m.queue_name`);
  const parts = list.rows.map((q, i) =>
    Number(q.live) > threshold
      ? `SELECT ${i} AS i, count(*) FILTER (WHERE read_ct > 0) AS inflight, count(*) FILTER (WHERE read_ct = 0) AS delayed,
           NULL::bigint AS total, (SELECT enqueued_at FROM ${q.rel} ORDER BY msg_id LIMIT 1) AS oldest
         FROM ${q.rel} WHERE vt > now()`
      : `SELECT ${i}, count(*) FILTER (WHERE vt > now() AND read_ct > 0), count(*) FILTER (WHERE vt > now() AND read_ct = 0),
           count(*), min(enqueued_at) FROM ${q.rel}`,
  );
  if (parts.length === 0) return [];
  const r = await client.query(`/* candidate-union */ ${parts.join('\nUNION ALL\n')}`);
  return r.rows;
}

async function measure(client, backend, threshold) {
  const timeList = async () => {
    const t = performance.now();
    const queues = await backend.listQueues({ exactThreshold: threshold });
    return { ms: performance.now() - t, queues };
  };
  const timeMetrics = async () => {
    const t = performance.now();
    const r = await client.query('SELECT * FROM pgmq.metrics_all()');
    return { ms: performance.now() - t, rows: r.rows };
  };
  const timeCandidate = async () => {
    const t = performance.now();
    await candidateRefresh(client, threshold);
    return { ms: performance.now() - t };
  };
  for (let i = 0; i < WARMUP; i++) {
    await timeList();
    await timeMetrics();
    await timeCandidate();
  }
  await client.query('SELECT pg_stat_statements_reset()');
  const listMs = [];
  const metricsMs = [];
  const candidateMs = [];
  let last;
  for (let i = 0; i < TRIALS; i++) {
    // Alternate, so neither side always runs on a cache the other warmed.
    const a = await timeList();
    const b = await timeMetrics();
    const c = await timeCandidate();
    listMs.push(a.ms);
    metricsMs.push(b.ms);
    candidateMs.push(c.ms);
    last = a.queues;
  }
  const s = await statementStats(client);
  const ours = last.filter((q) => q.name.startsWith(PREFIX));
  return {
    threshold,
    dbMsPerCall: {
      listQueues: s.list.totalMs / s.list.calls,
      metricsAll: s.metrics.totalMs / s.metrics.calls,
      candidate: s.candidate.totalMs / s.candidate.calls,
    },
    statementCalls: { listQueues: s.list.calls, metricsAll: s.metrics.calls, candidate: s.candidate.calls },
    roundTripMsMedian: { listQueues: median(listMs), metricsAll: median(metricsMs), candidate: median(candidateMs) },
    queuesEstimated: ours.filter((q) => q.estimated).length,
    totalShown: ours.reduce((a, q) => a + q.total, 0),
  };
}

async function environment(client) {
  const setting = async (name) => (await client.query('SELECT current_setting($1) AS v', [name])).rows[0].v;
  return {
    postgres: await setting('server_version'),
    settings: Object.fromEntries(
      await Promise.all(
        [
          'shared_buffers',
          'work_mem',
          'jit',
          'max_parallel_workers_per_gather',
          'fsync',
          'synchronous_commit',
          'pg_stat_statements.track_planning',
        ].map(async (n) => [n, await setting(n)]),
      ),
    ),
    pgmq: (await client.query("SELECT coalesce((SELECT extversion FROM pg_extension WHERE extname = 'pgmq'), 'smq compat schema') AS v"))
      .rows[0].v,
    node: process.version,
    cpu: `${os.cpus()[0]?.model ?? 'unknown'} x${os.cpus().length}`,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.type()} ${os.release()}`,
  };
}

let server;
let url = process.env.SMQ_BENCH_PG_URL;
if (!url) {
  const { startPgServer } = await loadPgServer();
  log('starting a throwaway PostgreSQL');
  server = await startPgServer();
  url = server.url;
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
  await admin.end();
  server.restart();
  const again = new pg.Client({ connectionString: server.adminUrl });
  await again.connect();
  // Planning counts too: a statement of 200 UNION ALL branches spends real time there.
  await again.query('ALTER SYSTEM SET pg_stat_statements.track_planning = on');
  await again.query('SELECT pg_reload_conf()');
  await again.end();
}

const client = new pg.Client({ connectionString: url });
let backend;
try {
  await client.connect();
  await initPgmq(client);
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  backend = await openBackend({ kind: 'pgmq', url }, {});
  const env = await environment(client);
  const results = [];
  for (const layout of LAYOUTS) {
    const sizes = await load(client, layout);
    for (const threshold of THRESHOLDS) {
      log(`${layout}: measuring with exact threshold ${threshold}`);
      const m = await measure(client, backend, threshold);
      results.push({
        layout,
        queues: QUEUES,
        messages: MESSAGES,
        largestQueue: sizes[0],
        smallestQueue: sizes.at(-1),
        queuesAboveThreshold: sizes.filter((n) => n > threshold).length,
        ...m,
        dbTimeRatio: round2(m.dbMsPerCall.metricsAll / m.dbMsPerCall.listQueues),
        candidateDbTimeRatio: round2(m.dbMsPerCall.metricsAll / m.dbMsPerCall.candidate),
      });
    }
  }
  const doc = { at: new Date().toISOString(), trials: TRIALS, warmup: WARMUP, inFlightShare: IN_FLIGHT_SHARE, environment: env, results };
  writeFileSync(join(BENCH, 'top-refresh.results.json'), JSON.stringify(doc, null, 2) + '\n');
  process.stdout.write(
    `smq top refresh vs pgmq.metrics_all(): ${QUEUES} queues, ${MESSAGES} messages, ${TRIALS} trials (median / server mean)\n` +
      `PostgreSQL ${env.postgres}, ${env.pgmq}, ${env.cpu}, node ${env.node}\n\n` +
      'layout   threshold  estimated  listQueues db ms  metrics_all db ms  ratio  candidate db ms  ratio  (round trip ms: list / metrics / candidate)\n',
  );
  for (const r of results) {
    process.stdout.write(
      `${r.layout.padEnd(8)} ${String(r.threshold).padStart(9)}  ${String(r.queuesEstimated).padStart(9)}  ` +
        `${r.dbMsPerCall.listQueues.toFixed(1).padStart(16)}  ${r.dbMsPerCall.metricsAll.toFixed(1).padStart(17)}  ` +
        `${(r.dbTimeRatio + 'x').padStart(5)}  ${r.dbMsPerCall.candidate.toFixed(1).padStart(15)}  ${(r.candidateDbTimeRatio + 'x').padStart(5)}  ` +
        `(${r.roundTripMsMedian.listQueues.toFixed(1)} / ${r.roundTripMsMedian.metricsAll.toFixed(1)} / ${r.roundTripMsMedian.candidate.toFixed(1)})\n`,
    );
  }
} finally {
  await backend?.close().catch(() => undefined);
  await client.end().catch(() => undefined);
  server?.stop();
}
