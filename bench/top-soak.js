#!/usr/bin/env node
// Does a long `smq top` keep its memory? The built smq top runs in a real terminal (tmux)
// at --interval 0.5 on 200 pgmq queues that a feeder keeps busy (every row's counts, ages
// and rates change at every refresh), for BENCH_SOAK_MINUTES (10). The RSS of the top
// process is read from /proc every BENCH_SOAK_SAMPLE_S (5) seconds. The figure is the
// growth after the first minute (start-up, code warm-up and the one-minute depth history
// filling are in the first minute): the median RSS of the last 30 s minus the median RSS
// of the 30 s after minute one. It passes at ≤ 10 MB (BENCH_SOAK_LIMIT_MB).
//
//   npm run build && node bench/top-soak.js        (or: npm run bench:soak)
//
// Environment: BENCH_SOAK_MINUTES (10), BENCH_SOAK_QUEUES (200), SMQ_BENCH_PG_URL (a server
// of yours with pgmq or room for smq's schema; its soak_* queues are dropped afterwards),
// SMQ_PG_BIN. Needs tmux and Linux (/proc). Writes bench/results/top-soak-<date>.json and
// exits 1 when the growth is over the limit or top died.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { loadPgServer } from './pg-server.js';

const BENCH = dirname(fileURLToPath(import.meta.url));
const REPO = join(BENCH, '..');
const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 10);
const QUEUES = Number(process.env.BENCH_SOAK_QUEUES ?? 200);
const SAMPLE_MS = Number(process.env.BENCH_SOAK_SAMPLE_S ?? 5) * 1000;
const LIMIT_MB = Number(process.env.BENCH_SOAK_LIMIT_MB ?? 10);
const INTERVAL_S = 0.5;
const PREFIX = 'soak_';

const log = (text) => process.stderr.write(`top-soak: ${text}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? NaN : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const mb = (kb) => Math.round((kb / 1024) * 10) / 10;

if (!existsSync(join(REPO, 'dist', 'cli.js'))) {
  log("dist/ is missing: run 'npm run build' first");
  process.exit(1);
}
if (spawnSync('tmux', ['-V']).status !== 0) {
  log('tmux is needed (apt-get install tmux)');
  process.exit(1);
}
const { initPgmq } = await import('../dist/backends/pgmq/install.js');
const pg = (await import('pg')).default;

let server;
let url = process.env.SMQ_BENCH_PG_URL;
if (!url) {
  const { startPgServer } = await loadPgServer();
  server = await startPgServer();
  url = server.url;
}
const socket = `smq-soak-${randomBytes(4).toString('hex')}`;
const tmp = mkdtempSync(join(os.tmpdir(), 'smq-soak-'));
const tmux = (...args) => execFileSync('tmux', ['-L', socket, '-f', join(tmp, 'tmux.conf'), ...args], { encoding: 'utf8' });
const db = new pg.Client({ connectionString: url });
let feeding = true;

async function cleanup() {
  feeding = false;
  spawnSync('tmux', ['-L', socket, 'kill-server']);
  try {
    const r = await db.query(`SELECT queue_name FROM pgmq.meta WHERE queue_name LIKE '${PREFIX}%'`);
    for (const row of r.rows) await db.query('SELECT pgmq.drop_queue($1)', [row.queue_name]);
    await db.end();
  } catch {
    // the server is going away anyway
  }
  server?.stop();
  rmSync(tmp, { recursive: true, force: true });
}

/** RSS of a process in kB, or undefined when it has gone. */
function rssKb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Every queue gets 0–3 messages and loses 0–3 (pop) each tick: depths, ages and rates move. */
async function feed(names) {
  while (feeding) {
    try {
      await db.query(
        `SELECT pgmq.send(q, jsonb_build_object('at', clock_timestamp()))
           FROM unnest($1::text[]) q, generate_series(1, 1 + (random() * 2)::int)`,
        [names],
      );
      await db.query(`SELECT pgmq.pop(q) FROM unnest($1::text[]) q, generate_series(1, (random() * 3)::int)`, [names]);
    } catch (e) {
      if (feeding) log(`feeder: ${e.message}`);
    }
    await sleep(250);
  }
}

let exitCode;
try {
  await db.connect();
  await initPgmq(db);
  const names = Array.from({ length: QUEUES }, (_, i) => `${PREFIX}${String(i).padStart(3, '0')}`);
  log(`creating ${QUEUES} queues`);
  for (const n of names) await db.query('SELECT pgmq.create($1)', [n]);
  const feeder = feed(names);

  writeFileSync(join(tmp, 'tmux.conf'), 'set -g status off\nset -g remain-on-exit on\n');
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmp, TERM: 'xterm-256color', LANG: 'C.UTF-8' };
  tmux(
    'new-session',
    '-d',
    '-s',
    'soak',
    '-x',
    '160',
    '-y',
    '50',
    '--',
    'env',
    '-i',
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
    process.execPath,
    join(REPO, 'bin', 'smq.js'),
    '--url',
    url,
    'top',
    '--interval',
    String(INTERVAL_S),
  );
  const pid = Number(tmux('display-message', '-p', '-t', 'soak', '#{pane_pid}').trim());
  log(`top is pid ${pid}; sampling its RSS every ${SAMPLE_MS / 1000} s for ${MINUTES} min`);

  const started = Date.now();
  const samples = [];
  let died = false;
  while (Date.now() - started < MINUTES * 60_000) {
    const kb = rssKb(pid);
    if (kb === undefined) {
      died = true;
      break;
    }
    samples.push({ s: Math.round((Date.now() - started) / 1000), kb });
    if (samples.length % 12 === 0) log(`${samples.at(-1).s} s: RSS ${mb(kb)} MB`);
    await sleep(SAMPLE_MS);
  }
  const screen = tmux('capture-pane', '-p', '-t', 'soak');
  feeding = false;
  await feeder;

  const after = (from, to) => samples.filter((x) => x.s >= from && x.s < to).map((x) => x.kb);
  const endS = samples.at(-1)?.s ?? 0;
  const atOneMinute = median(after(60, 90));
  const atEnd = median(after(endS - 30, endS + 1));
  const growthMb = mb(atEnd - atOneMinute);
  const peakMb = mb(Math.max(...after(60, Infinity)));
  const refreshing = new RegExp(`${QUEUES} of ${QUEUES} queues`).test(screen);
  const pass = !died && refreshing && growthMb <= LIMIT_MB;
  const result = {
    date: new Date().toISOString(),
    host: { cpus: os.cpus().length, node: process.version, load: os.loadavg().map((l) => Math.round(l * 100) / 100) },
    queues: QUEUES,
    intervalS: INTERVAL_S,
    minutes: MINUTES,
    rssAtOneMinuteMb: mb(atOneMinute),
    rssAtEndMb: mb(atEnd),
    peakAfterOneMinuteMb: peakMb,
    growthAfterOneMinuteMb: growthMb,
    limitMb: LIMIT_MB,
    died,
    pass,
    samples,
  };
  mkdirSync(join(BENCH, 'results'), { recursive: true });
  const file = join(BENCH, 'results', `top-soak-${result.date.replace(/[:.]/g, '-').slice(0, 19)}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  if (died) log(`top died after ${endS} s; its screen:\n${screen}`);
  else if (!refreshing) log(`top's screen does not show the queue list at the end:\n${screen}`);
  process.stdout.write(
    `top --interval ${INTERVAL_S} on ${QUEUES} busy queues for ${MINUTES} min: RSS ${mb(atOneMinute)} MB at 1 min, ` +
      `${mb(atEnd)} MB at the end (peak ${peakMb} MB): growth after the first minute ${growthMb} MB ` +
      `(limit ${LIMIT_MB} MB): ${pass ? 'PASS' : 'FAIL'}\n` +
      `written to ${file}\n`,
  );
  exitCode = pass ? 0 : 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
