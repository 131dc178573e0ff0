// Long bodies in smq top's message view (issue 18): `w` wraps, h/l and ←/→ scroll sideways,
// `p` opens the message in $PAGER with the terminal handed over (raw mode off, alternate
// screen left) and taken back (redrawn, keys working); a missing pager is one line. The
// built `smq top` in tmux, keys in bursts, against PostgreSQL (smq's compat schema) and a
// SmoothMQ file; reading changes nothing in the database.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { openBackend } from '../../src/backends/index.js';
import { tmuxAvailable } from '../helpers/tmux.js';
import { makeTempDir } from '../helpers/backends.js';
import { createDatabase } from '../helpers/real-pgmq.js';
import { installSchema } from '../helpers/schema.js';
import { killTop, lastLine, requireBuild, startTop, topOn } from '../helpers/top-screen.js';

afterEach(killTop);
beforeAll(requireBuild);

const tag = () => randomBytes(3).toString('hex');
const tmp = makeTempDir('smq-top-bodies-');
afterAll(() => tmp.cleanup());

// 200 kB of JSON: one long string line, an escape sequence (as JSON stores it), RTL and emoji.
const LONG = 'L'.repeat(100) + 'M'.repeat(100) + 'N'.repeat(199_000);
const BODY = JSON.stringify({ first: 'short', long: LONG, red: '\u001b[31mred', rtl: 'שלום עולם 👍🏽 مرحبا' });

/** A pager that records the terminal's mode, whether tmux shows the alternate screen, and what it got. */
function recordingPager(dir: string): string {
  const script = join(dir, 'pager.sh');
  writeFileSync(
    script,
    [
      `stty -a < /dev/tty > '${dir}/stty'`,
      `tmux -L "$(cat '${dir}/socket')" display-message -p '#{alternate_on}' > '${dir}/alt'`,
      `cat > '${dir}/out'`,
      `echo done > '${dir}/done'`,
    ].join('\n'),
  );
  return `sh ${script}`;
}

describe.skipIf(!tmuxAvailable())('long bodies on pgmq (compat schema, real terminal)', () => {
  const p = `bod${tag()}`;
  const queue = `${p}_q`;
  let url: string;
  let c: pg.Client;

  beforeAll(async () => {
    url = await createDatabase(inject('pgUrl'), `topbodies_${tag()}`);
    await installSchema(url);
    c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('SELECT pgmq.create($1)', [queue]);
    await c.query('SELECT pgmq.send($1, $2::jsonb, $3::jsonb)', [queue, BODY, JSON.stringify({ trace: 'abc', 'x-bell': 'a\u0007b' })]);
  });
  afterAll(async () => {
    await c?.end();
  });

  test('cut at the edge, → and l scroll by 8 cells, w wraps, ← at the edge goes back; p hands the terminal to $PAGER and takes it back', async () => {
    const dir = tmp.dir;
    const t = await topOn(url, p, { width: 100, height: 30, env: { PAGER: recordingPager(dir) } });
    writeFileSync(join(dir, 'socket'), t.socket);
    t.keys('Enter', 'Enter');
    let screen = await t.waitFor(/body \(JSON\), [\d,]+ bytes:/);
    expect(screen).toContain(`${queue} · message 1`);
    expect(screen).toMatch(/^ {2}"long": "L{88}…$/m);
    expect(screen).toContain('"red": "\\u001b[31mred"');
    expect(screen).toContain('"rtl": "שלום עולם 👍🏽 مرحبا"');
    expect(lastLine(screen)).toMatch(/w wrap · p pager/);

    // A burst: → → l is 24 cells to the right.
    t.keys('Right', 'Right', 'l');
    screen = await t.waitFor('from column 25');
    expect(screen).toMatch(/^‹L{86}M{12}…$/m);
    // h and ← come back; ← once more at the edge goes back to the queue view.
    t.keys('h', 'Left', 'h');
    screen = await t.waitFor((s) => s.includes(`${queue} · message 1`) && !s.includes('from column'));
    t.keys('w');
    screen = await t.waitFor('· wrapped');
    expect(screen).toMatch(/^ {2}"long": "L{89}$/m);
    expect(screen).toMatch(/^L{11}M{89}$/m);
    t.keys('Left');
    await t.waitFor(`${queue} · oldest first`);
    // The queue view's BODY scrolls too (h/l; ← and → stay back and open).
    t.keys('l', 'l');
    screen = await t.waitFor('body from column 17');
    expect(screen).toMatch(/^› +1 ready .*‹/m);
    t.keys('h', 'h');
    await t.waitFor((s) => !s.includes('body from column'));

    // p in the queue view: the highlighted message, whole, in the pager.
    t.keys('p');
    await t.waitFor(() => readFileSafe(join(dir, 'done')) === 'done\n', 15_000);
    const out = readFileSync(join(dir, 'out'), 'utf8');
    expect(out).toContain(`"long": "${LONG}"`); // not cut at 1,000 characters
    expect(out).toContain('headers (JSON):\n{\n  "trace": "abc",\n  "x-bell": "a\\u0007b"\n}');
    expect(out).toContain('"rtl": "שלום עולם 👍🏽 مرحبا"');
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    // The terminal was the pager's: canonical mode and echo (raw mode off), the normal screen.
    const stty = readFileSync(join(dir, 'stty'), 'utf8');
    expect(stty).toMatch(/(^|\s)icanon(\s|$)/);
    expect(stty).toMatch(/(^|\s)echo(\s|$)/);
    expect(readFileSync(join(dir, 'alt'), 'utf8').trim()).toBe('0');
    // Back: the screen redrawn, keys read one by one again (Enter opens the message).
    screen = await t.waitFor(`${queue} · oldest first`);
    expect(screen).toMatch(/smq top/);
    t.keys('Enter', 'w');
    await t.waitFor('· wrapped');
    // Reading changed nothing.
    const row = (await c.query<{ read_ct: number }>(`SELECT read_ct FROM pgmq.${pg.escapeIdentifier(`q_${queue}`)}`)).rows[0]!;
    expect(row.read_ct).toBe(0);
    t.keys('C-c');
    expect(await t.waitForExit()).toBe(0);
  }, 60_000);

  test('less as the pager: the message in it, q gives the screen back to top', async () => {
    const t = await topOn(url, p, { width: 100, height: 30, env: { PAGER: 'less' } });
    t.keys('Enter', 'Enter');
    await t.waitFor(/body \(JSON\), [\d,]+ bytes:/);
    t.keys('p');
    let screen = await t.waitFor((s) => s.includes('"rtl": "שלום עולם 👍🏽 مرحبا",') && !s.includes('smq top'));
    expect(screen).toContain(`${queue} · message 1`);
    t.keys('q');
    screen = await t.waitFor((s) => s.includes('smq top') && s.includes(`${queue} · message 1`));
    expect(screen).toMatch(/body \(JSON\), [\d,]+ bytes:/);
    // Keys work at once: ← goes back, Esc to the list.
    t.keys('Left', 'Escape');
    await t.waitFor(/\d+ of \d+ queues?/);
    t.keys('q');
    expect(await t.waitForExit()).toBe(0);
  }, 60_000);
});

describe.skipIf(!tmuxAvailable())('long bodies on a SmoothMQ file (real terminal)', () => {
  test('a raw ESC and RTL text escaped and wrapped; PAGER=/nonexistent is one line and top goes on', async () => {
    const file = join(tmp.dir, 'bodies.sqlite');
    const b = await openBackend({ kind: 'sqlite', path: file }, { create: true });
    try {
      await b.createQueue('jobs');
      await b.send('jobs', { body: `start \u001b[31mred\u001b[0m ${'ע'.repeat(150)} 👍🏽 end` });
    } finally {
      await b.close();
    }
    const t = startTop(['--sqlite', file, '--interval', '1'], { width: 80, height: 24, env: { PAGER: '/nonexistent' } });
    await t.waitFor(/1 of 1 queue/);
    t.keys('Enter', 'Enter');
    let screen = await t.waitFor(/^body, [\d,]+ bytes:$/m);
    expect(screen).toMatch(/^start \\e\[31mred\\e\[0m ע+…$/m);
    t.keys('w');
    screen = await t.waitFor('· wrapped');
    expect(screen).toMatch(/^ע+ 👍🏽 end$/m);
    t.keys('p');
    screen = await t.waitFor('pager "/nonexistent" not found (set PAGER to a pager that is installed)');
    expect(screen).toContain('jobs · message');
    t.keys('w', 'End');
    await t.waitFor((s) => !s.includes('· wrapped'));
    t.keys('q', 'q', 'q');
    expect(await t.waitForExit()).toBe(0);
  }, 60_000);
});

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
