// A small text file a user names (a contexts file, a service file, a TLS certificate or key):
// only a regular file, judged on the opened descriptor before anything is read. A FIFO
// without a writer does not hold the open (O_NONBLOCK) and is refused, as are a device such
// as /dev/zero and a socket, and a file larger than any such file is. Errors carry a code
// that errors.ts readFailure() says in words.
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/** Larger than any contexts file, service file or PEM file smq reads. */
export const MAX_TEXT_FILE_BYTES = 16 * 1024 * 1024;

const coded = (code: string) => Object.assign(new Error(code), { code });

/** The text of `path` and its mode; throws an error with a code (ENOENT, ENOTFILE, ETOOBIG, …). */
export function readTextFile(path: string, maxBytes = MAX_TEXT_FILE_BYTES): { text: string; mode: number } {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw coded('EISDIR');
    if (!st.isFile()) throw coded('ENOTFILE');
    if (st.size > maxBytes) throw coded('ETOOBIG');
    return { text: readFileSync(fd, 'utf8'), mode: st.mode };
  } finally {
    closeSync(fd);
  }
}
