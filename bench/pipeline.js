// The tester's hot path, library against library: smq's own protocol path (wire.ts, through
// wire-pool.ts's WirePool: what a tester worker's dedicated backend runs on) against
// node-postgres's pipeline mode
// (`new pg.Client({ pipeline: true })`), both driving the same statements (sql.ts's named
// send/read/delete, as the pgmq backend builds them for the server's columns) on CLIENTS
// connections each, from this one thread, with nothing else in the process.
//
// Paired rounds: each round runs both sides back to back, A then B, and the next round B then
// A (a slow spell of the shared host falls on both sides alike); a ratio is the median of the
// rounds' ratios (pg / wire). Per side: calls per second and the client's CPU per call
// (process.cpuUsage of this process, user + system, over the timed window). The queue is
// purged and vacuumed before every timed window so both sides start from the same table.
//
// Two workloads: send alone (one call in flight per connection), and the cycle as a tester
// receiver runs it: send, then the delete of the previous message pipelined with the next read
// (three calls per cycle, two of them in flight together).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** node-postgres in pipeline mode, one connection per caller (the candidate for the hot path). */
async function openPipelined(pg, url) {
  const c = new pg.Client({ connectionString: url, pipeline: true });
  c.on('error', () => {});
  await c.connect();
  return { query: (q) => c.query(q), end: () => c.end() };
}

/** wire.ts's WirePool (dist/), one dedicated connection per caller on the socket a tester worker has (wire-socket.ts). */
async function openWire(WirePool, ownReadsSocket, url) {
  const p = new WirePool({ connectionString: url, stream: ownReadsSocket });
  await p.query('SELECT 1');
  return { query: (q) => p.query(q), end: () => p.end() };
}

async function timed(conns, seconds, loop) {
  let stop = false;
  const timer = setTimeout(() => (stop = true), seconds * 1000);
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const counts = await Promise.all(conns.map((c) => loop(c, () => stop)));
  const wallSec = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  clearTimeout(timer);
  const calls = counts.reduce((a, b) => a + b, 0);
  return { perSec: calls / wallSec, cpuUsPerCall: (cpu.user + cpu.system) / calls, calls };
}

/**
 * Runs the comparison on `url` (a database with pgmq or smq's compat schema). Returns
 * { send, cycle }, each { rounds: [{ wire, pg }], perSecRatio, cpuRatio } (ratios pg / wire).
 */
export async function comparePipelines({ pg, dist, url, clients, seconds, rounds, bodyBytes, label, log }) {
  const { WirePool } = await import(join(dist, 'backends', 'pgmq', 'wire-pool.js'));
  const { ownReadsSocket } = await import(join(dist, 'backends', 'pgmq', 'wire-socket.js'));
  const sql = await import(join(dist, 'backends', 'pgmq', 'sql.js'));
  const { openBackend } = await import(join(dist, 'backends', 'index.js'));
  const probe = await openBackend({ kind: 'pgmq', url });
  const columns = probe.columns;
  await probe.close();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const Q = 'bench_pipeline';
  await admin.query('SELECT pgmq.create($1::text)', [Q]);
  const body = JSON.stringify({ p: 'x'.repeat(Math.max(0, bodyBytes - 8)) });
  const send = sql.sendQuery(Q, body, undefined, 0, columns);
  const read = sql.readQuery(Q, 30, 1, columns);
  const reset = async () => {
    await admin.query('SELECT pgmq.purge_queue($1::text)', [Q]);
    await admin.query(`VACUUM pgmq."q_${Q}"`);
  };

  const sides = {
    wire: await Promise.all(Array.from({ length: clients }, () => openWire(WirePool, ownReadsSocket, url))),
    pg: await Promise.all(Array.from({ length: clients }, () => openPipelined(pg, url))),
  };
  const workloads = {
    send: async (c, stopped) => {
      let n = 0;
      while (!stopped()) {
        await c.query(send);
        n++;
      }
      return n;
    },
    cycle: async (c, stopped) => {
      let n = 0;
      let prev;
      while (!stopped()) {
        await c.query(send);
        const [, got] = await Promise.all([prev === undefined ? undefined : c.query(sql.deleteQuery(Q, [BigInt(prev)])), c.query(read)]);
        prev = got.rows[0]?.msg_id;
        n += 3;
      }
      return n;
    },
  };
  const out = {};
  try {
    for (const [name, loop] of Object.entries(workloads)) {
      // Warm-up: every statement prepared on every connection, the JIT settled.
      for (const side of ['wire', 'pg']) await timed(sides[side], Math.max(1, seconds / 2), loop);
      const rs = [];
      for (let i = 0; i < rounds; i++) {
        const order = i % 2 === 0 ? ['wire', 'pg'] : ['pg', 'wire'];
        const r = {};
        for (const side of order) {
          await reset();
          r[side] = await timed(sides[side], seconds, loop);
        }
        rs.push(r);
        log(
          `${label} ${name}: round ${i + 1}/${rounds}: wire ${Math.round(r.wire.perSec)} calls/s ${r.wire.cpuUsPerCall.toFixed(1)} µs CPU/call, ` +
            `pg pipeline ${Math.round(r.pg.perSec)} calls/s ${r.pg.cpuUsPerCall.toFixed(1)} µs CPU/call`,
        );
      }
      out[name] = {
        rounds: rs,
        perSecRatio: median(rs.map((r) => r.pg.perSec / r.wire.perSec)),
        cpuRatio: median(rs.map((r) => r.pg.cpuUsPerCall / r.wire.cpuUsPerCall)),
      };
    }
  } finally {
    for (const c of [...sides.wire, ...sides.pg]) await c.end().catch(() => undefined);
    await admin.query('SELECT pgmq.drop_queue($1::text)', [Q]).catch(() => undefined);
    await admin.end();
  }
  return out;
}

/** The folder with the real pgmq releases, or undefined (then that part is skipped). */
export function realPgmqDir(repo) {
  const dir = process.env.SMQ_TEST_PGMQ_DIR ?? join(repo, '..', 'shared', 'pgmq');
  return existsSync(join(dir, '1.13.0', 'pgmq.sql')) ? dir : undefined;
}

/** A database on the server with the real pgmq 1.13.0 installed from its plain SQL script. */
export async function createRealPgmqDatabase(pg, adminUrl, dir, db = 'bench_pgmq_1_13_0') {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${db}`);
  await admin.query(`CREATE DATABASE ${db}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${db}`;
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  await c.query(readFileSync(join(dir, '1.13.0', 'pgmq.sql'), 'utf8'));
  await c.end();
  return u.toString();
}

/** Markdown lines for one comparison. */
export function pipelineLines(title, res, { clients, seconds, rounds }) {
  const m = (xs) => median(xs);
  const lines = [
    `### ${title}`,
    '',
    `${clients} connections per side in one thread; ${rounds} paired rounds of ${seconds}s per side (order alternating); ratios pg / wire, median of the rounds'.`,
    '',
    '| workload | wire.ts (calls/s) | pg pipeline (calls/s) | throughput ratio | wire.ts CPU/call | pg CPU/call | CPU ratio | within 5% (both) |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const [name, r] of Object.entries(res)) {
    const ok = r.perSecRatio >= 0.95 && r.cpuRatio <= 1.05;
    lines.push(
      `| ${name === 'send' ? 'pgmq.send' : 'send → (delete ∥ read) cycle'} | ${Math.round(m(r.rounds.map((x) => x.wire.perSec)))} | ${Math.round(m(r.rounds.map((x) => x.pg.perSec)))} | **${r.perSecRatio.toFixed(3)}** | ` +
        `${m(r.rounds.map((x) => x.wire.cpuUsPerCall)).toFixed(1)} µs | ${m(r.rounds.map((x) => x.pg.cpuUsPerCall)).toFixed(1)} µs | **${r.cpuRatio.toFixed(3)}** | ${ok ? 'yes' : 'no'} |`,
    );
  }
  for (const [name, r] of Object.entries(res)) {
    lines.push(
      `- ${name}: per-round throughput ratios ${r.rounds.map((x) => (x.pg.perSec / x.wire.perSec).toFixed(3)).join(', ')}; CPU ratios ${r.rounds.map((x) => (x.pg.cpuUsPerCall / x.wire.cpuUsPerCall).toFixed(3)).join(', ')}`,
    );
  }
  lines.push('');
  return lines;
}
