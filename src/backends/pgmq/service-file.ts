// libpq's connection service file (pg_service.conf): named sections of keyword=value lines.
// Looked up as libpq does: PGSERVICEFILE (else ~/.pg_service.conf), then
// PGSYSCONFDIR/pg_service.conf; a service in neither is an error.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { readFailure, usageError } from '../../errors.js';
import { readTextFile } from '../../read-text-file.js';

/** Where libpq looks when PGSYSCONFDIR is not set (Debian's and most packages' build). */
const DEFAULT_SYSCONFDIR = '/etc/postgresql-common';

export type Params = Record<string, string>;

function serviceFiles(env: NodeJS.ProcessEnv): string[] {
  const home = env['HOME'] || homedir();
  const user = env['PGSERVICEFILE'] || join(home, '.pg_service.conf');
  const system = join(env['PGSYSCONFDIR'] || DEFAULT_SYSCONFDIR, 'pg_service.conf');
  return [user, system];
}

/** The section `service` of one file, or undefined when the file has no such section. */
function readSection(file: string, service: string, known: ReadonlySet<string>): Params | undefined {
  let text: string;
  try {
    text = readTextFile(file).text;
  } catch (e) {
    throw usageError(`cannot read service file ${JSON.stringify(file)}: ${readFailure(e)}`);
  }
  let inside = false;
  let found: Params | undefined;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('[')) {
      // A later section of the same name does not reopen it: the first one counts, as in libpq.
      if (found) break;
      inside = line === `[${service}]`;
      if (inside) found = {};
      continue;
    }
    if (!inside || !found) continue;
    const where = `service file ${JSON.stringify(file)}, line ${i + 1}`;
    const eq = line.indexOf('=');
    // Never show the line: it may be password=...
    if (eq <= 0) throw usageError(`syntax error in ${where}`, 'write keyword=value');
    const key = line.slice(0, eq).trim();
    if (key === 'service') throw usageError(`nested service specifications not supported in ${where}`);
    if (!known.has(key)) throw usageError(`invalid connection option ${JSON.stringify(key)} in ${where}`);
    found[key] = line.slice(eq + 1).trim();
  }
  return found;
}

/** The parameters of a named service; a service no file defines is an error, as in libpq. */
export function serviceParams(service: string, env: NodeJS.ProcessEnv, known: ReadonlySet<string>): Params {
  for (const file of serviceFiles(env)) {
    if (!existsSync(file)) continue;
    const found = readSection(file, service, known);
    if (found) return found;
  }
  throw usageError(
    `definition of service ${JSON.stringify(service)} not found`,
    'check PGSERVICE or ?service= and the service file (PGSERVICEFILE, ~/.pg_service.conf)',
  );
}
