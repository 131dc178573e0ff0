// Passwords with every character a URL reserves (@ / # ? : % & = and spaces), written raw
// and percent-encoded, in the user part and in ?password=: smq connects where the URL can
// be read one way only, refuses (exit 2, one line) where it cannot, and never shows the
// password, its encoded form or any 4-character piece of it, on any output path: tables,
// JSON, error lines, SMQ_DEBUG=1 stacks, the tester's report and top's header.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { ensureBuilt, runCli, BIN, type CliResult } from '../helpers/run-cli.js';
import { TmuxSession, tmuxAvailable } from '../helpers/tmux.js';

const hex = () => randomBytes(3).toString('hex');
// The random part of a password: capitals that are not hex digits, so that no 4-character
// piece of it can turn up by chance in the hex of another test's queue or role name.
const word = () => Array.from(randomBytes(6), (b) => 'GHJKLMNPQRSTVWXYZ'[b % 17]).join('');
const enc = encodeURIComponent;

/** One role per reserved character, and one with all of them (the issue's example too). */
const CHARS = ['@', '/', '#', '?', ':', '%', '&', '=', ' '] as const;
type Case = { readonly name: string; readonly role: string; readonly password: string };
const CASES: Case[] = [
  ...CHARS.map((c, i) => ({ name: `char ${JSON.stringify(c)}`, role: `smq_c${i}_${hex()}`, password: `K${word()}${c}_${word()}x` })),
  { name: 'all of them', role: `smq_all_${hex()}`, password: `Q${word()}@/#?:%&= ${word()}z` },
  { name: 'the issue example p@ss:w/rd%41#?x&y', role: `smq_ex_${hex()}`, password: `p@ss:w/rd%41#?x&y${word()}` },
  { name: 'top@secret99', role: `smq_top_${hex()}`, password: `top@secret${word()}` },
];

let host: string;
let port: string;
let admin: pg.Client;
const DB = 'smq_test';

/** Every string that must never be shown for this password. */
function forbidden(password: string): string[] {
  const out = new Set([password, enc(password), encodeURI(password)]);
  for (let i = 0; i + 4 <= password.length; i++) out.add(password.slice(i, i + 4));
  return [...out];
}

function expectNoSecret(text: string, c: Case, what: string): void {
  for (const s of forbidden(c.password)) {
    expect(text.includes(s), `${what}: shows ${JSON.stringify(s)} of ${JSON.stringify(c.password)}:\n${text.slice(0, 600)}`).toBe(false);
  }
}

const out = (r: CliResult) => r.stdout + r.stderr;

type Form = 'raw user part' | 'encoded user part' | 'raw ?password=' | 'encoded ?password=';
const FORMS: Form[] = ['raw user part', 'encoded user part', 'raw ?password=', 'encoded ?password='];

function urlOf(c: Case, form: Form, db = DB): string {
  switch (form) {
    case 'raw user part':
      return `postgres://${c.role}:${c.password}@${host}:${port}/${db}`;
    case 'encoded user part':
      return `postgres://${c.role}:${enc(c.password)}@${host}:${port}/${db}`;
    case 'raw ?password=':
      return `postgres://${c.role}@${host}:${port}/${db}?password=${c.password}`;
    case 'encoded ?password=':
      return `postgres://${c.role}@${host}:${port}/${db}?password=${enc(c.password)}`;
  }
}

/**
 * Forms that can be read only one way must connect. A raw / ? # ends the user part (so the
 * URL is malformed or ambiguous), a raw & or # ends ?password=: those are refused.
 */
function mustConnect(c: Case, form: Form): boolean {
  if (form.startsWith('encoded')) return true;
  if (c.password.includes('%41')) return false; // %41 is "A" in a URL: a different password
  if (form === 'raw user part') return !/[/?#]/.test(c.password);
  return !/[&#]/.test(c.password);
}

async function inParallel<T>(n: number, items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

beforeAll(async () => {
  ensureBuilt();
  const base = new URL(inject('pgUrl'));
  host = base.hostname;
  port = base.port;
  admin = new pg.Client({ connectionString: inject('pgUrl') });
  await admin.connect();
  for (const c of CASES) await admin.query(`CREATE ROLE ${c.role} LOGIN SUPERUSER PASSWORD ${admin.escapeLiteral(c.password)}`);
}, 60_000);

afterAll(async () => {
  for (const c of CASES) await admin.query(`DROP ROLE IF EXISTS ${c.role}`).catch(() => undefined);
  await admin.end();
});

test('the server asks for a password and none is given: one line that says where to put it', async () => {
  const url = new URL(inject('pgUrl'));
  const r = await runCli(['queues', '--url', `postgres://${url.username}@${url.hostname}:${url.port}/${DB}`], {
    env: { PGPASSFILE: '/nonexistent/pgpass' },
  });
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(/asks for a password and none was given/);
  expect(r.stderr).toMatch(/PGPASSWORD/);
  expect(r.stderr).not.toMatch(/SASL|must be a string/);
});

describe('passwords with reserved characters', () => {
  test('every form connects when it can be read one way, is refused in one line otherwise, and never shows the password', async () => {
    const runs = CASES.flatMap((c) => FORMS.map((form) => ({ c, form })));
    const seen: string[] = [];
    await inParallel(4, runs, async ({ c, form }) => {
      const what = `${c.name}, ${form}`;
      const r = await runCli(['queues', '--json', '--url', urlOf(c, form)]);
      expectNoSecret(out(r), c, what);
      if (mustConnect(c, form)) {
        expect(r.code, `${what}: ${r.stderr}`).toBe(0);
      } else {
        expect(r.code, `${what}: ${r.stdout}${r.stderr}`).not.toBe(0);
        expect(r.stderr.trimEnd().split('\n'), what).toHaveLength(1);
        expect(r.stdout).toBe('');
      }
      seen.push(what);
    });
    expect(seen).toHaveLength(CASES.length * FORMS.length);
  }, 120_000);

  test('postgres://app3:top@secret99@host/db: the last @ before the host ends the user part', async () => {
    const c = CASES.find((x) => x.name === 'top@secret99')!;
    const r = await runCli(['init', '--json', '--url', urlOf(c, 'raw user part')]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).location).toBe(`postgres://${c.role}:***@${host}:${port}/${DB}`);
    expectNoSecret(out(r), c, 'init');
  });

  const PATHS = (q: string): { what: string; args: string[]; code: number; debug?: boolean }[] => [
    { what: 'queues table', args: ['queues', '--output=table'], code: 0 },
    { what: 'queues ndjson', args: ['queues', '--output=ndjson'], code: 0 },
    { what: 'init --json', args: ['init', '--json'], code: 0 },
    { what: 'peek --json', args: ['peek', q, '--json'], code: 0 },
    { what: 'peek table', args: ['peek', q, '--output=table'], code: 0 },
    { what: 'error: no such queue', args: ['peek', `${q}_nope`], code: 3 },
    { what: 'error: read-only write', args: ['purge', q, '--yes', '--read-only'], code: 2 },
    { what: 'SMQ_DEBUG=1 error', args: ['peek', `${q}_nope`], code: 3, debug: true },
  ];

  test.each(CASES.filter((c) => c.name === 'all of them' || c.name === 'top@secret99'))(
    'every output path, $name',
    async (c) => {
      const q = `conn_${hex()}`;
      await admin.query('SELECT pgmq.create($1)', [q]);
      await admin.query(`SELECT pgmq.send($1, '{"a":1}')`, [q]);
      // Raw forms where they connect, else the encoded ones (every form is covered above).
      const forms = FORMS.filter((f) => mustConnect(c, f) && f.startsWith('raw')).slice(0, 2);
      if (forms.length === 0) forms.push('encoded user part', 'encoded ?password=');
      const runs = forms.flatMap((form) => PATHS(q).map((p) => ({ form, p })));
      await inParallel(4, runs, async ({ form, p }) => {
        const r = await runCli([...p.args, '--url', urlOf(c, form)], { env: p.debug ? { SMQ_DEBUG: '1' } : {} });
        expect(r.code, `${p.what} ${form}: ${r.stderr}`).toBe(p.code);
        expectNoSecret(out(r), c, `${p.what} (${form})`);
      });
      // Failures while connecting: a database that does not exist, a wrong port; with and without SMQ_DEBUG.
      const failing = forms.flatMap((form) => [
        { form, url: urlOf(c, form, 'no_such_db'), debug: false },
        { form, url: urlOf(c, form, 'no_such_db'), debug: true },
        { form, url: urlOf(c, form).replace(`:${port}/`, ':1/'), debug: false },
      ]);
      await inParallel(4, failing, async ({ form, url, debug }) => {
        const r = await runCli(['queues', '--json', '--url', url], { env: debug ? { SMQ_DEBUG: '1' } : {} });
        expect(r.code, `${form}: ${r.stderr}`).toBe(1);
        if (!debug) expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
        expect(r.stderr).toContain(':***@');
        expectNoSecret(out(r), c, `connect failure (${form}${debug ? ', SMQ_DEBUG=1' : ''})`);
      });
      await admin.query('SELECT pgmq.drop_queue($1)', [q]);
    },
    120_000,
  );

  test('multi-host URLs: past a host that is down, and failing in one line that names each host', async () => {
    for (const c of CASES.filter((x) => x.name === 'all of them' || x.name === 'top@secret99')) {
      const url = urlOf(c, c.name === 'top@secret99' ? 'raw user part' : 'encoded user part');
      const hosts = (...ports: (string | number)[]) => url.replace(`@${host}:${port}/`, `@${ports.map((p) => `${host}:${p}`).join(',')}/`);
      const ok = await runCli(['queues', '--json', '--url', hosts(1, port)]);
      expect(ok.code, ok.stderr).toBe(0);
      expectNoSecret(out(ok), c, 'multi-host');
      const failing = [hosts(1, 2), `${hosts(1, port)}?target_session_attrs=standby`];
      for (const bad of failing) {
        for (const debug of [false, true]) {
          const r = await runCli(['queues', '--json', '--url', bad], { env: debug ? { SMQ_DEBUG: '1' } : {} });
          expect(r.code, r.stderr).toBe(1);
          if (!debug) expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
          expect(r.stderr).toContain(`${c.role}:***@${host}:1,`);
          expectNoSecret(out(r), c, `multi-host failure${debug ? ', SMQ_DEBUG=1' : ''}`);
        }
      }
    }
  }, 60_000);

  test('the tester report (text and JSON)', async () => {
    const c = CASES.find((x) => x.name === 'all of them')!;
    for (const format of [[], ['--json']]) {
      const r = await runCli(
        ['tester', '--url', urlOf(c, 'encoded user part'), '--senders', '1', '--receivers', '1', '--messages', '20', ...format],
        {
          timeoutMs: 60_000,
        },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(out(r)).toContain(':***@');
      expectNoSecret(out(r), c, `tester ${format.join(' ')}`);
    }
  }, 120_000);

  test.skipIf(!tmuxAvailable())(
    "top's header",
    async () => {
      for (const c of CASES.filter((x) => x.name === 'all of them' || x.name === 'top@secret99')) {
        const form: Form = c.name === 'top@secret99' ? 'raw user part' : 'encoded user part';
        const t = TmuxSession.start({ command: [process.execPath, BIN, 'top', '--url', urlOf(c, form)], width: 160 });
        try {
          const screen = await t.waitFor(`${c.role}:***@${host}:${port}/${DB}`, 20_000);
          expectNoSecret(screen, c, 'top header');
          t.keys('q');
        } finally {
          t.kill();
        }
      }
    },
    60_000,
  );
});
