// The capability table per backend, as detected on real stores: smq's compat schema (pgmq
// 1.13's API), every real pgmq install of the release matrix, a SmoothMQ file. And detection
// follows what is really there: a function removed from the store by the test's own SQL
// turns its capability off.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, inject, test } from 'vitest';
import { openBackend } from '../../src/backends/index.js';
import type { Capabilities } from '../../src/backends/types.js';
import { initPgmq } from '../../src/backends/pgmq/install.js';
import { makeTempDir } from '../helpers/backends.js';
import { clonePgmq, createDatabase, NO_RELEASES } from '../helpers/real-pgmq.js';

const ALL_PGMQ_113 = {
  headers: true,
  receiveByRunId: true,
  lastReadAt: true,
  groups: true,
  groupedHead: true,
  topics: true,
  notifyInsert: true,
  // The compat schema notifies a queue named with capitals; real pgmq 1.13.0 never does.
  notifyCapitals: true,
  setVtAt: true,
  popQty: true,
} as const;

/** What each release offers (the rest of the table is the same for every pgmq). */
const BY_RELEASE: Record<string, Partial<Capabilities>> = {
  '1.4.4': {
    headers: false,
    receiveByRunId: false,
    lastReadAt: false,
    groups: false,
    groupedHead: false,
    topics: false,
    notifyInsert: false,
    notifyCapitals: false,
    setVtAt: false,
    popQty: false,
  },
  '1.5.1': {
    headers: true,
    receiveByRunId: true,
    lastReadAt: false,
    groups: false,
    groupedHead: false,
    topics: false,
    notifyInsert: false,
    notifyCapitals: false,
    setVtAt: false,
    popQty: false,
  },
  '1.13.0': { ...ALL_PGMQ_113, notifyCapitals: false },
};

const PGMQ_ALWAYS = {
  archive: true,
  attributes: false,
  tenants: false,
  maxRetries: false,
  failedState: false,
  unlogged: true,
  jsonBodies: true,
};

async function capabilitiesAt(url: string): Promise<Capabilities> {
  const b = await openBackend({ kind: 'pgmq', url });
  try {
    return b.capabilities;
  } finally {
    await b.close();
  }
}

test("smq's compat schema offers pgmq 1.13's API", async () => {
  expect(await capabilitiesAt(inject('pgUrl'))).toEqual({ ...PGMQ_ALWAYS, ...ALL_PGMQ_113 });
});

test('a SmoothMQ file: no groups, topics or notifications', async () => {
  const tmp = makeTempDir();
  try {
    const b = await openBackend({ kind: 'sqlite', path: `${tmp.dir}/caps.db` }, { create: true });
    expect(b.capabilities).toMatchObject({
      groups: false,
      groupedHead: false,
      topics: false,
      notifyInsert: false,
      notifyCapitals: false,
      setVtAt: false,
      popQty: false,
      headers: false,
      attributes: true,
    });
    await b.close();
  } finally {
    tmp.cleanup();
  }
});

const installs = inject('pgmqInstalls');
describe.skipIf(installs.length === 0)(`real pgmq releases${installs.length ? '' : ` (${NO_RELEASES})`}`, () => {
  test.each(installs.map((i) => [i.label, i] as const))('%s', async (_label, install) => {
    const url = await clonePgmq(
      install.template,
      `caps_${install.release.replaceAll('.', '_')}_${install.form}_${randomBytes(3).toString('hex')}`,
    );
    expect(await capabilitiesAt(url)).toEqual({ ...PGMQ_ALWAYS, ...BY_RELEASE[install.release] });
  });
});

describe('detection follows what the store really has', () => {
  const dbs: pg.Client[] = [];
  afterAll(async () => {
    for (const c of dbs) await c.end();
  });

  test('removing a function (or the headers column) turns its capability off', async () => {
    const url = await createDatabase(inject('pgUrl'), `caps_cut_${randomBytes(3).toString('hex')}`);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    dbs.push(c);
    await initPgmq(c);
    await c.query('DROP FUNCTION pgmq.read_grouped_head(text, integer, integer) CASCADE');
    await c.query('DROP FUNCTION pgmq.send_topic(text, jsonb)');
    await c.query('DROP FUNCTION pgmq.set_vt(text, bigint, timestamptz)');
    expect(await capabilitiesAt(url)).toMatchObject({
      groups: true,
      groupedHead: false,
      topics: false,
      setVtAt: false,
      notifyInsert: true,
    });
    await c.query('ALTER TYPE pgmq.message_record DROP ATTRIBUTE headers CASCADE');
    expect(await capabilitiesAt(url)).toMatchObject({ headers: false, groups: false });
  });
});
