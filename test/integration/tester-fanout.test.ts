// smq tester --topic KEY --bind PATTERN=QUEUE (fan-out): real worker threads (from dist/) on
// smq's compat schema and on real pgmq 1.13.0 (plain SQL; skipped without SMQ_TEST_PGMQ_DIR).
// A clean run to three queues with overlapping patterns and two keys is judged per queue, the
// queues and bindings are gone after it; faults injected from outside by the test's own SQL
// (a stray pgmq.send into a queue the key does not route to, a message deleted from another)
// are found as unexpected and lost in those queues. SQLite and pgmq 1.4.4 refuse with one line.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import type { TesterConfig } from '../../src/tester/index.js';
import { clonePgmq, NO_RELEASES } from '../helpers/real-pgmq.js';
import { ensureBuilt, runCli } from '../helpers/run-cli.js';
import { baseConfig, loadTester } from '../helpers/tester-dist.js';

beforeAll(() => ensureBuilt(), 300_000);

const installs = inject('pgmqInstalls').filter((i) => i.release === '1.13.0' && i.form === 'sql');
const stores: { name: string; url: () => Promise<string> }[] = [
  { name: 'compat schema', url: async () => inject('pgUrl') },
  ...installs.map((i) => ({
    name: i.label,
    url: () => clonePgmq(i.template, `fanout_${randomBytes(4).toString('hex')}`),
  })),
];

/** A word of this test's own: its keys and queues meet no other test's bindings. */
const word = () => `fo${randomBytes(3).toString('hex')}`;

async function run(url: string, patch: Partial<TesterConfig>) {
  const { TesterRun } = await loadTester();
  return new TesterRun(baseConfig({ kind: 'pgmq', url }, patch)).run();
}

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** Runs `step` every `everyMs` on the test's own connection while the run goes on. */
async function alongside<T>(url: string, running: Promise<T>, everyMs: number, step: (c: pg.Client) => Promise<void>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  let done = false;
  const finished = running.finally(() => (done = true));
  try {
    while (!done) {
      await step(c);
      await Promise.race([finished.catch(() => undefined), new Promise((r) => setTimeout(r, everyMs))]);
    }
    return await finished;
  } finally {
    await c.end();
  }
}

describe.each(stores)('tester --topic on $name', (store) => {
  test('two keys, three queues, overlapping patterns: each copy once where its key routes, nothing elsewhere; all removed after', async () => {
    const url = await store.url();
    const w = word();
    const [qa, qb, qc] = [`${w}_a`, `${w}_b`, `${w}_c`];
    const report = await run(url, {
      senders: 2,
      receivers: 4,
      messagesPerSender: 100,
      batch: 5,
      fanout: {
        keys: [`${w}.eu.new`, `${w}.us.old`],
        binds: [
          { pattern: `${w}.*.new`, queue: qa },
          { pattern: `${w}.#`, queue: qb },
          { pattern: `${w}.us.*`, queue: qc },
          { pattern: `*.*.old`, queue: qc },
        ],
      },
    });
    // Keys in turn per call of 5: 50 messages of each sender under each key.
    expect(report.fanout?.keys).toEqual([
      { key: `${w}.eu.new`, queues: [qa, qb] },
      { key: `${w}.us.old`, queues: [qb, qc] },
    ]);
    expect(report.fanout?.queues).toEqual([
      { queue: qa, patterns: [`${w}.*.new`], expected: 100, ok: 100, lost: 0, unexpected: 0, other: 0, notDeleted: 0 },
      { queue: qb, patterns: [`${w}.#`], expected: 200, ok: 200, lost: 0, unexpected: 0, other: 0, notDeleted: 0 },
      { queue: qc, patterns: [`${w}.us.*`, '*.*.old'], expected: 100, ok: 100, lost: 0, unexpected: 0, other: 0, notDeleted: 0 },
    ]);
    expect(report.verdict).toBe('clean');
    expect(report.counts).toMatchObject({ sent: 400, ok: 400, lost: 0, unexpected: 0, doubleDequeued: 0, duplicated: 0 });
    // What the run cost the database: every bound queue's tables (before: only the first's).
    const tables = report.database?.tables ?? [];
    expect(tables.map((t) => t.table).sort()).toEqual([`a_${qa}`, `a_${qb}`, `a_${qc}`, `q_${qa}`, `q_${qb}`, `q_${qc}`]);
    expect(Object.fromEntries(tables.filter((t) => t.table.startsWith('q_')).map((t) => [t.table, t.inserted]))).toEqual({
      [`q_${qa}`]: 100,
      [`q_${qb}`]: 200,
      [`q_${qc}`]: 100,
    });
    // Queues dropped, bindings removed.
    expect(await query(url, 'SELECT queue_name FROM pgmq.meta WHERE queue_name = ANY($1::text[])', [[qa, qb, qc]])).toEqual([]);
    expect(await query(url, 'SELECT * FROM pgmq.test_routing($1)', [`${w}.us.old`])).toEqual([]);
    const { formatReport, htmlReport } = await loadTester();
    const text = formatReport(report);
    expect(text).toMatch(new RegExp(`key ${w}\\.eu\\.new → ${qa}, ${qb}`));
    expect(text).toMatch(new RegExp(`${qc} +100 +100 +0 +0 +0 +0 +${w}\\.us\\.\\* \\*\\.\\*\\.old`));
    expect(htmlReport(report)).toContain('Fan-out, queue by queue');
  }, 120_000);

  test('from outside: a stray pgmq.send into a queue the key misses is unexpected there; a message deleted from another is lost there', async () => {
    const url = await store.url();
    const w = word();
    const [qa, qb, qc] = [`${w}_a`, `${w}_b`, `${w}_c`];
    const runId = `fanout${randomBytes(3).toString('hex')}`;
    let stray = false;
    let deleted = 0;
    const running = run(url, {
      runId,
      senders: 2,
      receivers: 3,
      messagesPerSender: 200,
      batch: 2,
      ratePerSec: 400,
      fanout: {
        keys: [`${w}.eu.new`],
        binds: [
          { pattern: `${w}.*.new`, queue: qa },
          { pattern: `${w}.#`, queue: qb },
          { pattern: `${w}.us.*`, queue: qc },
        ],
      },
    });
    const report = await alongside(url, running, 5, async (c) => {
      const exists = async (q: string) => (await c.query('SELECT 1 FROM pgmq.meta WHERE queue_name = $1', [q])).rowCount === 1;
      if (!stray && (await exists(qc))) {
        // Looks like one of the run's messages (sender 0, seq 3), but the key never routes to qc.
        await c.query('SELECT pgmq.send($1, $2::jsonb)', [qc, JSON.stringify({ r: runId, s: 0, q: 3, t: 0 })]);
        stray = true;
      }
      if (deleted < 2 && (await exists(qb))) {
        // A waiting copy no receiver has taken: gone before anyone reads it.
        const r = await c
          .query(
            `DELETE FROM pgmq.q_${qb} WHERE msg_id = (SELECT msg_id FROM pgmq.q_${qb}
               WHERE read_ct = 0 AND vt <= clock_timestamp() ORDER BY msg_id LIMIT 1 FOR UPDATE SKIP LOCKED)`,
          )
          .catch(() => ({ rowCount: 0 }));
        deleted += r.rowCount ?? 0;
      }
    });
    expect(stray).toBe(true);
    expect(deleted).toBeGreaterThan(0);
    expect(report.verdict).toBe('violations');
    expect(report.fanout?.queues).toEqual([
      { queue: qa, patterns: [`${w}.*.new`], expected: 400, ok: 400, lost: 0, unexpected: 0, other: 0, notDeleted: 0 },
      { queue: qb, patterns: [`${w}.#`], expected: 400, ok: 400 - deleted, lost: deleted, unexpected: 0, other: 0, notDeleted: 0 },
      { queue: qc, patterns: [`${w}.us.*`], expected: 0, ok: 0, lost: 0, unexpected: 1, other: 0, notDeleted: 0 },
    ]);
    expect(report.counts).toMatchObject({ lost: deleted, unexpected: 1 });
    // The queue in a field of its own, the id the message's (before: id "qc#17", and a lost
    // example's id was the queue name).
    expect(report.examples.unexpected).toEqual([{ sender: 0, seq: 3, queue: qc, id: expect.stringMatching(/^\d+$/) }]);
    expect(report.examples.lost.length).toBe(deleted);
    for (const ex of report.examples.lost) expect(ex).toEqual({ sender: expect.any(Number), seq: expect.any(Number), queue: qb });
    const { formatReport } = await loadTester();
    expect(formatReport(report)).toMatch(new RegExp(`^lost examples: sender \\d+ seq \\d+ \\(queue ${qb}\\)`, 'm'));
    expect(await query(url, 'SELECT queue_name FROM pgmq.meta WHERE queue_name = ANY($1::text[])', [[qa, qb, qc]])).toEqual([]);
  }, 120_000);
});

describe.skipIf(installs.length > 0)('tester --topic on real pgmq 1.13.0', () => {
  test.skip(NO_RELEASES, () => undefined);
});

describe('smq tester --topic where the store has no topics: one line, exit 2, nothing created', () => {
  test('SQLite (SmoothMQ has no topics): embedded or a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'smq-fanout-'));
    try {
      const file = join(dir, 'q.sqlite');
      expect((await runCli(['init', '--sqlite', file])).code).toBe(0);
      for (const where of [[], ['--sqlite', file]]) {
        const r = await runCli(['tester', ...where, '--topic', 'a.b', '--bind', 'a.*=fanq']);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/--topic needs pgmq: SmoothMQ has no topics/);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stdout).toBe('');
      }
      expect(JSON.parse((await runCli(['queues', '--sqlite', file, '--json'])).stdout)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('bad --bind, --topic without --bind, a queue that exists: one line, exit 2', async () => {
    const url = inject('pgUrl');
    const w = word();
    for (const [flags, message] of [
      [['--topic', 'a.b', '--bind', 'a.*'], /--bind takes PATTERN=QUEUE/],
      [['--topic', 'a.b'], /--topic needs --bind PATTERN=QUEUE/],
      [['--bind', `a.*=${w}`], /--bind needs --topic KEY/],
    ] as const) {
      const r = await runCli(['tester', '--url', url, ...flags]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    await query(url, 'SELECT pgmq.create($1)', [`${w}_old`]);
    const r = await runCli(['tester', '--url', url, '--topic', `${w}.x`, '--bind', `${w}.*=${w}_new`, '--bind', `${w}.#=${w}_old`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`the queue ${w}_old exists already`));
    // Nothing created: not the fresh queue, no binding.
    expect(await query(url, 'SELECT queue_name FROM pgmq.meta WHERE queue_name = $1', [`${w}_new`])).toEqual([]);
    expect(await query(url, 'SELECT * FROM pgmq.test_routing($1)', [`${w}.x`])).toEqual([]);
    await query(url, 'SELECT pgmq.drop_queue($1)', [`${w}_old`]);
  });

  test('a key that reaches none of the --bind queues: one line before the run, exit 2, nothing left behind', async () => {
    const url = inject('pgUrl');
    const w = word();
    const started = Date.now();
    const r = await runCli([
      'tester',
      '--url',
      url,
      '--topic',
      `${w}.x`,
      '--topic',
      `other${w}.y`,
      '--bind',
      `${w}.*=${w}_q`,
      '--duration',
      '20s',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`the key other${w}\\.y reaches none of the --bind queues`));
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await query(url, 'SELECT queue_name FROM pgmq.meta WHERE queue_name = $1', [`${w}_q`])).toEqual([]);
    expect(await query(url, 'SELECT * FROM pgmq.test_routing($1)', [`${w}.x`])).toEqual([]);
  });

  const old = inject('pgmqInstalls').find((i) => i.release === '1.4.4');
  test.skipIf(old === undefined)(`pgmq 1.4.4 (no topics)${old ? '' : ` (${NO_RELEASES})`}`, async () => {
    const url = await clonePgmq(old!.template, `fanout_144_${randomBytes(3).toString('hex')}`);
    const r = await runCli(['tester', '--url', url, '--topic', 'a.b', '--bind', 'a.*=fanq']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--topic needs pgmq's topics/);
    expect(r.stderr).toMatch(/pgmq 1\.4\.4/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(await query(url, 'SELECT count(*)::int AS n FROM pgmq.meta')).toEqual([{ n: 0 }]);
  });
});
