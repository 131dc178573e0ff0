// Real pgmq releases as a test oracle: when SMQ_TEST_PGMQ_DIR names the folder holding
// 1.4.4/, 1.5.1/ and 1.13.0/ (the install scripts, never copied into smq), the suite's
// server gets one template database per release, which tests clone
// (`CREATE DATABASE x TEMPLATE pgmq_1_13_0`). 1.5.1 and 1.13.0 install as plain SQL;
// 1.4.4 only as the extension, so its two files sit in the server's extension folder
// just long enough for CREATE EXTENSION and are removed at once: smq's own `init` tests
// expect a server where `CREATE EXTENSION pgmq` fails.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

export const PGMQ_RELEASES = ['1.4.4', '1.5.1', '1.13.0'] as const;
export type PgmqRelease = (typeof PGMQ_RELEASES)[number];

export function templateName(release: string): string {
  return `pgmq_${release.replaceAll('.', '_')}`;
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

async function run(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function extensionDir(): string {
  const bin = process.env['SMQ_PG_BIN'] ?? '/usr/lib/postgresql/15/bin';
  const share = execFileSync(join(bin, 'pg_config'), ['--sharedir'], { encoding: 'utf8' }).trim();
  return join(share, 'extension');
}

/**
 * Makes the template databases; returns release -> URL of its template (tests clone it
 * or, when they only read, use it directly). Releases whose files are missing are left out.
 */
export async function installRealPgmq(adminUrl: string, dir: string): Promise<Record<string, string>> {
  const urls: Record<string, string> = {};
  for (const release of PGMQ_RELEASES) {
    const script = join(dir, release, 'pgmq.sql');
    if (!existsSync(script)) continue;
    const db = templateName(release);
    await run(adminUrl, `CREATE DATABASE ${db}`);
    const url = withDatabase(adminUrl, db);
    if (release === '1.4.4') {
      const ext = extensionDir();
      const control = join(ext, 'pgmq.control');
      const sqlFile = join(ext, `pgmq--${release}.sql`);
      if (existsSync(control)) throw new Error(`${control} exists already: refusing to touch another install`);
      copyFileSync(join(dir, release, 'pgmq.control'), control);
      copyFileSync(script, sqlFile);
      try {
        await run(url, `CREATE EXTENSION pgmq VERSION '${release}'`);
      } finally {
        rmSync(control, { force: true });
        rmSync(sqlFile, { force: true });
      }
    } else {
      await run(url, readFileSync(script, 'utf8'));
    }
    urls[release] = url;
  }
  return urls;
}

/** A fresh database cloned from a release's template (nobody may be connected to the template). */
export async function clonePgmq(templateUrl: string, name: string): Promise<string> {
  const template = new URL(templateUrl).pathname.slice(1);
  await run(withDatabase(templateUrl, 'postgres'), `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  return withDatabase(templateUrl, name);
}
