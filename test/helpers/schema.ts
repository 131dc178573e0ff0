import pg from 'pg';
import { initPgmq } from '../../src/backends/pgmq/install.js';

/** Installs pgmq (extension or smq's compat schema) into the test database. */
export async function installSchema(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await initPgmq(client);
  } finally {
    await client.end();
  }
}
