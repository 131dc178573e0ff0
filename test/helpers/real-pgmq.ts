// Real pgmq releases as a test oracle: when SMQ_TEST_PGMQ_DIR names the folder holding
// 1.4.4/, 1.5.1/ and 1.13.0/ (the install scripts, never copied into smq), the suite's
// server gets one template database per release and install form, which tests clone
// (`CREATE DATABASE x TEMPLATE pgmq_1_13_0`). 1.5.1 and 1.13.0 install both as plain SQL
// and as the extension; 1.4.4 only as the extension. For the extension the two files sit
// in the server's extension folder just long enough for CREATE EXTENSION and are removed
// at once: smq's own `init` tests expect a server where `CREATE EXTENSION pgmq` fails.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

export const PGMQ_RELEASES = ['1.4.4', '1.5.1', '1.13.0'] as const;
export type PgmqRelease = (typeof PGMQ_RELEASES)[number];
export type InstallForm = 'sql' | 'extension';

/** One way a real release is installed: the matrix every release-aware suite runs over. */
export interface PgmqInstall {
  /** e.g. "pgmq 1.13.0 (extension)". */
  readonly label: string;
  readonly release: PgmqRelease;
  readonly form: InstallForm;
  /** URL of the template database (clone it: a connection to a template blocks every clone). */
  readonly template: string;
}

/** 1.4.4 has no plain-SQL form (its functions call ALTER EXTENSION). */
const FORMS: Record<PgmqRelease, readonly InstallForm[]> = {
  '1.4.4': ['extension'],
  '1.5.1': ['sql', 'extension'],
  '1.13.0': ['sql', 'extension'],
};

export function templateName(release: string, form: InstallForm = release === '1.4.4' ? 'extension' : 'sql'): string {
  const base = `pgmq_${release.replaceAll('.', '_')}`;
  return form === 'extension' && release !== '1.4.4' ? `${base}_ext` : base;
}

export function installLabel(release: string, form: InstallForm): string {
  return `pgmq ${release} (${form === 'sql' ? 'plain SQL' : 'extension'})`;
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

async function createExtension(url: string, dir: string, release: string): Promise<void> {
  const ext = extensionDir();
  const control = join(ext, 'pgmq.control');
  const sqlFile = join(ext, `pgmq--${release}.sql`);
  if (existsSync(control)) throw new Error(`${control} exists already: refusing to touch another install`);
  copyFileSync(join(dir, release, 'pgmq.control'), control);
  copyFileSync(join(dir, release, 'pgmq.sql'), sqlFile);
  try {
    await run(url, `CREATE EXTENSION pgmq VERSION '${release}'`);
  } finally {
    rmSync(control, { force: true });
    rmSync(sqlFile, { force: true });
  }
}

/**
 * Makes the template databases; returns every install made (releases whose files are
 * missing are left out).
 */
export async function installRealPgmq(adminUrl: string, dir: string): Promise<PgmqInstall[]> {
  const installs: PgmqInstall[] = [];
  for (const release of PGMQ_RELEASES) {
    const script = join(dir, release, 'pgmq.sql');
    if (!existsSync(script)) continue;
    for (const form of FORMS[release]) {
      const db = templateName(release, form);
      await run(adminUrl, `CREATE DATABASE ${db}`);
      const url = withDatabase(adminUrl, db);
      if (form === 'extension') await createExtension(url, dir, release);
      else await run(url, readFileSync(script, 'utf8'));
      installs.push({ label: installLabel(release, form), release, form, template: url });
    }
  }
  return installs;
}

/** release -> template of its default form (plain SQL where it exists), as tests had it before. */
export function defaultTemplates(installs: readonly PgmqInstall[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of installs) if (new URL(i.template).pathname === `/${templateName(i.release)}`) out[i.release] = i.template;
  return out;
}

/** A fresh database cloned from a release's template (nobody may be connected to the template). */
export async function clonePgmq(templateUrl: string, name: string): Promise<string> {
  const template = new URL(templateUrl).pathname.slice(1);
  await run(withDatabase(templateUrl, 'postgres'), `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  return withDatabase(templateUrl, name);
}

/** A one-line reason for skipping a release-matrix case. */
export const NO_RELEASES =
  'skipped: SMQ_TEST_PGMQ_DIR not set (real pgmq releases are in ../shared/pgmq on development machines and in CI)';

/** A new empty database on the same server as `url` (whose role may create databases). */
export async function createDatabase(url: string, name: string): Promise<string> {
  await run(withDatabase(url, 'postgres'), `CREATE DATABASE "${name}"`);
  return withDatabase(url, name);
}
