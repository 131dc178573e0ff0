// `e` in top: the marked messages (or the highlighted one) written to an NDJSON file, one
// JSON record a line exactly as `smq peek --output ndjson` prints them: the same record
// (messageRecord, ids as strings) through the same serializer (toJsonLine), which writes
// DEL, C1 controls, bidi marks and zero-width characters as \uXXXX, so `cat` of the file
// is as safe as peek's output. A filter's marks are read page by page (keyset, 500 at a
// time), never loaded whole.
import { constants, lstatSync, statSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Backend, Message, MessageSelection, MessageSource, PeekOptions } from '../backends/types.js';
import { invalidInput, type SmqError } from '../errors.js';
import { toJsonLine } from '../output/json.js';
import { messageRecord } from '../output/records.js';

const PAGE = 500;

/** `./orders-20261205-121503.ndjson` (archive: `orders-archive-…`), in the working folder. */
export function defaultExportPath(queueName: string, source: MessageSource, now = new Date()): string {
  const safe = queueName.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60) || 'queue';
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return join('.', `${safe}${source === 'archive' ? '-archive' : ''}-${stamp}.ndjson`);
}

/** The path typed at the prompt: trimmed, and `~` or `~/…` in the home directory, as a shell would read it. */
export function exportPathOf(typed: string, home: string = homedir()): string {
  const path = typed.trim();
  if (path === '~') return home;
  return path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

/** A path the file cannot go to, as one line; no errno code: the words say what to change. */
function cannotExport(path: string, e: unknown): SmqError {
  const code = (e as NodeJS.ErrnoException).code;
  const refuse = (why: string, hint: string) => invalidInput(`cannot export to ${path}: ${why}`, hint);
  // O_EXCL meets a link (dangling too) as EEXIST, O_NOFOLLOW as ELOOP: say what is there.
  if ((code === 'EEXIST' || code === 'ELOOP') && isSymlink(path)) {
    return refuse('it is a symbolic link, and export follows none', 'give the path of a file, or remove the link first');
  }
  switch (code) {
    case 'EISDIR':
      return refuse('it is a directory', 'give the name of a file in it');
    case 'ENOENT':
      // A directory that is there but makes no new files (/proc) answers ENOENT too.
      if (isDirectory(dirname(path))) return refuse(`no file can be made in ${dirname(path)}`, 'give a file in another directory');
      return refuse(`directory ${dirname(path)} does not exist`, 'create it first, or give a file in a directory that exists');
    case 'ENOSPC':
    case 'EDQUOT':
      return refuse(code === 'ENOSPC' ? 'the disk is full' : 'the disk quota is used up', 'free some space or give a file on another disk');
    case 'EFBIG':
      return refuse('the file grew past what its file system allows', 'give a file on another disk');
    case 'ENOTDIR':
      return refuse('a part of the path is a file, not a directory', 'give a file in a directory');
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return refuse('no permission to write there', 'give a file in a directory you can write to');
    case 'EEXIST': // made between the question and the write
      return refuse('a file appeared there meanwhile', 'export again to be asked whether to overwrite it');
    default: // node's text without its code and call: "EIO: i/o error, write"
      return refuse(
        String((e as Error).message ?? e)
          .replace(/^[A-Z0-9]+: /, '')
          .replace(/, \w+ '.*'$/s, ''),
        'give another path',
      );
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Whether a file is at `path` (the caller asks before overwriting it). A directory, a
 * symbolic link (dangling or not: export follows none) or a path that cannot be looked at
 * is refused here, before any question is asked.
 */
export function exportFileExists(path: string): boolean {
  let found: Stats;
  try {
    found = lstatSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // Nothing there, or a part of the path is missing: opening it says which.
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw cannotExport(path, e);
  }
  if (found.isSymbolicLink()) throw cannotExport(path, { code: 'ELOOP' });
  if (found.isDirectory()) throw cannotExport(path, { code: 'EISDIR' });
  return true;
}

function peekOf(backend: Backend, queue: string, source: MessageSource): (o: PeekOptions) => Promise<Message[]> {
  if (source === 'archive') {
    if (!backend.peekArchive) throw new Error('this store has no archive');
    return (o) => backend.peekArchive!(queue, o);
  }
  return (o) => backend.peek(queue, o);
}

function line(m: Message): string {
  // From the archive: state "archived" and when (pgmq keeps no live state for it).
  const record =
    m.archivedAt !== undefined
      ? { ...messageRecord(m), state: 'archived', archivedAt: m.archivedAt?.toISOString() ?? null }
      : messageRecord(m);
  return toJsonLine(record);
}

/** Read and write for the owner only: what a file of message bodies (maybe secrets) is made with. */
const OWNER_ONLY = 0o600;

// A link put at the path after the question is not followed either (ELOOP, or EEXIST).
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;
const REPLACE = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NOFOLLOW;

/**
 * Opens the export file for writing from its start. A file it makes is the owner's alone
 * (0600), whatever the umask: created with that mode (the umask can only take bits away, so
 * no one else can open it in between), then set to it exactly (a umask of 0277 would leave
 * even the owner 0400). A file that is there already (`overwrite`) keeps its mode and owner,
 * as a shell's `>` does: whoever made it chose who may read it, and a device (/dev/stdout,
 * /dev/null) must not be chmodded. Which of the two it is comes from the open itself
 * (O_EXCL first), not from an earlier look that a file made meanwhile could belie.
 */
async function openExportFile(path: string, overwrite: boolean): Promise<FileHandle> {
  try {
    const created = await open(path, CREATE_NEW, OWNER_ONLY);
    try {
      await created.chmod(OWNER_ONLY);
    } catch (e) {
      await created.close();
      throw e;
    }
    return created;
  } catch (e) {
    if (!overwrite || (e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  // Removed between the two opens: made 0600 by the mode here (less what the umask takes).
  return open(path, REPLACE, OWNER_ONLY);
}

/**
 * Writes the selection to `path` (`overwrite` false: refuses an existing file); returns how
 * many messages were written (ids no longer there are skipped).
 */
export async function exportMessages(
  backend: Backend,
  queue: string,
  selection: MessageSelection,
  source: MessageSource,
  path: string,
  overwrite: boolean,
): Promise<number> {
  const peek = peekOf(backend, queue, source);
  const file = await openExportFile(path, overwrite).catch((e: unknown) => {
    throw cannotExport(path, e);
  });
  let written = 0;
  // A write that fails (a full disk) is one line too; the file keeps what was written.
  const write = (text: string) =>
    file.write(text).catch((e: unknown) => {
      throw cannotExport(path, e);
    });
  try {
    if (selection.kind === 'ids') {
      // Marks caught under a state filter: those still in it, as the question counted them.
      const state = source === 'archive' ? 'all' : (selection.state ?? 'all');
      let ids = selection.ids;
      if (ids.length > PAGE) {
        // Many marks (`*`): pages of their id range, the marked ones kept, in id order, while
        // the pages are at least a tenth marked; the rest one by one.
        const wanted = new Set(ids);
        const last = ids.reduce((a, b) => (b > a ? b : a));
        let afterId = ids.reduce((a, b) => (b < a ? b : a)) - 1n;
        for (;;) {
          const page = await peek({ limit: PAGE, state, order: 'oldest', afterId });
          const chunk = page.filter((m) => wanted.has(m.id));
          if (chunk.length > 0) await write(chunk.map(line).join(''));
          written += chunk.length;
          if (page.length < PAGE || page[page.length - 1]!.id >= last) return written;
          afterId = page[page.length - 1]!.id;
          if (chunk.length * 10 < page.length) break;
        }
        const from = afterId;
        ids = ids.filter((id) => id > from);
      }
      for (const id of ids) {
        const [m] = await peek({ id, limit: 1, state });
        if (m) {
          await write(line(m));
          written++;
        }
      }
      return written;
    }
    const state = source === 'archive' ? 'all' : selection.state;
    const min = selection.minReadCount ?? 0;
    let afterId: bigint | undefined;
    for (;;) {
      const page = await peek({ limit: PAGE, state, order: 'oldest', ...(afterId !== undefined ? { afterId } : {}) });
      const chunk = page.filter((m) => m.readCount >= min && (selection.maxId === undefined || m.id <= selection.maxId));
      if (chunk.length > 0) await write(chunk.map(line).join(''));
      written += chunk.length;
      if (page.length < PAGE) return written;
      afterId = page[page.length - 1]!.id;
    }
  } finally {
    await file.close();
  }
}
