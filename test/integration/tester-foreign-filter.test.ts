// smq tester --allow-foreign on a queue holding others' messages (issue 13 item 3, found by
// hand): the receivers must ask the store for this run's messages only, so the others are
// never claimed: still there, visible, read count / tries 0. pgmq 1.4 has no filtered read:
// there the tester receives them and hands them back (with a warning).
// The 8 messages are put in with the test's own SQL; the runs use real worker threads (dist/).
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import type { TesterConfig } from '../../src/tester/index.js';
import { ensureBuilt } from '../helpers/run-cli.js';
import { clonePgmq } from '../helpers/real-pgmq.js';
import { baseConfig, loadBackends, loadTester, tempSqlite } from '../helpers/tester-dist.js';

beforeAll(() => ensureBuilt(), 300_000);
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const freshQueue = () => `tf_${randomBytes(4).toString('hex')}`;
const releases = inject('pgmqReleases');

/** Plain bodies of strangers, some odd on purpose (another run's id, a non-text r, not objects). */
const PG_BODIES = [
  '{"order": 1}',
  '{"order": 2, "r": "another-run"}',
  '{"r": 7}',
  '{"r": {"x": 1}}',
  '[1, 2]',
  '"just text"',
  '{"order": 7}',
  '{}',
];

async function pgQuery<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

const pgTargets: [string, () => Promise<string>][] = [
  ['compat schema', async () => inject('pgUrl')],
  ...Object.entries(releases)
    .filter(([release]) => release !== '1.4.4')
    .map(([release, template]): [string, () => Promise<string>] => [
      `pgmq ${release}`,
      () => clonePgmq(template, `foreign_${release.replaceAll('.', '_')}_${randomBytes(3).toString('hex')}`),
    ]),
];

async function run(target: TesterConfig['target'], queue: string) {
  const { TesterRun } = await loadTester();
  return new TesterRun(
    baseConfig(target, { queue, keep: true, allowForeign: true, batch: 1, senders: 2, receivers: 2, messagesPerSender: 200 }),
  ).run();
}

describe.each(pgTargets)('--allow-foreign on %s', (_label, makeUrl) => {
  test("others' messages are never claimed: still there, visible, read_ct 0; verdict clean", async () => {
    const url = await makeUrl();
    const queue = freshQueue();
    await pgQuery(url, 'SELECT pgmq.create($1)', [queue]);
    for (const body of PG_BODIES) await pgQuery(url, 'SELECT pgmq.send($1, $2::jsonb)', [queue, body]);

    const report = await run({ kind: 'pgmq', url }, queue);
    expect(report.counts).toMatchObject({ sent: 400, ok: 400, lost: 0, unexpected: 0, foreign: 8, foreignDeliveries: 0 });
    expect(report.verdict).toBe('clean');
    expect(report.queue.messagesAfter).toBe(8);
    const warnings = report.tester.warnings.join('\n');
    expect(warnings).toMatch(/8 message\(s\) without this run's id are in the queue: left untouched/);
    expect(warnings).not.toMatch(/read count/);
    const rows = await pgQuery<{ n: string }>(
      url,
      `SELECT count(*) AS n FROM pgmq.q_${queue} WHERE read_ct = 0 AND vt <= clock_timestamp()`,
    );
    expect(Number(rows[0]!.n)).toBe(8);
  }, 90_000);
});

describe.skipIf(releases['1.4.4'] === undefined)('--allow-foreign on pgmq 1.4.4 (no filtered read)', () => {
  test('the old way: received, handed back, counted, with the warning', async () => {
    const url = await clonePgmq(releases['1.4.4']!, `foreign_1_4_4_${randomBytes(3).toString('hex')}`);
    const queue = freshQueue();
    await pgQuery(url, 'SELECT pgmq.create($1)', [queue]);
    for (const body of PG_BODIES) await pgQuery(url, 'SELECT pgmq.send($1, $2::jsonb)', [queue, body]);
    const { openBackend } = await loadBackends();
    const b = await openBackend({ kind: 'pgmq', url }, {});
    expect(b.capabilities.receiveByRunId).toBe(false);
    await b.close();

    const report = await run({ kind: 'pgmq', url }, queue);
    expect(report.counts).toMatchObject({ sent: 400, ok: 400, lost: 0, unexpected: 0, foreign: 8 });
    expect(report.verdict).toBe('clean');
    expect(report.tester.warnings.join('\n')).toMatch(
      /8 message\(s\) without this run's id were received \d+ time\(s\) and handed back .*read count/,
    );
    const rows = await pgQuery<{ n: string }>(url, `SELECT count(*) AS n FROM pgmq.q_${queue} WHERE vt <= clock_timestamp()`);
    expect(Number(rows[0]!.n)).toBe(8);
  }, 90_000);
});

test("--allow-foreign on a SmoothMQ SQLite file: others' messages (JSON or not) keep tries 0, visible", async () => {
  const t = tempSqlite();
  cleanups.push(t.cleanup);
  const target: TesterConfig['target'] = { kind: 'sqlite', path: t.path };
  const queue = freshQueue();
  const { openBackend } = await loadBackends();
  const b = await openBackend(target, { create: true });
  await b.createQueue(queue);
  await b.close();
  const db = new Database(t.path);
  cleanups.push(() => void db.close());
  db.pragma('busy_timeout = 5000');
  const q = db.prepare('SELECT id, tenant_id FROM queues WHERE name = ?').get(queue) as { id: number | bigint; tenant_id: number | bigint };
  const insert = db.prepare(
    `INSERT INTO messages (id, tenant_id, queue_id, deliver_at, delivered_at, tries, max_tries, message)
     VALUES (?, ?, ?, CAST(strftime('%s','now') AS INTEGER) - 60, 0, 0, -1, ?)`,
  );
  const bodies: (string | Buffer)[] = [
    'not json at all',
    '{"r": "another-run"}',
    '{"r": 7}',
    '{"r": {"x": 1}}',
    '[1,2]',
    Buffer.from([0xff, 0x00, 0x8c]),
    '{"order": 7}',
    '{',
  ];
  bodies.forEach((body, i) => insert.run(1000 + i, q.tenant_id, q.id, body));

  const report = await run(target, queue);
  expect(report.counts).toMatchObject({ sent: 400, ok: 400, lost: 0, unexpected: 0, foreign: 8, foreignDeliveries: 0 });
  expect(report.verdict).toBe('clean');
  expect(report.tester.warnings.join('\n')).toMatch(/8 message\(s\) without this run's id are in the queue: left untouched/);
  const untouched = db
    .prepare(`SELECT count(*) AS n FROM messages WHERE queue_id = ? AND tries = 0 AND deliver_at <= CAST(strftime('%s','now') AS INTEGER)`)
    .get(q.id) as { n: number | bigint };
  expect(Number(untouched.n)).toBe(8);
}, 90_000);

describe.each(['safe', 'naive'] as const)('Backend.receive with runId, %s dequeue', (dequeue) => {
  test('pgmq (compat schema): only bodies with r = runId are claimed', async () => {
    const url = inject('pgUrl');
    const queue = freshQueue();
    await pgQuery(url, 'SELECT pgmq.create($1)', [queue]);
    for (const body of PG_BODIES) await pgQuery(url, 'SELECT pgmq.send($1, $2::jsonb)', [queue, body]);
    await pgQuery(url, 'SELECT pgmq.send($1, $2::jsonb)', [queue, '{"r": "run-1", "s": 0, "q": 0}']);
    const { openBackend } = await loadBackends();
    const b = await openBackend({ kind: 'pgmq', url }, {});
    try {
      const got = await b.receive(queue, { qty: 20, vtSec: 30, dequeue, runId: 'run-1' });
      expect(got.map((m) => JSON.parse(m.body).r)).toEqual(['run-1']);
    } finally {
      await b.close();
    }
    const rows = await pgQuery<{ n: string }>(url, `SELECT count(*) AS n FROM pgmq.q_${queue} WHERE read_ct = 0`);
    expect(Number(rows[0]!.n)).toBe(8);
  }, 30_000);

  test('SQLite: only bodies with r = runId are claimed, bodies that are not JSON included', async () => {
    const t = tempSqlite();
    cleanups.push(t.cleanup);
    const queue = freshQueue();
    const { openBackend } = await loadBackends();
    const b = await openBackend({ kind: 'sqlite', path: t.path }, { create: true });
    try {
      await b.createQueue(queue);
      for (const body of ['not json', '{"r": "run-2"}', '{"r": 1}', '{"r": {"x": 1}}', '{', '{"r": "run-1", "s": 0, "q": 0}'])
        await b.send(queue, { body });
      const got = await b.receive(queue, { qty: 20, vtSec: 30, dequeue, runId: 'run-1' });
      expect(got.map((m) => m.body)).toEqual(['{"r": "run-1", "s": 0, "q": 0}']);
      const left = await b.peek(queue, { limit: 20, state: 'all' });
      expect(left.filter((m) => m.readCount === 0)).toHaveLength(5);
    } finally {
      await b.close();
    }
  }, 30_000);
});
