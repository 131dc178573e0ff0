// Opening a SmoothMQ SQLite file the way SmoothMQ does (WAL, foreign keys off, auto_vacuum
// full), creating it with SmoothMQ's DDL when asked, and refusing anything else with one
// clear line.
import fs from 'node:fs';
import nodePath from 'node:path';
import Database from 'better-sqlite3';
import { SmqError, usageError } from '../../errors.js';
import { SMOOTHMQ_DDL, checkSchema } from './ddl.js';
import { BUSY_TIMEOUT_MS, isSqliteError, mapSqliteError } from './errors.js';
import { LIST_TABLES, TABLE_COLUMNS } from './sql.js';

export interface OpenedFile {
  readonly db: Database.Database;
  /** False for files from SmoothMQ releases before rate limits. */
  readonly hasRateLimits: boolean;
  /** True when this call created the SmoothMQ tables. */
  readonly created: boolean;
}

export interface OpenFileOptions {
  readonly readOnly?: boolean | undefined;
  readonly create?: boolean | undefined;
  /** SQLite's busy timeout (default BUSY_TIMEOUT_MS). */
  readonly busyTimeoutMs?: number | undefined;
}

/** PRAGMA auto_vacuum's answer for FULL. */
const AUTO_VACUUM_FULL = 1;

const initHint = (path: string) => `run 'smq init --sqlite ${path}' to create a SmoothMQ file`;

function connectionError(message: string, hint?: string, cause?: unknown): SmqError {
  return new SmqError('connection', message, { hint, cause });
}

/** Checks the path before SQLite sees it, so failures name the real problem. */
function preflight(path: string, options: OpenFileOptions): { exists: boolean } {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      throw connectionError(`cannot open SQLite file ${path}: ${(e as Error).message}`, undefined, e);
    }
  }
  if (stat !== undefined) {
    if (stat.isDirectory()) throw connectionError(`${path} is a directory, not an SQLite file`, 'give the path of the file itself');
    if (!stat.isFile()) {
      throw connectionError(
        `${path} is not a regular file (a device, pipe or socket), not an SQLite file`,
        'give the path of a SmoothMQ file',
      );
    }
    try {
      fs.accessSync(path, fs.constants.R_OK);
    } catch (e) {
      throw connectionError(`cannot open SQLite file ${path}: no permission to read it`, undefined, e);
    }
    return { exists: true };
  }
  if (!options.create) throw connectionError(`SQLite file ${path} does not exist`, initHint(path));
  if (options.readOnly) {
    throw connectionError(`SQLite file ${path} does not exist`, 'a read-only connection cannot create it; run without --read-only');
  }
  const dir = nodePath.dirname(nodePath.resolve(path));
  let dirStat: fs.Stats | undefined;
  try {
    dirStat = fs.statSync(dir);
  } catch {
    dirStat = undefined;
  }
  if (dirStat === undefined || !dirStat.isDirectory()) {
    throw connectionError(`cannot create SQLite file ${path}: directory ${dir} does not exist`, 'create the directory first');
  }
  try {
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch (e) {
    throw connectionError(`cannot create SQLite file ${path}: no permission to write in ${dir}`, 'choose a folder you can write to', e);
  }
  return { exists: false };
}

function tablesAndColumns(db: Database.Database): { tables: string[]; columnsOf: (t: string) => string[] } {
  const tables = db.prepare(LIST_TABLES).pluck().all() as string[];
  const columns = db.prepare<[{ table: string }], string>(TABLE_COLUMNS).pluck();
  return { tables, columnsOf: (table) => columns.all({ table }) };
}

/** Creates SmoothMQ's tables unless another connection won the race to do it. */
function createSchema(db: Database.Database): void {
  // auto_vacuum only takes effect if set before the first table exists; WAL after it so the
  // header written for WAL already carries the auto_vacuum flag.
  db.pragma('auto_vacuum = FULL');
  db.pragma('journal_mode = WAL');
  db.transaction(() => {
    if ((db.prepare(LIST_TABLES).pluck().all() as string[]).length > 0) return;
    for (const statement of SMOOTHMQ_DDL) db.exec(statement);
  }).immediate();
}

export function openSmoothMqFile(path: string, options: OpenFileOptions): OpenedFile {
  if (path.trim() === '') throw usageError('the SQLite path is empty', 'pass --sqlite PATH');
  const { exists } = preflight(path, options);
  let db: Database.Database;
  try {
    db = new Database(path, {
      readonly: options.readOnly === true,
      fileMustExist: exists || !options.create,
      timeout: options.busyTimeoutMs ?? BUSY_TIMEOUT_MS,
    });
  } catch (e) {
    if (isSqliteError(e)) throw mapSqliteError(e, path, false, options.busyTimeoutMs);
    throw connectionError(`cannot open SQLite file ${path}: ${(e as Error).message}`, undefined, e);
  }
  try {
    db.defaultSafeIntegers(true);
    db.pragma('foreign_keys = OFF');
    const { tables, columnsOf } = tablesAndColumns(db);
    let check = checkSchema(tables, columnsOf);
    let created = false;
    if (check.kind === 'empty') {
      if (!options.create || options.readOnly) {
        throw connectionError(`${path} is an empty SQLite database, not a SmoothMQ file`, initHint(path));
      }
      createSchema(db);
      const again = tablesAndColumns(db);
      check = checkSchema(again.tables, again.columnsOf);
      created = true;
    }
    if (check.kind === 'foreign') {
      throw connectionError(`${path} is not a SmoothMQ file: ${check.problem}`, 'point --sqlite at the file SmoothMQ uses');
    }
    if (check.kind !== 'smoothmq') throw connectionError(`${path} could not be set up as a SmoothMQ file`);
    if (!options.readOnly) {
      // What SmoothMQ's DSN asks for on every open. Only where not yet in place: setting
      // auto_vacuum takes the write lock even when it changes nothing, so every open (a
      // peek too) would wait for, and could time out behind, another process's write.
      if (String(db.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') db.pragma('journal_mode = WAL');
      if (Number(db.pragma('auto_vacuum', { simple: true })) !== AUTO_VACUUM_FULL) db.pragma('auto_vacuum = FULL');
    }
    return { db, hasRateLimits: check.hasRateLimits, created };
  } catch (e) {
    db.close();
    throw mapSqliteError(e, path, false, options.busyTimeoutMs);
  }
}
