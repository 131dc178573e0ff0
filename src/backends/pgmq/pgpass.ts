// libpq's password file (PGPASSFILE, else ~/.pgpass): host:port:database:user:password lines,
// `*` matching anything, `\` escaping `:` and `\`. smq reads it itself so that the password
// it holds is one smq knows (and never shows), and node-postgres never reads it on its own.
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface PasswordFor {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string;
}

/** The fields of one line, unescaped; undefined for a line with fewer than five. */
function fieldsOf(line: string): string[] | undefined {
  const fields: string[] = [];
  let current = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\' && i + 1 < line.length) current += line[++i];
    else if (c === ':' && fields.length < 4) {
      fields.push(current);
      current = '';
    } else current += c;
  }
  fields.push(current);
  return fields.length === 5 ? fields : undefined;
}

/**
 * The password of the first line that matches, as libpq picks it; undefined when there is
 * none, or when the file is not a private regular file (libpq ignores those too).
 */
export function pgpassPassword(want: PasswordFor, env: NodeJS.ProcessEnv): string | undefined {
  const file = env['PGPASSFILE'] || join(env['HOME'] || homedir(), '.pgpass');
  let text: string;
  try {
    const stat = statSync(file);
    if (!stat.isFile() || (process.platform !== 'win32' && (stat.mode & 0o077) !== 0)) return undefined;
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  // A Unix socket in a directory is "localhost" to libpq's password file.
  const hosts = want.host.startsWith('/') ? [want.host, 'localhost'] : [want.host];
  const wanted = [hosts, [String(want.port)], [want.database], [want.user]];
  for (const raw of text.split(/\r?\n/)) {
    if (raw.trim() === '' || raw.startsWith('#')) continue;
    const fields = fieldsOf(raw);
    if (!fields) continue;
    if (wanted.every((values, i) => fields[i] === '*' || values.includes(fields[i]!))) return fields[4]!;
  }
  return undefined;
}
