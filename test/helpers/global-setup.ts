// vitest globalSetup: one throwaway Postgres for the whole run (or SMQ_TEST_PG_URL),
// with smq's pgmq-compatible schema installed.
import type { TestProject } from 'vitest/node';
import { startPgServer, type PgServer } from './pg-server.js';
import { installSchema } from './schema.js';
import { defaultTemplates, installRealPgmq, type PgmqInstall } from './real-pgmq.js';

interface Suite {
  readonly server: PgServer | undefined;
  readonly url: string;
  readonly installs: PgmqInstall[];
}

// The `integration` and `tui` projects share one server: each project runs this setup, in the
// one vitest process, and the last teardown stops it.
const shared = globalThis as { smqSuite?: Promise<Suite>; smqSuiteUsers?: number };

async function startSuite(): Promise<Suite> {
  let server: PgServer | undefined;
  let url = process.env['SMQ_TEST_PG_URL'];
  if (!url) {
    server = await startPgServer();
    url = server.url;
  }
  await installSchema(url);
  // Real pgmq releases (../shared/pgmq, set by .ci/run) on the suite's own server only.
  const pgmqDir = process.env['SMQ_TEST_PGMQ_DIR'];
  const installs = pgmqDir && server ? await installRealPgmq(server.adminUrl, pgmqDir) : [];
  return { server, url, installs };
}

export default async function setup(project: TestProject) {
  shared.smqSuiteUsers = (shared.smqSuiteUsers ?? 0) + 1;
  shared.smqSuite ??= startSuite();
  const { server, url, installs } = await shared.smqSuite;
  project.provide('pgUrl', url);
  project.provide('pgDataDir', server?.dataDir ?? '');
  project.provide('pgmqReleases', defaultTemplates(installs));
  project.provide('pgmqInstalls', installs);
  return () => {
    shared.smqSuiteUsers = (shared.smqSuiteUsers ?? 1) - 1;
    if (shared.smqSuiteUsers > 0) return;
    shared.smqSuite = undefined;
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
