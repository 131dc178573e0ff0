// Reading a file a user names as a saved report: only a regular file, and only up to a size,
// both judged on the opened descriptor (fstat) before anything is read, so that a FIFO, a
// device such as /dev/zero or a directory is refused at once and a huge file is never loaded.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { formatBytes } from '../ui/model/details.js';
import { readFailure } from '../errors.js';

/** Why a path cannot be read as a report file (the command words it). */
export class ReportFileError extends Error {
  constructor(
    /** 'cannot read x: no such file (ENOENT)', 'x is a FIFO, not a file', 'x is 1.0 GB: a report is at most 64 MiB'. */
    readonly problem: string,
    /** The size was the problem (no hint about which file to give). */
    readonly tooLarge = false,
  ) {
    super(problem);
  }
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** '64 MiB' for 64 * 1024 * 1024. */
const limitText = (bytes: number) => `${bytes / (1024 * 1024)} MiB`;

/**
 * The text of `path`, a regular file of at most maxBytes. name: the path as shown (escaped).
 * Opened without blocking (O_NONBLOCK: a FIFO without a writer does not hold the open).
 */
export function readReportFile(path: string, name: string, maxBytes: number): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new ReportFileError(`${name} is a directory, not a file`);
    throw new ReportFileError(`cannot read ${name}: ${readFailure(e)}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ReportFileError(`${name} is ${kindOf(st)}, not a file`);
    if (st.size > maxBytes)
      throw new ReportFileError(`${name} is ${formatBytes(st.size)}: a report is at most ${limitText(maxBytes)}`, true);
    // Read to the end, but never past the limit: the file may grow while it is read.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const room = maxBytes + 1 - total;
      if (room <= 0) break;
      const chunk = Buffer.allocUnsafe(Math.min(room, Math.max(64 * 1024, st.size + 1 - total)));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
    }
    if (total > maxBytes)
      throw new ReportFileError(`${name} grew past ${limitText(maxBytes)} while it was read: a report is at most that`, true);
    return Buffer.concat(chunks, total).toString('utf8');
  } catch (e) {
    if (e instanceof ReportFileError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new ReportFileError(`${name} is a directory, not a file`);
    throw new ReportFileError(`cannot read ${name}: ${readFailure(e)}`);
  } finally {
    closeSync(fd);
  }
}
