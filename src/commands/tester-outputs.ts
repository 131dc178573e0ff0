// The files smq tester writes besides stdout (--html at the end, --hdr-log during the run),
// judged before the run: a path that would destroy something (the store under test, its
// companions, another SQLite database, the --baseline, the file stdout goes to, the other
// report) or that cannot hold a report (empty, a device, a FIFO, a kernel file) is refused
// with one line (exit 2) before anything is created or written. A write that fails anyway
// (a full disk) is said in one line naming the flag, the file and the reason.
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  realpathSync,
  statfsSync,
  statSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { usageError } from '../errors.js';
import { escapeControl } from '../text/escape.js';
import type { Target } from '../backends/target.js';

/** A report file the run writes: the flag that names it and the path as given. */
export interface ReportFile {
  readonly flag: 'html' | 'hdr-log';
  readonly path: string;
}

/** What else the run touches: the store, the --baseline it reads, where stdout goes. */
export interface RunFiles {
  readonly target: Target;
  readonly baseline?: string | undefined;
  /** The descriptor stdout writes to (1), when the process's own stdout is the report's. */
  readonly stdoutFd?: number | undefined;
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** Kernel filesystems whose files look regular but hold no report (statfs f_type). */
const KERNEL_FILESYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'proc'],
  [0x62656572, 'sys'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0xcafe4a11, 'bpf'],
  [0xde5e81e4, 'efivarfs'],
]);

/** The SQLite files beside a store: a report there is lost or wrecks the store. */
const COMPANIONS = [
  ['-wal', "the SQLite store's write-ahead log"],
  ['-shm', "the SQLite store's shared-memory file"],
  ['-journal', "the SQLite store's rollback journal"],
] as const;

const EXAMPLE = { html: 'run.html', 'hdr-log': 'run.hlog' } as const;

function kindOf(st: Stats): string {
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

const statOrUndefined = (path: string): Stats | undefined => {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
};

/**
 * The file a path leads to, so that two spellings of one file compare equal: its device and
 * inode when it exists (symlinks, hard links, `./x`), else its folder's real path and its name.
 */
function identityOf(path: string): string {
  const st = statOrUndefined(path);
  if (st) return `${st.dev}:${st.ino}`;
  const abs = resolve(path);
  let dir = dirname(abs);
  try {
    dir = realpathSync(dir);
  } catch {
    // A folder that does not exist: the path as written (checkOne refuses it anyway).
  }
  return `${dir}/${basename(abs)}`;
}

function startsWithSqliteMagic(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const head = Buffer.alloc(SQLITE_MAGIC.length);
    return readSync(fd, head, 0, head.length, 0) === head.length && head.equals(SQLITE_MAGIC);
  } catch {
    return false; // unreadable: the write is judged by its own check
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const kernelFilesystemOf = (path: string): string | undefined => {
  try {
    return KERNEL_FILESYSTEMS.get(Number(statfsSync(path).type));
  } catch {
    return undefined;
  }
};

/** One report file on its own: a regular file (or a new one) in a folder that takes it, and no database. */
function checkOne({ flag, path }: ReportFile): void {
  const shown = `--${flag} ${escapeControl(path)}`;
  const st = statOrUndefined(path);
  const dir = dirname(resolve(path));
  const kernel = kernelFilesystemOf(st ? path : dir);
  if (kernel !== undefined)
    throw usageError(`${shown} is a file of the kernel's ${kernel} filesystem, not a regular file`, 'give a file name on a disk');
  if (st?.isDirectory()) throw usageError(`${shown} is a folder`, 'give a file name');
  if (st && !st.isFile())
    throw usageError(`${shown} is ${kindOf(st)}, not a regular file`, 'give a file name (the text or JSON report goes to stdout)');
  if (st && startsWithSqliteMagic(path))
    throw usageError(`${shown} is an SQLite database`, 'give another file name: smq tester does not overwrite a database');
  try {
    accessSync(st ? path : dir, constants.W_OK);
  } catch {
    throw st
      ? usageError(`${shown}: cannot write that file`, 'give a file you can write to')
      : usageError(`${shown}: cannot write in ${escapeControl(dir)}`, 'give a path in a folder you can write to');
  }
}

/** Refuses, before the run, every report file that cannot hold its report or would overwrite something. */
export function checkReportFiles(files: readonly ReportFile[], run: RunFiles): void {
  for (const { flag, path } of files) {
    if (path === '') throw usageError(`--${flag} was given an empty file name`, `give a file name, e.g. --${flag} ${EXAMPLE[flag]}`);
  }
  const taken: [string, string][] = [];
  if (run.target.kind === 'sqlite') {
    taken.push([identityOf(run.target.path), 'the SQLite store under test']);
    for (const [suffix, what] of COMPANIONS) taken.push([identityOf(run.target.path + suffix), what]);
  }
  if (run.baseline !== undefined) taken.push([identityOf(run.baseline), 'the --baseline file']);
  if (run.stdoutFd !== undefined) {
    const out = (() => {
      try {
        return fstatSync(run.stdoutFd);
      } catch {
        return undefined;
      }
    })();
    if (out?.isFile()) taken.push([`${out.dev}:${out.ino}`, 'the file stdout goes to']);
  }
  const seen = new Map<string, ReportFile>();
  for (const file of files) {
    const id = identityOf(file.path);
    const shown = `--${file.flag} ${escapeControl(file.path)}`;
    const clash = taken.find(([other]) => other === id);
    if (clash) throw usageError(`${shown} is ${clash[1]}`, 'give another file name: the report would overwrite it');
    const earlier = seen.get(id);
    if (earlier)
      throw usageError(`--${earlier.flag} and --${file.flag} name the same file ${escapeControl(file.path)}`, 'give each its own file');
    seen.set(id, file);
  }
  for (const file of files) checkOne(file);
}

const WHAT = { html: 'the HTML report', 'hdr-log': 'the HdrHistogram log' } as const;

/** "no space left on device" from Node's "ENOSPC: no space left on device, write". */
const reasonOf = (e: unknown) => {
  const message = e instanceof Error ? e.message : String(e);
  return /^E[A-Z0-9]+: ([^,]+)/.exec(message)?.[1] ?? message;
};

/** The line on stderr for a report file the run could not write (the report on stdout stands). */
export function unwrittenReportLine(file: ReportFile, e: unknown): string {
  return `smq tester: could not write ${WHAT[file.flag]} to ${escapeControl(file.path)} (--${file.flag}): ${escapeControl(reasonOf(e))}\n`;
}

/** Writes a report file after the run: undefined when written, else the line that says why not. */
export function writeReportFile(file: ReportFile, content: string): string | undefined {
  try {
    writeFileSync(file.path, content);
    return undefined;
  } catch (e) {
    return unwrittenReportLine(file, e);
  }
}
