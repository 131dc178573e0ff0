// The test suite's throwaway-server helper (test/helpers/pg-server.ts), compiled on the fly
// so that the benchmarks start PostgreSQL exactly as the tests do.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function loadPgServer() {
  const out = mkdtempSync(join(os.tmpdir(), 'smq-bench-build-'));
  writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
  execFileSync(
    process.execPath,
    [
      join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'),
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--types',
      'node',
      '--skipLibCheck',
      '--outDir',
      out,
      join(REPO, 'test', 'helpers', 'pg-server.ts'),
    ],
    { stdio: 'inherit' },
  );
  const mod = await import(join(out, 'pg-server.js'));
  rmSync(out, { recursive: true, force: true });
  return mod;
}
