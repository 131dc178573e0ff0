// SQLite's errors, turned into SmqErrors that read as one line.
import { SmqError, isSmqError } from '../../errors.js';
import { formatTimeout } from '../deadline.js';

interface SqliteLikeError {
  readonly code: string;
  readonly message: string;
}

export function isSqliteError(e: unknown): e is SqliteLikeError {
  if (!(e instanceof Error)) return false;
  const code: unknown = (e as Error & { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_');
}

export function isPrimaryKeyViolation(e: unknown): boolean {
  return isSqliteError(e) && e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** The busy timeout the backend sets; named in the "busy" message. */
export const BUSY_TIMEOUT_MS = 5000;

/** readOnlyRequested: the connection was opened read-only on purpose (--read-only). */
export function mapSqliteError(e: unknown, path: string, readOnlyRequested = false, busyTimeoutMs = BUSY_TIMEOUT_MS): unknown {
  if (isSmqError(e) || !isSqliteError(e)) return e;
  const code = e.code;
  if (code.startsWith('SQLITE_READONLY')) {
    return readOnlyRequested
      ? new SmqError('read-only', `${path} is open read-only; SQLite refused the write`, {
          hint: 'run without --read-only to change it',
          cause: e,
        })
      : new SmqError('read-only', `SQLite refused to write ${path}: the file or its folder is read-only`, {
          hint: 'check the permissions of the file, its -wal and -shm files and the folder',
          cause: e,
        });
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new SmqError('database', `${path} stayed locked by another connection for over ${formatTimeout(busyTimeoutMs)}`, {
      hint: 'try again, or stop the process holding a long write transaction',
      cause: e,
    });
  }
  if (code === 'SQLITE_NOTADB') {
    return new SmqError('connection', `${path} is not an SQLite database`, {
      hint: 'point --sqlite at a SmoothMQ file, or create one with smq init --sqlite PATH',
      cause: e,
    });
  }
  if (code.startsWith('SQLITE_CORRUPT')) {
    return new SmqError('database', `${path} is damaged (SQLite: ${e.message})`, { cause: e });
  }
  if (code === 'SQLITE_FULL') {
    return new SmqError('database', `cannot write ${path}: the disk is full`, { cause: e });
  }
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM') || code.startsWith('SQLITE_AUTH')) {
    return new SmqError('connection', `cannot open ${path} (SQLite: ${e.message})`, { cause: e });
  }
  if (code.startsWith('SQLITE_IOERR')) {
    return new SmqError('database', `I/O error on ${path} (SQLite: ${e.message})`, { cause: e });
  }
  return new SmqError('database', `SQLite error on ${path}: ${e.message}`, { cause: e });
}
