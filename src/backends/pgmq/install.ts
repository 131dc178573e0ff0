// `smq init`: use the real pgmq extension when the server has it, otherwise install
// smq's own pgmq-compatible schema (sql/pgmq-compat/*.sql). Idempotent; upgrades a compat
// schema an older smq installed; never overwrites pgmq.
import { readdirSync, readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';
import type { PgmqInstall } from '../types.js';
import * as sql from './sql.js';

export const COMPAT_SQL_DIR = new URL('../../../sql/pgmq-compat/', import.meta.url);

/** The pgmq API level the compat schema emulates; sql/pgmq-compat/90-version.sql records it. */
export const COMPAT_VERSION = '1.13.0';

/** What init did (types.ts PgmqInstall; the command words it). */
export type InitResult = PgmqInstall;

// Two `smq init` runs at once on one database: the second waits, then finds the schema.
// An arbitrary constant, the same in every smq process.
const INSTALL_LOCK_KEY = 0x736d_7131; // "smq1"

/** The schema's parts in name order, as one script. */
export function compatSql(): string {
  const parts = readdirSync(COMPAT_SQL_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  return parts.map((f) => readFileSync(new URL(f, COMPAT_SQL_DIR), 'utf8')).join('\n');
}

/** Dotted versions compared number by number: negative, 0 or positive. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Number.isNaN(d) ? 0 : d;
  }
  return 0;
}

const isOlder = (installed: string) => compareVersions(installed, COMPAT_VERSION) < 0;

export async function initPgmq(client: ClientBase): Promise<InitResult> {
  const ext = await extensionVersion(client);
  if (ext) return { mode: 'extension-existing', version: ext };

  // Checked before trying CREATE EXTENSION: an installed compat schema stays in place, and
  // a pgmq made from its SQL file is never touched.
  const existing = await compatVersion(client);
  if (existing && !isOlder(existing)) return { mode: 'compat-existing', version: existing };
  if (existing) return installCompat(client);
  if (await hasForeignPgmqSchema(client)) return { mode: 'sql-existing', version: 'unknown' };

  const available = await client.query(sql.EXTENSION_AVAILABLE);
  if (available.rowCount) {
    try {
      await client.query(sql.CREATE_EXTENSION);
      return { mode: 'extension-created', version: (await extensionVersion(client)) ?? 'unknown' };
    } catch {
      // Available but not creatable here (e.g. no privilege): fall back to the compat schema.
    }
  }

  return installCompat(client);
}

/** Installs the compat schema, or upgrades an older one in place (the script keeps every queue and message). */
async function installCompat(client: ClientBase): Promise<InitResult> {
  // A session lock, taken before the transaction starts: the transaction that follows then
  // begins with fresh catalog caches and sees a schema another init committed meanwhile
  // (a lock taken inside the transaction would leave its cached "no such table" in place).
  await client.query(sql.ADVISORY_LOCK, [INSTALL_LOCK_KEY]);
  let before: string | null;
  try {
    before = await compatVersion(client);
    if (before && !isOlder(before)) return { mode: 'compat-existing', version: before };
    // One transaction: either the whole schema is there afterwards, or none of it.
    await client.query(sql.BEGIN);
    try {
      await client.query(compatSql());
      await client.query(sql.COMMIT);
    } catch (e) {
      await client.query(sql.ROLLBACK);
      throw e;
    }
  } finally {
    await client.query(sql.ADVISORY_UNLOCK, [INSTALL_LOCK_KEY]);
  }
  const version = (await compatVersion(client)) ?? 'unknown';
  return before ? { mode: 'compat-upgraded', version, from: before } : { mode: 'compat-installed', version };
}

async function extensionVersion(client: ClientBase): Promise<string | null> {
  const r = await client.query<{ extversion: string }>(sql.EXTENSION_VERSION);
  return r.rows[0]?.extversion ?? null;
}

/** pgmq.meta exists but smq did not make it: pgmq installed from its SQL file. */
async function hasForeignPgmqSchema(client: ClientBase): Promise<boolean> {
  const r = await client.query<{ is_foreign: boolean }>(sql.FOREIGN_PGMQ_SCHEMA);
  return r.rows[0]?.is_foreign ?? false;
}

/** The compat schema records its version in pgmq.smq_compat; null when it is not installed. */
export async function compatVersion(client: ClientBase): Promise<string | null> {
  const r = await client.query<{ present: boolean }>(sql.COMPAT_PRESENT);
  if (!r.rows[0]?.present) return null;
  const v = await client.query<{ version: string }>(sql.COMPAT_VERSION);
  return v.rows[0]?.version ?? null;
}
