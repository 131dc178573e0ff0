#!/usr/bin/env node
// The README's failover table: `smq tester` across a failover on the local harness (a primary
// and a streaming standby, test/helpers/replica.ts), asynchronous against synchronous
// replication. Each run: a fresh pair, the tester on the multi-host URL (2 senders, 2
// receivers, 300 msg/s, 8 s, --vt 2s, --ack archive); once messages flow the replication
// connection is cut, 2 s later the primary is killed (pg_ctl stop -m immediate) and the
// standby promoted. Per run: sends acknowledged, lost, resurrected, duplicated, uncertain,
// the time writes were impossible, the verdict.
//
//   npm run build && node bench/failover.js
//
// Environment: BENCH_RUNS (5), BENCH_MODES ("async,sync"), SMQ_PG_BIN (PostgreSQL binaries).
// Writes bench/results/<date>-failover.md and prints it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH = dirname(fileURLToPath(import.meta.url));
const REPO = join(BENCH, '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const MODES = (process.env.BENCH_MODES ?? 'async,sync').split(',');
const log = (text) => process.stderr.write(`failover: ${text}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** test/helpers/replica.ts compiled inside the repository (its imports resolve from node_modules). */
async function loadReplica() {
  const out = mkdtempSync(join(BENCH, '.failover-build-'));
  writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
  // smq's compat schema is read from sql/ next to the compiled source.
  symlinkSync(join(REPO, 'sql'), join(out, 'sql'));
  const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
  const args = ['--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node'];
  execFileSync(
    process.execPath,
    [tsc, ...args, '--skipLibCheck', '--rootDir', REPO, '--outDir', out, join(REPO, 'test', 'helpers', 'replica.ts')],
    {
      stdio: 'inherit',
    },
  );
  return { mod: await import(join(out, 'test', 'helpers', 'replica.js')), cleanup: () => rmSync(out, { recursive: true, force: true }) };
}

function startTester(url) {
  const args = ['tester', '--url', url, '--senders', '2', '--receivers', '2', '--rate', '300', '--duration', '8s'];
  args.push('--vt', '2', '--ack', 'archive', '--drain-timeout', '3s', '--json');
  const child = spawn(process.execPath, [join(REPO, 'bin', 'smq.js'), ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let flowed;
  const flowing = new Promise((resolve) => (flowed = resolve));
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d;
    if (/sent [1-9][\d,]*.* received [1-9]/.test(stderr)) flowed();
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const done = new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      flowed();
      resolve({ code, stdout, stderr });
    }),
  );
  return { flowing, done };
}

async function oneRun(replica, mode) {
  const pair = await replica.startReplicaPair({ sync: mode === 'sync' });
  try {
    const tester = startTester(pair.multiHostUrl('read-write'));
    await tester.flowing;
    await pair.pauseReplication();
    await sleep(2000);
    await pair.killPrimary();
    await pair.promoteStandby();
    const r = await tester.done;
    const report = JSON.parse(r.stdout);
    const c = report.counts;
    return {
      acknowledged: c.sent,
      lost: c.lost,
      resurrected: c.resurrected,
      duplicated: c.duplicated,
      uncertain: c.uncertain,
      writesMs: report.writeUnavailable.totalMs,
      verdict: report.verdict,
      exit: r.code,
    };
  } finally {
    await pair.stop();
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function main() {
  const { mod, cleanup } = await loadReplica();
  const results = {};
  try {
    for (let i = 0; i < RUNS; i++) {
      // Interleaved, so that a drift of the host's speed touches both modes alike.
      for (const mode of MODES) {
        const r = await oneRun(mod, mode);
        log(`${mode} run ${i + 1}: ${JSON.stringify(r)}`);
        (results[mode] ??= []).push(r);
      }
    }
  } finally {
    cleanup();
  }
  const pgVersion = execFileSync(join(process.env.SMQ_PG_BIN ?? '/usr/lib/postgresql/15/bin', 'postgres'), ['--version'], {
    encoding: 'utf8',
  }).trim();
  const lines = [
    `# smq tester across a failover (${new Date().toISOString()})`,
    '',
    `${pgVersion}; node ${process.version}; ${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? '?'}); load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} at the end.`,
    'Each run: 2 senders, 2 receivers, 300 msg/s for 8 s, --vt 2s, --ack archive; replication cut once messages flow, the primary killed 2 s later, the standby promoted.',
    '',
    '| replication | run | acknowledged | lost | resurrected | duplicated | uncertain | writes impossible | verdict (exit) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const [mode, rs] of Object.entries(results)) {
    rs.forEach((r, i) =>
      lines.push(
        `| ${mode} | ${i + 1} | ${r.acknowledged} | ${r.lost} | ${r.resurrected} | ${r.duplicated} | ${r.uncertain} | ${(r.writesMs / 1000).toFixed(2)} s | ${r.verdict} (${r.exit}) |`,
      ),
    );
    const med = (k) => median(rs.map((r) => r[k]));
    lines.push(
      `| ${mode} | median | ${med('acknowledged')} | ${med('lost')} | ${med('resurrected')} | ${med('duplicated')} | ${med('uncertain')} | ${(med('writesMs') / 1000).toFixed(2)} s | |`,
    );
  }
  const text = lines.join('\n') + '\n';
  mkdirSync(join(BENCH, 'results'), { recursive: true });
  const file = join(BENCH, 'results', `${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}-failover.md`);
  writeFileSync(file, text);
  process.stdout.write(text);
  log(`written to ${file}`);
}

await main();
