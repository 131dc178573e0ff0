// What the pgmq 1.9–1.13 command tests share (pgmq-commands-113, -topics, -notify): the
// stores that have the features (smq's compat schema, real pgmq 1.13.0 when
// SMQ_TEST_PGMQ_DIR is set), the stores that lack them (SmoothMQ, real pgmq 1.4.4), and
// checks of a CLI run's outcome.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { expect, inject } from 'vitest';
import { clonePgmq } from './real-pgmq.js';
import { ndjson, runCli, type CliResult } from './run-cli.js';

const installs = inject('pgmqInstalls');
export const real = (release: string) => installs.find((i) => i.release === release && (i.form === 'sql' || release === '1.4.4'));
export const uniqueQueue = () => `c113_${randomBytes(4).toString('hex')}`;

export function ok(r: CliResult): CliResult {
  expect(r.stderr, 'stderr of a successful run').toBe('');
  expect(r.code).toBe(0);
  return r;
}

/** One line on stderr, exit 2, nothing on stdout. */
export function refused(r: CliResult, words: RegExp): void {
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(words);
  expect(r.code).toBe(2);
}

export interface Db {
  readonly url: string;
  readonly c: pg.Client;
}

export async function openDb(url: string): Promise<Db> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return { url, c };
}

export const ids = (r: CliResult) => ndjson(r.stdout).map((m) => m['id'] as string);

/** A queue's rows as the test's own SQL sees them. */
export async function rows(db: Db, queue: string): Promise<{ id: string; read_ct: number; hidden: boolean }[]> {
  const r = await db.c.query<{ id: string; read_ct: number; hidden: boolean }>(
    `SELECT msg_id::text AS id, read_ct, vt > now() AS hidden FROM pgmq.${pg.escapeIdentifier(`q_${queue}`)} ORDER BY msg_id`,
  );
  return r.rows;
}

export interface Store {
  readonly name: string;
  url(): Promise<string>;
}

/** Stores with pgmq 1.13's features; each real one is a fresh clone of its template. */
export function stores113(tag: string): Store[] {
  const out: Store[] = [{ name: "smq's compat schema", url: async () => inject('pgUrl') }];
  const r113 = real('1.13.0');
  if (r113) {
    out.push({ name: r113.label, url: () => clonePgmq(r113.template, `${tag}_1_13_${randomBytes(3).toString('hex')}`) });
  }
  return out;
}

export interface LackingStore {
  readonly name: string;
  /** A store with queue `jobs` holding one message. */
  setup(): Promise<{ args: string[]; check: () => Promise<unknown>; done: () => Promise<void> }>;
}

/** SmoothMQ, and real pgmq 1.4.4 when SMQ_TEST_PGMQ_DIR is set. */
export function lackingStores(tag: string): LackingStore[] {
  const cases: LackingStore[] = [
    {
      name: 'SmoothMQ',
      setup: async () => {
        const dir = mkdtempSync(join(tmpdir(), 'smq-c113-'));
        const path = join(dir, 'q.db');
        ok(await runCli(['init', '--sqlite', path]));
        ok(await runCli(['create', 'jobs', '--sqlite', path]));
        ok(await runCli(['send', 'jobs', 'hello', '--sqlite', path]));
        const peek = async () =>
          ndjson(ok(await runCli(['peek', 'jobs', '--sqlite', path])).stdout).map((m) => [m['state'], m['readCount']]);
        return { args: ['--sqlite', path], check: peek, done: async () => rmSync(dir, { recursive: true, force: true }) };
      },
    },
  ];
  const r144 = real('1.4.4');
  if (r144) {
    cases.push({
      name: r144.label,
      setup: async () => {
        const db = await openDb(await clonePgmq(r144.template, `${tag}_1_4_${randomBytes(3).toString('hex')}`));
        await db.c.query("SELECT pgmq.create('jobs')");
        await db.c.query(`SELECT pgmq.send('jobs', '{"a":1}')`);
        const check = async () => [await rows(db, 'jobs'), (await db.c.query('SELECT * FROM pg_trigger WHERE NOT tgisinternal')).rows];
        return { args: ['--url', db.url], check, done: () => db.c.end() };
      },
    });
  }
  return cases;
}
