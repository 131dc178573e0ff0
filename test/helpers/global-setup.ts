// vitest globalSetup: one throwaway Postgres for the whole run (or SMQ_TEST_PG_URL),
// with smq's pgmq-compatible schema installed.
import type { TestProject } from 'vitest/node';
import { startPgServer, type PgServer } from './pg-server.js';
import { installSchema } from './schema.js';

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
  project.provide('pgmqUrl', process.env['SMQ_TEST_PGMQ_URL'] ?? '');
  return () => {
    server?.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
    pgDataDir: string;
    pgmqUrl: string;
  }
}
