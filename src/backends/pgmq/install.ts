// `smq init`: use the real pgmq extension when the server has it, otherwise install
// smq's own pgmq-compatible schema (sql/pgmq-compat.sql). Idempotent; never overwrites pgmq.
import { readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';
import type { PgmqInstall } from '../types.js';
import * as sql from './sql.js';

export const COMPAT_SQL_PATH = new URL('../../../sql/pgmq-compat.sql', import.meta.url);

/** What init did (types.ts PgmqInstall; the command words it). */
export type InitResult = PgmqInstall;

// Two `smq init` runs at once on one database: the second waits, then finds the schema.
// An arbitrary constant, the same in every smq process.
const INSTALL_LOCK_KEY = 0x736d_7131; // "smq1"

export function compatSql(): string {
  return readFileSync(COMPAT_SQL_PATH, 'utf8');
}

export async function initPgmq(client: ClientBase): Promise<InitResult> {
  const ext = await extensionVersion(client);
  if (ext) return { mode: 'extension-existing', version: ext };

  // Checked before trying CREATE EXTENSION: an installed compat schema stays in place, and
  // a pgmq made from its SQL file is never touched.
  const existing = await compatVersion(client);
  if (existing) return { mode: 'compat-existing', version: existing };
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

  // A session lock, taken before the transaction starts: the transaction that follows then
  // begins with fresh catalog caches and sees a schema another init committed meanwhile
  // (a lock taken inside the transaction would leave its cached "no such table" in place).
  await client.query(sql.ADVISORY_LOCK, [INSTALL_LOCK_KEY]);
  try {
    const now = await compatVersion(client);
    if (now) return { mode: 'compat-existing', version: now };
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
  return { mode: 'compat-installed', version: (await compatVersion(client)) ?? 'unknown' };
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
