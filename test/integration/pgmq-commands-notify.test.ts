// smq notify QUEUE on|off [--throttle] end to end through the built binary, on smq's compat
// schema and real pgmq 1.13.0 (SMQ_TEST_PGMQ_DIR): after each command the test's own SQL
// looks at pgmq.notify_insert_throttle and the queue table's trigger, and a LISTEN on
// pgmq's channel counts what `smq send` wakes it with. Counting is exact without sleeping:
// after the sends the test sends a NOTIFY of its own on the channel, and PostgreSQL delivers
// notifications in commit order, so once that one arrives every earlier one has.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { lackingStores, ok, openDb, refused, stores113, uniqueQueue, type Db } from '../helpers/commands-113.js';
import { ensureBuilt, ndjson, runCli } from '../helpers/run-cli.js';

beforeAll(() => ensureBuilt(), 300_000);

const channelOf = (queue: string) => `pgmq.q_${queue}.INSERT`;

/** The queue's row in pgmq.notify_insert_throttle and whether its table has pgmq's trigger. */
async function setting(db: Db, queue: string): Promise<{ throttle: number | null; trigger: boolean }> {
  const t = await db.c.query<{ throttle_interval_ms: number }>(
    'SELECT throttle_interval_ms FROM pgmq.notify_insert_throttle WHERE queue_name = $1',
    [queue],
  );
  const g = await db.c.query(
    "SELECT 1 FROM pg_trigger WHERE tgrelid = to_regclass(format('pgmq.%I', $1::text)) AND tgname = 'trigger_notify_queue_insert_listeners'",
    [`q_${queue}`],
  );
  return { throttle: t.rows[0]?.throttle_interval_ms ?? null, trigger: g.rowCount === 1 };
}

/** How many notifications on the queue's channel `action` caused. */
async function notificationsDuring(db: Db, queue: string, action: () => Promise<void>): Promise<number> {
  const listener = new pg.Client({ connectionString: db.url });
  await listener.connect();
  const got: string[] = [];
  const sentinel = `end-${randomBytes(4).toString('hex')}`;
  let seen!: () => void;
  const end = new Promise<void>((resolve) => (seen = resolve));
  listener.on('notification', (n) => {
    if (n.channel !== channelOf(queue)) return;
    if (n.payload === sentinel) seen();
    else got.push(n.payload ?? '');
  });
  try {
    await listener.query(`LISTEN ${pg.escapeIdentifier(channelOf(queue))}`);
    await action();
    await db.c.query('SELECT pg_notify($1, $2)', [channelOf(queue), sentinel]);
    await end;
    return got.length;
  } finally {
    await listener.end();
  }
}

describe.each(stores113('notify'))('on $name', (store) => {
  let db: Db;
  const smq = (args: string[], input?: string) => runCli([...args, '--url', db.url], input === undefined ? {} : { input });
  const sends = (queue: string, n: number) => async () => {
    for (let i = 0; i < n; i++) ok(await smq(['send', queue, `{"i":${i}}`]));
  };

  beforeAll(async () => {
    db = await openDb(await store.url());
  });
  afterAll(async () => {
    await db?.c.end();
  });

  test('on with a throttle, on every insert, off: the setting, the trigger and what a LISTEN gets', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    expect(await setting(db, q)).toEqual({ throttle: null, trigger: false });
    expect(await notificationsDuring(db, q, sends(q, 1))).toBe(0);

    // --throttle 0: every sending statement notifies; a batch of three lines is one statement's worth.
    const on = ndjson(ok(await smq(['notify', q, 'on', '--throttle', '0'])).stdout);
    expect(on).toEqual([{ queue: q, notify: true, throttleMs: 0, lastNotifiedAt: null, channel: channelOf(q), changed: true }]);
    expect(await setting(db, q)).toEqual({ throttle: 0, trigger: true });
    expect(await notificationsDuring(db, q, sends(q, 2))).toBe(2);
    expect(
      await notificationsDuring(db, q, async () => {
        ok(await smq(['send', q], '{"b":1}\n{"b":2}\n{"b":3}\n'));
      }),
    ).toBe(1);

    // A long throttle: the first send after enabling notifies, the next ones within it do not.
    const slow = ndjson(ok(await smq(['notify', q, 'on', '--throttle', '1m'])).stdout)[0]!;
    expect([slow['throttleMs'], slow['changed']]).toEqual([60_000, true]);
    expect(await setting(db, q)).toEqual({ throttle: 60_000, trigger: true });
    expect(await notificationsDuring(db, q, sends(q, 3))).toBe(1);

    // Shown: one queue, and every queue with them on (the compat database holds other files' queues).
    const shown = ndjson(ok(await smq(['notify', q])).stdout)[0]!;
    expect([shown['notify'], shown['throttleMs'], shown['channel']]).toEqual([true, 60_000, channelOf(q)]);
    expect(Date.now() - Date.parse(String(shown['lastNotifiedAt']))).toBeLessThan(60_000);
    const all = ndjson(ok(await smq(['notify'])).stdout).filter((n) => n['queue'] === q);
    expect(all.map((n) => n['throttleMs'])).toEqual([60_000]);
    const table = ok(await smq(['notify', '--output', 'table'])).stdout;
    expect(table.split('\n')[0]).toMatch(/^QUEUE\s+THROTTLE\s+LAST NOTIFIED\s+CHANNEL$/);
    expect(table).toMatch(new RegExp(`^${q}\\s+60000 ms\\s+\\S.*\\s+pgmq\\.q_${q}\\.INSERT$`, 'm'));

    // smq queues: the throttle in JSON, a NOTIFY column in the table.
    const listed = ndjson(ok(await smq(['queues'])).stdout).find((x) => x['name'] === q)!;
    expect(listed['notifyThrottleMs']).toBe(60_000);
    const queues = ok(await smq(['queues', '--output', 'table'])).stdout;
    expect(queues.split('\n')[0]).toMatch(/\sNOTIFY$/);
    expect(queues).toMatch(new RegExp(`^${q}\\s.*\\s60000 ms$`, 'm'));

    // The same again changes nothing (and says so).
    const same = ok(await smq(['notify', q, 'on', '--throttle', '60s', '--output', 'table']));
    expect(same.stdout).toMatch(
      /^nothing changed: insert notifications are on for ".*": NOTIFY on channel .* at most once per 60000 ms\n$/,
    );

    const off = ndjson(ok(await smq(['notify', q, 'off'])).stdout);
    expect(off).toEqual([{ queue: q, notify: false, changed: true }]);
    expect(await setting(db, q)).toEqual({ throttle: null, trigger: false });
    expect(await notificationsDuring(db, q, sends(q, 2))).toBe(0);
    expect(ndjson(ok(await smq(['notify', q, 'off'])).stdout)).toEqual([{ queue: q, notify: false, changed: false }]);
    expect(ndjson(ok(await smq(['notify', q])).stdout)).toEqual([{ queue: q, notify: false }]);
    expect(ok(await smq(['queues', '--output', 'table'])).stdout).toMatch(new RegExp(`^${q}\\s.*\\soff$`, 'm'));
  });

  test('a queue named with capitals: real pgmq never notifies it, and `on` says so in one line; the compat schema does', async () => {
    const q = `Cap_${randomBytes(4).toString('hex')}`;
    ok(await smq(['create', q]));
    const r = await smq(['notify', q, 'on', '--throttle', '0']);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)[0]).toMatchObject({ queue: q, notify: true, channel: channelOf(q.toLowerCase()) });
    const compat = store.name.startsWith("smq's compat");
    const heard = await notificationsDuring(db, q.toLowerCase(), sends(q, 1));
    if (compat) {
      expect(r.stderr).toBe('');
      expect(heard).toBe(1);
    } else {
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^warning: .* never notifies a queue named with capitals .*pgmq\.q_cap_[0-9a-f]+\.INSERT/);
      expect(heard).toBe(0);
    }
    // Turning them off says nothing more.
    expect(ok(await smq(['notify', q, 'off'])).stderr).toBe('');
  });

  test('bad use: one line, exit 2, nothing changed; a missing queue: exit 3', async () => {
    const q = uniqueQueue();
    ok(await smq(['create', q]));
    ok(await smq(['notify', q, 'on', '--throttle', '100ms']));
    const before = await setting(db, q);
    refused(await smq(['notify', q, 'maybe']), /unknown state "maybe": give on or off/);
    refused(await smq(['notify', q, 'off', '--throttle', '1s']), /--throttle goes with on/);
    // A bare number read as milliseconds here and as seconds everywhere else: it needs a unit.
    refused(await smq(['notify', q, 'on', '--throttle', '5']), /--throttle 5 has no unit.*5ms or 5s/);
    refused(await smq(['notify', q, '--throttle', '1s']), /--throttle goes with on/);
    for (const bad of ['-1', '1.5ms', 'soon', '30d', '1000h']) {
      refused(await smq(['notify', q, 'on', '--throttle', bad]), /--throttle/);
    }
    expect(await setting(db, q)).toEqual(before);
    for (const args of [
      ['notify', `${q}_none`, 'on'],
      ['notify', `${q}_none`, 'off'],
      ['notify', `${q}_none`],
    ]) {
      const r = await smq(args);
      expect([r.code, r.stdout, r.stderr.trim().split('\n').length]).toEqual([3, '', 1]);
      expect(r.stderr).toMatch(/does not exist/);
    }
  });
});

describe('stores without insert notifications', () => {
  test.each(lackingStores('notify'))('$name: notify on, off, show, list', async ({ setup }) => {
    const s = await setup();
    try {
      const before = await s.check();
      const lacks = /^smq: the store has no insert notifications: they need pgmq 1\.7\+ or smq's compat schema/;
      refused(await runCli(['notify', 'jobs', 'on', ...s.args]), lacks);
      refused(await runCli(['notify', 'jobs', 'off', ...s.args]), lacks);
      refused(await runCli(['notify', 'jobs', ...s.args]), lacks);
      refused(await runCli(['notify', ...s.args]), lacks);
      expect(ok(await runCli(['queues', '--output', 'table', ...s.args])).stdout).not.toMatch(/NOTIFY/);
      expect(await s.check()).toEqual(before);
    } finally {
      await s.done();
    }
  });
});
