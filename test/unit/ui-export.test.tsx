// `e` in top to a path that cannot take the file: a folder, a file in a folder that does not
// exist, a folder smq may not write in. Each is one line in the footer, never a raw errno,
// and a folder is refused before the overwrite question. Real files in a temp folder.
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { exportPathOf } from '../../src/ui/export-ndjson.js';
import { FakeBackend } from '../helpers/ui/fake-backend.js';
import { KEYS, renderTop, useFakeTimersForInk, type Harness } from '../helpers/ui/render.js';

const tmp = mkdtempSync(join(tmpdir(), 'smq-ui-export-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

useFakeTimersForInk();
let h: Harness | undefined;

/** root may write anywhere a mode allows nothing; /sys refuses new files even to root. */
function unwritableDir(): string {
  if (process.getuid?.() === 0) return '/sys';
  const dir = join(tmp, 'locked');
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o555);
  return dir;
}

/** Opens `orders`, presses e, replaces the offered file name with `path` and presses Enter. */
async function exportTo(path: string): Promise<Harness> {
  const b = new FakeBackend({ kind: 'pgmq' });
  b.addQueue('orders');
  b.addMessages('orders', ['{"n":1}']);
  h = await renderTop(b, { timers: vi, size: { columns: 200, rows: 30 } }); // room for the whole line
  await h.press(KEYS.enter);
  await h.settle();
  await h.press('e');
  expect(h.frame()).toContain('Export message 1 to file:');
  await h.press('\u0015'); // Ctrl-U clears the offered name
  await h.paste(`${path}\r`);
  return h;
}

/** The footer's last answer once the file call has come back (real I/O under fake timers). */
const answered = (h: Harness, text: RegExp) =>
  vi.waitFor(async () => {
    await h.settle();
    expect(h.frame()).toMatch(text);
  });

describe('export to a path that cannot take the file', () => {
  test('a folder: refused at once, one line naming it, no overwrite question', async () => {
    const h = await exportTo(tmp);
    const f = h.frame();
    expect(f).not.toContain('Overwrite');
    expect(f).toContain(`cannot export to ${tmp}: it is a directory: give the name of a file in it`);
    expect(f).not.toMatch(/EISDIR|EEXIST/);
  });

  test('a file in a folder that does not exist: one line naming the folder', async () => {
    const path = join(tmp, 'missing', 'out.ndjson');
    const h = await exportTo(path);
    await answered(h, /export message 1 failed: /);
    expect(h.frame()).toContain(`cannot export to ${path}: directory ${join(tmp, 'missing')} does not exist`);
    expect(h.frame()).not.toContain('ENOENT');
  });

  test('a folder smq may not write in: one line saying so', async () => {
    const dir = unwritableDir();
    const path = join(dir, 'out.ndjson');
    const h = await exportTo(path);
    await answered(h, /export message 1 failed: /);
    expect(h.frame()).toContain(`cannot export to ${path}: no permission to write there`);
    expect(h.frame()).not.toMatch(/EACCES|EPERM|EROFS/);
    if (dir !== '/sys') expect(readdirSync(dir)).toEqual([]);
  });

  test('a folder that exists but takes no new files (/proc): not said to be missing', async () => {
    const h = await exportTo('/proc/smq-export.ndjson');
    await answered(h, /export message 1 failed: /);
    expect(h.frame()).toContain('cannot export to /proc/smq-export.ndjson: no file can be made in /proc: give a file in another directory');
    expect(h.frame()).not.toMatch(/does not exist|ENOENT/);
  });

  test.skipIf(!existsSync('/dev/full'))('a write that fails (a full disk: /dev/full): one line, no errno', async () => {
    const h = await exportTo('/dev/full');
    await answered(h, /Overwrite/);
    await h.press('y');
    await answered(h, /export message 1 failed: /);
    expect(h.frame()).toContain('cannot export to /dev/full: the disk is full: free some space or give a file on another disk');
    expect(h.frame()).not.toMatch(/ENOSPC/);
  });
});

// A symbolic link at the path is refused at once, dangling or not: export follows none, so
// it can neither loop on "a file appeared there meanwhile" (O_EXCL refuses a dangling link,
// which stat says is not there) nor write through a link into a file the user did not name.
describe.skipIf(process.platform === 'win32')('export to a symbolic link', () => {
  const SAID = 'it is a symbolic link, and export follows none: give the path of a file, or remove the link first';

  test('a dangling link: one line at once, nothing written, the link left as it was', async () => {
    const target = join(tmp, 'nowhere.ndjson');
    const link = join(tmp, 'dangling.ndjson');
    symlinkSync(target, link);
    const h = await exportTo(link);
    await answered(h, /cannot export to /);
    const f = h.frame();
    expect(f).toContain(`cannot export to ${link}: ${SAID}`);
    expect(f).not.toMatch(/Overwrite|meanwhile|ELOOP|EEXIST/);
    expect(existsSync(target)).toBe(false);
    expect(readlinkSync(link)).toBe(target);
    // Again: the same line, no loop.
    h.unmount();
    const again = await exportTo(link);
    await answered(again, /cannot export to /);
    expect(again.frame()).toContain(`cannot export to ${link}: ${SAID}`);
    expect(again.frame()).not.toContain('meanwhile');
  });

  test('a link to a file: refused before the overwrite question; the file is untouched', async () => {
    const target = join(tmp, 'real.ndjson');
    writeFileSync(target, 'keep\n');
    const link = join(tmp, 'to-real.ndjson');
    symlinkSync(target, link);
    const h = await exportTo(link);
    await answered(h, /cannot export to /);
    expect(h.frame()).toContain(`cannot export to ${link}: ${SAID}`);
    expect(h.frame()).not.toContain('Overwrite');
    expect(readFileSync(target, 'utf8')).toBe('keep\n');
  });

  test('a file that becomes a link while the overwrite question is open: not followed', async () => {
    const target = join(tmp, 'victim.ndjson');
    writeFileSync(target, 'keep\n');
    const path = join(tmp, 'swapped.ndjson');
    writeFileSync(path, 'old\n');
    const h = await exportTo(path);
    await answered(h, /Overwrite/);
    unlinkSync(path);
    symlinkSync(target, path);
    await h.press('y');
    await answered(h, /export message 1 failed: /);
    expect(h.frame()).toContain(`cannot export to ${path}: ${SAID}`);
    expect(readFileSync(target, 'utf8')).toBe('keep\n');
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
  });
});

// Message bodies may hold secrets: a file export makes is the user's alone (as psql's history
// or kubectl's config), whatever the umask; a file it overwrites keeps its mode, as `>` does.
describe('the mode of the exported file', () => {
  const modeOf = (path: string) => statSync(path).mode & 0o777;

  test.skipIf(process.platform === 'win32')('a new file is 0600 under the usual umask and under umask 0', async () => {
    for (const umask of [0o022, 0o000]) {
      const before = process.umask(umask);
      try {
        const path = join(tmp, `new-${umask.toString(8)}.ndjson`);
        const h = await exportTo(path);
        await answered(h, /exported 1 message to /);
        expect(readFileSync(path, 'utf8')).toContain('"{\\"n\\":1}"');
        expect(modeOf(path).toString(8)).toBe('600');
        h.unmount();
      } finally {
        process.umask(before);
      }
    }
  });

  test.skipIf(process.platform === 'win32')('a umask that takes the owner bits still leaves the owner able to read it', async () => {
    const before = process.umask(0o277);
    try {
      const path = join(tmp, 'owner-masked.ndjson');
      const h = await exportTo(path);
      await answered(h, /exported 1 message to /);
      expect(modeOf(path).toString(8)).toBe('600');
    } finally {
      process.umask(before);
    }
  });

  test.skipIf(process.platform === 'win32')('an existing file that is overwritten keeps its mode', async () => {
    const path = join(tmp, 'shared.ndjson');
    writeFileSync(path, 'old\n');
    chmodSync(path, 0o644);
    const h = await exportTo(path);
    await answered(h, /Overwrite/);
    await h.press('y');
    await answered(h, /exported 1 message to /);
    expect(readFileSync(path, 'utf8')).not.toContain('old');
    expect(modeOf(path).toString(8)).toBe('644');
  });
});

test('a typed ~ or ~/… is the home directory, as in a shell; other paths are as typed', () => {
  expect(exportPathOf(' ~/out.ndjson ', '/home/ops')).toBe('/home/ops/out.ndjson');
  expect(exportPathOf('~', '/home/ops')).toBe('/home/ops');
  expect(exportPathOf('~other/x', '/home/ops')).toBe('~other/x');
  expect(exportPathOf('./a~/b', '/home/ops')).toBe('./a~/b');
});
