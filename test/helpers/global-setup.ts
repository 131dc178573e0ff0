// vitest globalSetup: one throwaway Postgres for the whole run (or SMQ_TEST_PG_URL),
// with smq's pgmq-compatible schema installed.
import type { TestProject } from 'vitest/node';
import { startPgServer, type PgServer } from './pg-server.js';
import { installSchema } from './schema.js';
import { defaultTemplates, installRealPgmq, type PgmqInstall } from './real-pgmq.js';

let server: PgServer | undefined;

export default async function setup(project: TestProject) {
  let url = process.env['SMQ_TEST_PG_URL'];
  if (!url) {
    server = await startPgServer();
    url = server.url;
  }
  await installSchema(url);
  project.provide('pgUrl', url);
  project.provide('pgDataDir', server?.dataDir ?? '');
  // Real pgmq releases (../shared/pgmq, set by .ci/run) on the suite's own server only.
  const pgmqDir = process.env['SMQ_TEST_PGMQ_DIR'];
  const installs = pgmqDir && server ? await installRealPgmq(server.adminUrl, pgmqDir) : [];
  const releases = defaultTemplates(installs);
  project.provide('pgmqReleases', releases);
  project.provide('pgmqInstalls', installs);
  return () => {
    server?.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
    pgDataDir: string;
    /** Real pgmq release -> URL of its template database (empty without SMQ_TEST_PGMQ_DIR). */
    pgmqReleases: Record<string, string>;
    /** Every real install made (1.4.4 extension, 1.5.1 and 1.13.0 as plain SQL and as the extension). */
    pgmqInstalls: PgmqInstall[];
  }
}
