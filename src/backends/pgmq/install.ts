// `smq init`: use the real pgmq extension when the server has it, otherwise install
// smq's own pgmq-compatible schema (sql/pgmq-compat.sql). Idempotent; never overwrites pgmq.
import { readFileSync } from 'node:fs';
import type { ClientBase } from 'pg';

export const COMPAT_SQL_PATH = new URL('../../../sql/pgmq-compat.sql', import.meta.url);

export type InitResult =
  | { readonly mode: 'extension-existing'; readonly version: string }
  | { readonly mode: 'extension-created'; readonly version: string }
  | { readonly mode: 'compat-existing'; readonly version: string }
  | { readonly mode: 'compat-installed'; readonly version: string };

export function compatSql(): string {
  return readFileSync(COMPAT_SQL_PATH, 'utf8');
}

export async function initPgmq(client: ClientBase): Promise<InitResult> {
  const ext = await client.query<{ extversion: string }>(
    "SELECT extversion FROM pg_extension WHERE extname = 'pgmq'",
  );
  if (ext.rows[0]) return { mode: 'extension-existing', version: ext.rows[0].extversion };

  const available = await client.query("SELECT 1 FROM pg_available_extensions WHERE name = 'pgmq'");
  if (available.rowCount) {
    await client.query('CREATE EXTENSION IF NOT EXISTS pgmq');
    const v = await client.query<{ extversion: string }>("SELECT extversion FROM pg_extension WHERE extname = 'pgmq'");
    return { mode: 'extension-created', version: v.rows[0]?.extversion ?? 'unknown' };
  }

  const existing = await compatVersion(client);
  if (existing) return { mode: 'compat-existing', version: existing };
  // One transaction: either the whole schema is there afterwards, or none of it.
  await client.query('BEGIN');
  try {
    await client.query(compatSql());
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK');
    throw e;
  }
  return { mode: 'compat-installed', version: (await compatVersion(client)) ?? 'unknown' };
}

/** The compat schema records its version in pgmq.smq_compat; null when it is not installed. */
export async function compatVersion(client: ClientBase): Promise<string | null> {
  const r = await client.query<{ present: boolean }>(
    "SELECT to_regclass('pgmq.smq_compat') IS NOT NULL AS present",
  );
  if (!r.rows[0]?.present) return null;
  const v = await client.query<{ version: string }>('SELECT version FROM pgmq.smq_compat LIMIT 1');
  return v.rows[0]?.version ?? null;
}
