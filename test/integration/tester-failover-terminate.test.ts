// --fault on one server: terminate ends the run's own connections on PostgreSQL at the time
// given (the run rides it out: clean, the failures counted as connection errors, the time
// writes were impossible reported); a role that may not end them is refused before the run;
// exec runs the user's command and keeps its output; bad specs are one usage line.
import pg from 'pg';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import type { TesterReport } from '../../src/tester/index.js';
import { TEST_PG_PASSWORD } from '../helpers/pg-server.js';
import { ensureBuilt, runCli } from '../helpers/run-cli.js';
import { loadTester } from '../helpers/tester-dist.js';

const url = () => inject('pgUrl');

async function sql<R extends pg.QueryResultRow>(text: string): Promise<R[]> {
  const c = new pg.Client({ connectionString: url() });
  await c.connect();
  try {
    return (await c.query<R>(text)).rows;
  } finally {
    await c.end();
  }
}

beforeAll(() => ensureBuilt());

describe('--fault terminate', () => {
  test("ends the run's connections at the time given: clean, connection errors, writes impossible for a moment", async () => {
    const r = await runCli(
      [
        ...['tester', '--url', url(), '--senders', '2', '--receivers', '2', '--duration', '4s', '--rate', '400', '--vt', '2', '--json'],
        ...['--fault', 'terminate@1.5s', '--fault', `exec:echo ${TEST_PG_PASSWORD}@0.5s`],
      ],
      { timeoutMs: 40_000 },
    );
    expect(r.stderr).not.toMatch(/^smq: /m);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as TesterReport;
    expect(report.verdict).toBe('clean');
    expect(report.counts.lost).toBe(0);
    // In the order they fired; the command and its output never show the connection's password.
    expect(report.faults.map((f) => f.kind)).toEqual(['exec', 'terminate']);
    expect(report.faults[0]).toMatchObject({ fault: 'exec:echo ***@0.5s', command: 'echo ***', output: '***\n', exitCode: 0 });
    expect(r.stdout).not.toContain(TEST_PG_PASSWORD);
    // Every sender and receiver had a connection of its own: all of them were ended.
    const fault = report.faults[1];
    expect(fault).toMatchObject({ fault: 'terminate@1.5s', kind: 'terminate', outcome: 'ok', second: 1 });
    expect(fault!.atMs).toBeGreaterThanOrEqual(1500);
    expect(fault!.atMs).toBeLessThan(2500);
    expect(fault!.connectionsEnded).toBeGreaterThanOrEqual(4);
    // The failures are lost connections, not database errors.
    expect(report.errors.connection).toBeGreaterThan(0);
    expect(report.errors.other).toBe(0);
    // A send failed, and a later one succeeded: writes were impossible for a while, not for ever.
    expect(report.writeUnavailable.windows.length).toBeGreaterThan(0);
    expect(report.writeUnavailable.windows.every((w) => w.toMs !== null)).toBe(true);
    expect(fault!.writesImpossibleMs).toBeGreaterThan(0);
    expect(fault!.writesImpossibleMs).toBeLessThan(2500);
    // Marked on the series, in the second it fired.
    expect(report.series.find((p) => p.second === 1)?.faults).toEqual(['terminate@1.5s']);
    expect(report.series.find((p) => p.second === 0)?.faults).toEqual(['exec:echo ***@0.5s']);
    // One server served the whole run, and it says which.
    expect(report.servers.failover).toBe(false);
    expect(report.servers.splitBrain).toEqual([]);
    expect(report.servers.phases).toHaveLength(1);
    expect(report.servers.phases[0]).toMatchObject({ timeline: 1, inRecovery: false });
    expect(report.servers.phases[0]!.server).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(report.servers.phases[0]!.systemIdentifier).toMatch(/^\d+$/);
    expect(report.servers.applicationName).toMatch(new RegExp(`^smq-tester-${report.runId}-[0-9a-f]{6}$`));
    // The text report says the same in a few lines.
    const { formatReport } = await loadTester();
    const text = formatReport(report);
    expect(text).toMatch(/^fault {7}terminate@1\.5s at 1\.\d\d s: ended \d+ connection\(s\); writes impossible for \d\.\d\d s$/m);
    expect(text).toMatch(/^writes {6}impossible for \d\.\d\d s in all/m);
    expect(text).toMatch(/^served by {3}127\.0\.0\.1:\d+ \(system \d+, timeline 1\)$/m);
  }, 50_000);

  test('a role that may not end the connections is refused before the run, in one line (exit 2), nothing created', async () => {
    await sql(`DO $$ BEGIN CREATE ROLE smq_ff_low NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
    await sql(`GRANT USAGE ON SCHEMA pgmq TO smq_ff_low`);
    await sql(`GRANT SELECT ON ALL TABLES IN SCHEMA pgmq TO smq_ff_low`);
    const before = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM pgmq.meta`);
    // The connections log in as the superuser; the role in effect is not one.
    const lowUrl = `${url()}?options=${encodeURIComponent('-c role=smq_ff_low')}`;
    const r = await runCli(['tester', '--url', lowUrl, '--messages', '10', '--fault', 'terminate@1s'], { timeoutMs: 20_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--fault terminate cannot end the run's connections: role smq_ff_low is not a superuser/);
    expect(r.stdout).toBe('');
    expect(await sql<{ n: number }>(`SELECT count(*)::int AS n FROM pgmq.meta`)).toEqual(before);
  });
});

describe('--fault exec and bad specs', () => {
  test("runs the command through the shell at its time and keeps its output and exit code; the run's verdict stands", async () => {
    {
      // The embedded SQLite file: exec needs no server.
      const r = await runCli(
        [
          'tester',
          '--senders',
          '1',
          '--receivers',
          '1',
          '--duration',
          '2s',
          '--rate',
          '100',
          '--json',
          '--fault',
          'exec:echo "at@work, $((40+2))"; exit 3@0.5s',
        ],
        { timeoutMs: 30_000 },
      );
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout) as TesterReport;
      expect(report.verdict).toBe('clean');
      expect(report.faults).toHaveLength(1);
      expect(report.faults[0]).toMatchObject({
        kind: 'exec',
        command: 'echo "at@work, $((40+2))"; exit 3',
        outcome: 'failed',
        exitCode: 3,
        output: 'at@work, 42\n',
      });
      expect(report.faults[0]!.detail).toMatch(/^exit code 3 after \d\.\d s$/);
    }
  });

  test('a bad spec, or terminate on SQLite, is one usage line (exit 2)', async () => {
    {
      for (const [args, message] of [
        [['--fault', 'kill@1s'], /^smq: invalid --fault "kill@1s": the kind is terminate or exec:COMMAND/],
        [['--fault', 'terminate'], /^smq: invalid --fault "terminate": give KIND@TIME/],
        [['--fault', 'terminate@1s'], /^smq: --fault terminate needs PostgreSQL/],
      ] as const) {
        const r = await runCli(['tester', ...args], { timeoutMs: 10_000 });
        expect(r.code).toBe(2);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).toMatch(message);
      }
    }
  });
});
