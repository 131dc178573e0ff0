// smq bind / unbind / topics / send --topic end to end through the built binary, on smq's
// compat schema and real pgmq 1.13.0 (SMQ_TEST_PGMQ_DIR): the bindings table and each
// queue's table checked by the test's own SQL after every command. Bad keys and patterns get
// one line, exit 2 and change nothing; real pgmq 1.4.4 and SmoothMQ say they have no topics.
// The compat database is shared with other test files: every pattern starts with a word of
// its own, so no other file's binding can catch these keys.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { lackingStores, ok, openDb, refused, stores113, uniqueQueue, type Db } from '../helpers/commands-113.js';
import { ensureBuilt, ndjson, runCli } from '../helpers/run-cli.js';

beforeAll(() => ensureBuilt(), 300_000);

const word = () => `t${randomBytes(4).toString('hex')}`;

async function bindings(db: Db, queues: readonly string[]): Promise<[string, string][]> {
  const r = await db.c.query<{ pattern: string; queue_name: string }>(
    'SELECT pattern, queue_name FROM pgmq.topic_bindings WHERE queue_name = ANY($1::text[]) ORDER BY pattern, queue_name',
    [queues],
  );
  return r.rows.map((b) => [b.pattern, b.queue_name]);
}

/** Bodies in a queue's table, oldest first, with their ids. */
async function bodies(db: Db, queue: string): Promise<[string, unknown][]> {
  const r = await db.c.query<{ id: string; message: unknown }>(`SELECT msg_id::text AS id, message FROM pgmq."q_${queue}" ORDER BY msg_id`);
  return r.rows.map((m) => [m.id, m.message]);
}

describe.each(stores113('topics'))('on $name', (store) => {
  let db: Db;
  const smq = (args: string[], input?: string) => runCli([...args, '--url', db.url], input === undefined ? {} : { input });

  beforeAll(async () => {
    db = await openDb(await store.url());
  });
  afterAll(async () => {
    await db?.c.end();
  });

  test('bind two queues; send --topic reaches both (argument and stdin); a key matching nothing; unbind', async () => {
    const w = word();
    const [qa, qb] = [uniqueQueue(), uniqueQueue()].sort() as [string, string];
    ok(await smq(['create', qa]));
    ok(await smq(['create', qb]));

    expect(ndjson(ok(await smq(['bind', `${w}.*.new`, qa])).stdout)).toEqual([{ pattern: `${w}.*.new`, queue: qa, bound: true }]);
    ok(await smq(['bind', `${w}.#`, qb]));
    expect(ndjson(ok(await smq(['bind', `${w}.#`, qb])).stdout)).toEqual([{ pattern: `${w}.#`, queue: qb, bound: false }]);
    expect(await bindings(db, [qa, qb])).toEqual([
      [`${w}.#`, qb],
      [`${w}.*.new`, qa],
    ]);
    const listed = ndjson(ok(await smq(['topics'])).stdout).filter((b) => String(b['pattern']).startsWith(`${w}.`));
    expect(listed.map((b) => [b['pattern'], b['queue']]).sort()).toEqual([
      [`${w}.#`, qb],
      [`${w}.*.new`, qa],
    ]);
    expect(Date.now() - Date.parse(String(listed[0]!['boundAt']))).toBeLessThan(60_000);
    const table = ok(await smq(['topics', '--output', 'table'])).stdout;
    expect(table.split('\n')[0]).toMatch(/^PATTERN\s+QUEUE\s+BOUND AT$/);
    expect(table).toContain(`${w}.*.new`);

    // One message, two queues: each queue's table has it under the id printed.
    const sent = ndjson(ok(await smq(['send', '--topic', `${w}.eu.new`, '{"n":1}'])).stdout);
    expect(sent.map((d) => d['queue'])).toEqual([qa, qb]);
    expect(await bodies(db, qa)).toEqual([[sent[0]!['id'], { n: 1 }]]);
    expect(await bodies(db, qb)).toEqual([[sent[1]!['id'], { n: 1 }]]);

    // From stdin: a key only qb's pattern matches.
    const piped = ndjson(ok(await smq(['send', '--topic', `${w}.eu.old`], '{"n":2}\n{"n":3}\n')).stdout);
    expect(piped.map((d) => d['queue'])).toEqual([qb, qb]);
    expect((await bodies(db, qb)).map(([, m]) => m)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(await bodies(db, qa)).toHaveLength(1);

    // A key that matches no binding: nothing stored, JSON says no delivery, a note on stderr, exit 0.
    const none = await smq(['send', '--topic', `${w}x.eu.new`, '{"n":4}', '--json']);
    expect(none.code).toBe(0);
    expect(JSON.parse(none.stdout)).toEqual([]);
    expect(none.stderr.trim().split('\n')).toEqual([`routing key "${w}x.eu.new" matches no binding: nothing was stored (see smq topics)`]);
    const noneNd = await smq(['send', '--topic', `${w}x.eu.new`, '{"n":4}']);
    expect([noneNd.code, noneNd.stdout, noneNd.stderr.trim().split('\n').length]).toEqual([0, '', 1]);
    expect((await bodies(db, qa)).length + (await bodies(db, qb)).length).toBe(4);

    expect(ndjson(ok(await smq(['unbind', `${w}.*.new`, qa])).stdout)).toEqual([{ pattern: `${w}.*.new`, queue: qa, unbound: true }]);
    expect(await bindings(db, [qa, qb])).toEqual([[`${w}.#`, qb]]);
    const again = ok(await smq(['unbind', `${w}.*.new`, qa, '--output', 'table']));
    expect(again.stdout).toBe(`"${w}.*.new" was not bound to queue "${qa}": nothing changed\n`);
    expect(ndjson(ok(await smq(['send', '--topic', `${w}.eu.new`, '{"n":5}'])).stdout).map((d) => d['queue'])).toEqual([qb]);
    expect(await bodies(db, qa)).toHaveLength(1);
  });

  test('bad keys and patterns: one line, exit 2, nothing changed; unknown queues: exit 3', async () => {
    const w = word();
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    ok(await smq(['bind', `${w}.#`, q]));
    const before = async () => [await bindings(db, [q]), await bodies(db, q)];
    const start = await before();

    for (const pattern of [`${w}..x`, `${w}.**`, `${w}.a b`, `.${w}`, `${w}.\x1b[31mred`]) {
      const r = await smq(['bind', pattern, q]);
      refused(r, /pattern/);
      expect(r.stderr).not.toContain('\x1b');
    }
    refused(await smq(['unbind', `${w}.a b`, q]), /pattern/);
    for (const key of [`${w}.*`, `${w}.#`, `${w}..x`, `${w}.a b`, `${w}.\x07bell`, '']) {
      const r = await smq(['send', '--topic', key, '{"n":1}']);
      refused(r, key === '' ? /routing.key|topic/ : /routing.key/);
      expect(r.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f]/);
    }
    refused(await smq(['send', '--topic', `${w}.a b`], '{"n":1}\n{"n":2}\n'), /routing.key/);
    expect(await before()).toEqual(start);

    // Usage: --topic with a queue and a body, no queue without --topic.
    refused(await smq(['send', q, '{"n":1}', '--topic', `${w}.a`]), /with --topic the routing key picks the queues/);
    refused(await smq(['send']), /no queue given/);

    // A queue that does not exist: not found (3), in one line.
    for (const args of [
      ['bind', `${w}.a`, `${q}_none`],
      ['unbind', `${w}.a`, `${q}_none`],
    ]) {
      const r = await smq(args);
      expect([r.code, r.stdout, r.stderr.trim().split('\n').length]).toEqual([3, '', 1]);
      expect(r.stderr).toMatch(/does not exist/);
    }
    expect(await before()).toEqual(start);
  });
});

describe('stores without topics', () => {
  test.each(lackingStores('topics'))('$name: send --topic, topics, bind, unbind', async ({ setup }) => {
    const s = await setup();
    try {
      const before = await s.check();
      const lacks = /^smq: the store has no topic routing: it needs pgmq 1\.11\+ or smq's compat schema/;
      refused(await runCli(['send', '--topic', 'a.b', '{"n":1}', ...s.args]), lacks);
      refused(await runCli(['send', '--topic', 'a.b', ...s.args], { input: '{"n":1}\n' }), lacks);
      refused(await runCli(['topics', ...s.args]), lacks);
      refused(await runCli(['bind', 'a.*', 'jobs', ...s.args]), lacks);
      refused(await runCli(['unbind', 'a.*', 'jobs', ...s.args]), lacks);
      expect(await s.check()).toEqual(before);
    } finally {
      await s.done();
    }
  });
});
