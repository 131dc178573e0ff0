// Top's export (`e`) writes the NDJSON `smq peek <queue> --output ndjson` prints for the same
// messages, byte for byte: one serializer (output/json's toJsonLine), which writes the bidi
// marks, zero-width characters, DEL and C1 controls JSON.stringify leaves raw as \uXXXX, so
// `cat` of the file can neither reorder a line nor run an escape sequence. On PostgreSQL
// (smq's compat schema) and a SmoothMQ file, through the built binary for peek.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { Backend } from '../../src/backends/types.js';
import { toJsonLine } from '../../src/output/json.js';
import { exportMessages } from '../../src/ui/export-ndjson.js';
import { BACKEND_KINDS, fixtures, makeTempDir, uniqueQueue, type BackendFixture } from '../helpers/backends.js';
import { BIN, REPO, cleanEnv, ensureBuilt } from '../helpers/run-cli.js';
import { tmuxAvailable } from '../helpers/tmux.js';
import { killTop, topOn } from '../helpers/top-screen.js';

const tmp = makeTempDir('smq-export-ndjson-');
beforeAll(ensureBuilt, 120_000);
afterAll(() => tmp.cleanup());

/** What no file a person may `cat` should hold raw: C1 controls, DEL, bidi and zero-width characters. */
const RAW_UNSAFE = /[\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/u;

/** U+202E, U+200B, a C1 CSI (U+009B) and ESC in one body. */
const ALL_FOUR = 'all four: rtl \u202e zw \u200b c1 \u009b2J esc \u001b[2J';
const HOSTILE = [
  ALL_FOUR,
  'rtl \u202e evil',
  'zero\u200bwidth',
  'c1 \u009b2J csi',
  'esc \u001b]0;title\u0007',
  'del \u007f',
  'ls \u2028 ps \u2029',
  'bom \ufeff',
];

describe.each(BACKEND_KINDS)('export on %s', (kind) => {
  let fx: BackendFixture;
  let b: Backend;
  const q = uniqueQueue('exp');

  beforeAll(async () => {
    fx = fixtures[kind]();
    b = await fx.open();
    await b.createQueue(q);
    for (const text of HOSTILE) {
      const body = kind === 'pgmq' ? JSON.stringify({ text, quote: 'a "b" \\ c' }) : text;
      await b.send(q, { body, ...(b.capabilities.headers ? { headers: { [`k${text}`]: text } } : {}) });
    }
  });
  afterAll(async () => {
    await b?.dropQueue(q);
    await b?.close();
    fx?.cleanup();
  });

  const peek = (...format: string[]): string => {
    const conn = kind === 'pgmq' ? ['--url', fx.location] : ['--sqlite', fx.location];
    const r = spawnSync(process.execPath, [BIN, 'peek', q, ...format, '--limit', '100', ...conn], {
      cwd: REPO,
      env: cleanEnv(),
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout;
  };
  const peekNdjson = () => peek('--output', 'ndjson');

  test('the file is what smq peek --output ndjson prints, byte for byte, with no raw bidi, zero-width or C1 character', async () => {
    const path = join(tmp.dir, `${kind}-all.ndjson`);
    expect(await exportMessages(b, q, { kind: 'filter', state: 'all' }, 'queue', path, false)).toBe(HOSTILE.length);
    const file = readFileSync(path, 'utf8');
    expect(file).toBe(peekNdjson());
    expect(file).not.toMatch(RAW_UNSAFE);
    for (const escaped of ['\\u202e', '\\u200b', '\\u009b', '\\u001b']) expect(file).toContain(escaped);
    // `smq peek --json` (one pretty document): the same records, the same characters escaped.
    const json = peek('--json');
    expect(json).not.toMatch(RAW_UNSAFE);
    expect(
      file
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(JSON.parse(json));
  });

  test('marked ids are written the same way', async () => {
    const ids = (await b.peek(q, { limit: 100, state: 'all' })).map((m) => m.id);
    const path = join(tmp.dir, `${kind}-ids.ndjson`);
    expect(await exportMessages(b, q, { kind: 'ids', ids }, 'queue', path, false)).toBe(HOSTILE.length);
    expect(readFileSync(path, 'utf8')).toBe(peekNdjson());
  });

  test('thousands of marked ids are read a page at a time, not one query each, and only they are written', async () => {
    // Before, 100,000 marks took one query per id (35 s); the notice was gone long before.
    const big = uniqueQueue('expbig');
    await b.createQueue(big);
    try {
      const all = await b.sendBatch(
        big,
        Array.from({ length: 5000 }, (_, i) => ({ body: JSON.stringify({ i }) })),
      );
      const marked = all.filter((_, i) => i % 2 === 1);
      let peeks = 0;
      const counting = Object.create(b) as Backend;
      counting.peek = (queue, options) => {
        peeks += 1;
        return b.peek(queue, options);
      };
      const path = join(tmp.dir, `${kind}-big.ndjson`);
      expect(await exportMessages(counting, big, { kind: 'ids', ids: marked }, 'queue', path, false)).toBe(2500);
      const written = readFileSync(path, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id);
      expect(written).toEqual(marked.map(String));
      expect(peeks).toBeLessThan(20);
    } finally {
      await b.dropQueue(big);
    }
  });

  test.runIf(kind === 'pgmq')("the archive's records (state archived, archivedAt) go through the same serializer", async () => {
    const [first] = await b.peek(q, { limit: 1, state: 'all' });
    await b.archive(q, [first!.id]);
    const path = join(tmp.dir, `${kind}-archive.ndjson`);
    expect(await exportMessages(b, q, { kind: 'filter', state: 'all' }, 'archive', path, false)).toBe(1);
    const file = readFileSync(path, 'utf8');
    expect(file).not.toMatch(RAW_UNSAFE);
    expect(file).toBe(toJsonLine(JSON.parse(file)));
    expect(JSON.parse(file)).toMatchObject({ id: first!.id.toString(), state: 'archived', body: first!.body });
  });
});

// The same through the built `smq top` in a terminal: `e` on the highlighted message.
describe.skipIf(!tmuxAvailable())('export from smq top (real terminal, real Postgres)', () => {
  let fx: BackendFixture;
  let b: Backend;
  const prefix = uniqueQueue('expe2e');
  afterEach(killTop);
  afterAll(async () => {
    await b?.dropQueue(prefix);
    await b?.close();
    fx?.cleanup();
  });

  test('e writes the line smq peek --output ndjson prints for the message', async () => {
    fx = fixtures.pgmq();
    b = await fx.open();
    await b.createQueue(prefix);
    const [id] = await b.sendBatch(prefix, [{ body: JSON.stringify({ text: ALL_FOUR }), headers: { k: ALL_FOUR } }]);
    const path = join(tmp.dir, 'from-top.ndjson');
    const t = await topOn(fx.location, prefix, { width: 160, height: 24, cwd: tmp.dir });
    t.keys('Enter');
    await t.waitFor(`${prefix} · oldest first`);
    t.keys('e');
    await t.waitFor(`Export message ${id} to file:`);
    t.keys('C-u');
    t.type(path);
    t.keys('Enter');
    await t.waitFor('exported 1 message to');
    const r = spawnSync(process.execPath, [BIN, 'peek', prefix, '--output', 'ndjson', '--url', fx.location], {
      cwd: REPO,
      env: cleanEnv(),
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const file = readFileSync(path, 'utf8');
    expect(file).toBe(r.stdout);
    expect(file).not.toMatch(RAW_UNSAFE);
  });
});
