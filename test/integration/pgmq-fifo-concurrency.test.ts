// FIFO groups under concurrency: several connections read one grouped queue at once with
// read_grouped / read_grouped_rr / read_grouped_head and delete what they got. No message
// may be handed out before every earlier message of its group was (being) deleted, and no
// message twice. Against smq's compat schema, and against real pgmq 1.13.0 when
// SMQ_TEST_PGMQ_DIR is set. The check is shown to fail on a plain read(), which ignores groups.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, test } from 'vitest';
import { clonePgmq } from '../helpers/real-pgmq.js';

const GROUPS = 12;
const PER_GROUP = 15;
const READERS = 6;

const real = inject('pgmqInstalls').find((i) => i.release === '1.13.0' && i.form === 'sql');
const targets: [string, () => Promise<string>][] = [
  ['compat schema', async () => inject('pgUrl')],
  ...(real
    ? [['pgmq 1.13.0', () => clonePgmq(real.template, `fifo_${randomBytes(3).toString('hex')}`)] as [string, () => Promise<string>]]
    : []),
];

interface Outcome {
  /** Messages handed out while an earlier one of their group was neither deleted nor being deleted. */
  readonly reordered: number;
  readonly duplicates: number;
  readonly delivered: number;
}

/**
 * Fills a queue with GROUPS x PER_GROUP messages (interleaved), then READERS drain it at once.
 * With `hold`, one more connection first claims a batch and keeps it (never deleted): the
 * fault injected from outside that a strategy ignoring groups cannot get past.
 */
async function drain(url: string, readSql: string, hold = false): Promise<Outcome> {
  const queue = `fifo_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const msgs: string[] = [];
  const headers: string[] = [];
  for (let s = 0; s < PER_GROUP; s++)
    for (let g = 0; g < GROUPS; g++) {
      msgs.push(JSON.stringify({ g, s }));
      headers.push(JSON.stringify({ 'x-pgmq-group': `g${g}` }));
    }
  await admin.query('SELECT pgmq.create($1)', [queue]);
  await admin.query('SELECT * FROM pgmq.send_batch($1, $2::jsonb[], $3::jsonb[])', [queue, msgs, headers]);

  // Per group, how many of its messages (from the first) are deleted or being deleted.
  const released = new Array<number>(GROUPS).fill(0);
  const seen = new Set<string>();
  let reordered = 0;
  let duplicates = 0;
  if (hold) {
    for (const m of (await admin.query<{ message: { g: number; s: number } }>(readSql, [queue])).rows)
      seen.add(`${m.message.g}/${m.message.s}`);
  }
  const readers = Array.from({ length: READERS }, () => new pg.Client({ connectionString: url }));
  await Promise.all(readers.map((c) => c.connect()));
  try {
    await Promise.all(
      readers.map(async (c) => {
        let empty = 0;
        while (empty < 5) {
          const got = (await c.query<{ msg_id: string; message: { g: number; s: number } }>(readSql, [queue])).rows;
          if (got.length === 0) {
            empty += 1;
            await new Promise((r) => setTimeout(r, 10));
            continue;
          }
          empty = 0;
          // A batch may carry several consecutive messages of one group: the k-th of group g
          // in the batch must be the (released + k)-th of g.
          const byGroup = new Map<number, number[]>();
          for (const m of got) {
            const key = `${m.message.g}/${m.message.s}`;
            if (seen.has(key)) duplicates += 1;
            seen.add(key);
            byGroup.set(m.message.g, [...(byGroup.get(m.message.g) ?? []), m.message.s]);
          }
          for (const [g, list] of byGroup) {
            list.sort((a, b) => a - b);
            list.forEach((sq, k) => {
              if (sq !== released[g]! + k) reordered += 1;
            });
            // Released as the delete is issued.
            released[g] = Math.max(released[g]!, list[list.length - 1]! + 1);
          }
          await c.query('SELECT * FROM pgmq.delete($1, $2::bigint[])', [queue, got.map((m) => m.msg_id)]);
        }
      }),
    );
    return { reordered, duplicates, delivered: seen.size };
  } finally {
    await Promise.all(readers.map((c) => c.end()));
    await admin.query('SELECT pgmq.drop_queue($1)', [queue]);
    await admin.end();
  }
}

describe.each(targets)('FIFO groups under concurrency: %s', (_label, makeUrl) => {
  for (const fn of ['read_grouped', 'read_grouped_rr', 'read_grouped_head']) {
    test(`${fn}: ${READERS} readers, every message once, never ahead of its group`, async () => {
      const url = await makeUrl();
      expect(await drain(url, `SELECT * FROM pgmq.${fn}($1, 30, 3)`)).toEqual({
        reordered: 0,
        duplicates: 0,
        delivered: GROUPS * PER_GROUP,
      });
    }, 60_000);
  }

  // The holder's batch: read_grouped takes 3 messages of the oldest group (its other 12 stay
  // blocked); _rr and _head take the heads of 3 groups (their other 3 x 14 stay blocked).
  const blockedByHold: Record<string, number> = {
    read_grouped: PER_GROUP - 3,
    read_grouped_rr: 3 * (PER_GROUP - 1),
    read_grouped_head: 3 * (PER_GROUP - 1),
  };
  for (const [fn, blocked] of Object.entries(blockedByHold)) {
    test(`${fn} while a batch is held: its groups stay blocked, the rest drains in order`, async () => {
      const url = await makeUrl();
      expect(await drain(url, `SELECT * FROM pgmq.${fn}($1, 30, 3)`, true)).toEqual({
        reordered: 0,
        duplicates: 0,
        delivered: GROUPS * PER_GROUP - blocked,
      });
    }, 60_000);
  }

  test('the check catches a plain read(), which ignores groups, while a batch is held', async () => {
    const url = await makeUrl();
    const outcome = await drain(url, 'SELECT * FROM pgmq.read($1, 30, 3)', true);
    expect(outcome.delivered).toBe(GROUPS * PER_GROUP);
    expect(outcome.reordered).toBeGreaterThan(0);
  }, 60_000);
});
