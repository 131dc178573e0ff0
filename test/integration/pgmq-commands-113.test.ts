// pgmq 1.9–1.13's commands for scripts, end to end through the built binary: `receive
// --grouped*`, `groups`, (topics and notify: pgmq-commands-topics, -notify). On smq's compat
// schema and on real pgmq 1.13.0 (SMQ_TEST_PGMQ_DIR) they work, checked in the database
// after each command; on real pgmq 1.4.4 and SmoothMQ each says in one line what the store
// lacks, exits 2 and changes nothing.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ids, lackingStores, ok, openDb, real, refused, rows, stores113, uniqueQueue, type Db } from '../helpers/commands-113.js';
import { NO_RELEASES } from '../helpers/real-pgmq.js';
import { ensureBuilt, ndjson, runCli } from '../helpers/run-cli.js';

beforeAll(() => ensureBuilt(), 300_000);

/** Sends one message per group given (null: no header); returns their ids in order. */
async function sendGrouped(db: Db, queue: string, groups: readonly (string | null)[]): Promise<string[]> {
  const out: string[] = [];
  for (const [i, g] of groups.entries()) {
    const headers = g === null ? null : JSON.stringify({ 'x-pgmq-group': g });
    const r = await db.c.query<{ id: string }>('SELECT pgmq.send($1::text, $2::jsonb, $3::jsonb, 0)::text AS id', [
      queue,
      JSON.stringify({ i }),
      headers,
    ]);
    out.push(r.rows[0]!.id);
  }
  return out;
}

describe.each(stores113('cmds'))('on $name', (store) => {
  let db: Db;
  const smq = (args: string[]) => runCli([...args, '--url', db.url]);

  beforeAll(async () => {
    db = await openDb(await store.url());
  });
  afterAll(async () => {
    await db?.c.end();
  });

  test('receive --grouped-head takes the head of each group; groups shows them in flight; --grouped then gets nothing', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    const [a1, a2, a3, b1, b2, n1] = await sendGrouped(db, q, ['a', 'a', 'a', 'b', 'b', null]);

    const head = ok(await smq(['receive', q, '--grouped-head', '--qty', '10', '--vt', '60']));
    expect(ids(head).sort()).toEqual([a1, b1, n1].sort());
    expect(await rows(db, q)).toEqual([
      { id: a1, read_ct: 1, hidden: true },
      { id: a2, read_ct: 0, hidden: false },
      { id: a3, read_ct: 0, hidden: false },
      { id: b1, read_ct: 1, hidden: true },
      { id: b2, read_ct: 0, hidden: false },
      { id: n1, read_ct: 1, hidden: true },
    ]);

    const groups = ndjson(ok(await smq(['groups', q])).stdout);
    expect(groups).toEqual([
      { group: 'a', ready: 2, inFlight: 1, delayed: 0, headId: a1, headState: 'inflight', headReadCount: 1 },
      { group: 'b', ready: 1, inFlight: 1, delayed: 0, headId: b1, headState: 'inflight', headReadCount: 1 },
      { group: null, ready: 0, inFlight: 1, delayed: 0, headId: n1, headState: 'inflight', headReadCount: 1 },
    ]);

    // Every group's head is in flight: a grouped read gets nothing and changes nothing.
    const before = await rows(db, q);
    const none = ok(await smq(['receive', q, '--grouped', '--qty', '10']));
    expect(none.stdout).toBe('');
    expect(await rows(db, q)).toEqual(before);

    // Group a's head acknowledged (the test's own SQL): --grouped fills from group a.
    await db.c.query('SELECT pgmq.delete($1::text, $2::bigint)', [q, a1]);
    const fill = ok(await smq(['receive', q, '--grouped', '--qty', '5', '--json']));
    expect((JSON.parse(fill.stdout) as { id: string; headers: unknown }[]).map((m) => m.id)).toEqual([a2, a3]);
    expect((await rows(db, q)).filter((r) => r.read_ct === 1).map((r) => r.id)).toEqual([a2, a3, b1, n1]);
  });

  test('receive --grouped-rr takes round-robin across groups', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    const [a1, a2, b1, b2] = await sendGrouped(db, q, ['a', 'a', 'b', 'b']);
    const rr = ok(await smq(['receive', q, '--grouped-rr', '--qty', '3']));
    expect(ids(rr)).toEqual([a1, b1, a2]);
    expect((await rows(db, q)).map((r) => r.read_ct)).toEqual([1, 1, 1, 0]);
    expect(b2).toBeDefined();
  });

  test('groups in a table: the group-less lane named, an empty queue a note', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    const empty = await smq(['groups', q, '--output', 'table']);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toMatch(/no message in/);
    await sendGrouped(db, q, ['x', null]);
    const table = ok(await smq(['groups', q, '--output', 'table'])).stdout;
    expect(table.split('\n')[0]).toMatch(/^GROUP\s+READY\s+IN FLIGHT\s+DELAYED\s+HEAD\s+HEAD STATE\s+HEAD READS$/);
    expect(table).toMatch(/^x\s+1\s+0\s+0\s+\d+\s+ready\s+0$/m);
    expect(table).toMatch(/^\(no group\)\s+1/m);
  });

  test('bad use: two grouped modes, a missing queue', async () => {
    const q = uniqueQueue();
    refused(await smq(['receive', q, '--grouped', '--grouped-rr']), /--grouped and --grouped-rr contradict each other/);
    const missing = await smq(['receive', q, '--grouped']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/does not exist/);
    expect((await smq(['groups', q])).code).toBe(3);
  });
});

/** Stores without these features: one line, exit 2, nothing changed. */
describe('stores without groups', () => {
  const cases = lackingStores('cmds');
  const r144 = real('1.4.4');

  test.each(cases)('$name: receive --grouped*, groups', async ({ setup }) => {
    const s = await setup();
    try {
      const before = await s.check();
      for (const mode of ['--grouped', '--grouped-rr']) {
        refused(
          await runCli(['receive', 'jobs', mode, ...s.args]),
          /the store has no FIFO groups: they need pgmq 1\.9\+ or smq's compat schema/,
        );
      }
      refused(await runCli(['receive', 'jobs', '--grouped-head', ...s.args]), /the store has no grouped head reads/);
      refused(await runCli(['groups', 'jobs', ...s.args]), /the store has no FIFO groups/);
      expect(await s.check()).toEqual(before);
    } finally {
      await s.done();
    }
  });

  test.skipIf(r144 !== undefined)(`real pgmq 1.4.4 (${NO_RELEASES})`, () => undefined);
});
