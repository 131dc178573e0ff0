// What the SQLite backend tells top about the file rather than a queue, changing nothing:
// whether it may be written at all (cannotWrite).
import fs from 'node:fs';
import { escapeControl } from '../../text/escape.js';
import type { SqliteSession } from './session.js';

/** Why this file may not be changed (opened read-only, or not writable by this user), or undefined. */
export function cannotWrite(s: SqliteSession): string | undefined {
  const file = escapeControl(s.path);
  if (s.db.readonly) return `the file ${file} is open read-only`;
  try {
    fs.accessSync(s.path, fs.constants.W_OK);
  } catch {
    return `no permission to write ${file}`;
  }
  return undefined;
}
