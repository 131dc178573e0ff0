// A short safe tester run on every real pgmq install of the release matrix (1.4.4 as the
// extension, 1.5.1 and 1.13.0 as plain SQL and as the extension): real worker threads (from
// dist/), each install on a clone of its template. Clean, nothing lost, and the queue is
// empty afterwards by the database's own count. Skipped, saying why, without SMQ_TEST_PGMQ_DIR.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { clonePgmq, NO_RELEASES } from '../helpers/real-pgmq.js';
import { ensureBuilt } from '../helpers/run-cli.js';
import { baseConfig, loadTester } from '../helpers/tester-dist.js';

const installs = inject('pgmqInstalls');

describe.skipIf(installs.length === 0)(`tester, safe dequeue, on real pgmq releases${installs.length ? '' : ` (${NO_RELEASES})`}`, () => {
  beforeAll(() => ensureBuilt(), 300_000);

  test.each(installs.map((i) => [i.label, i] as const))(
    '%s: clean, nothing lost, queue empty afterwards',
    async (_label, install) => {
      const url = await clonePgmq(
        install.template,
        `tester_${install.release.replaceAll('.', '_')}_${install.form}_${randomBytes(3).toString('hex')}`,
      );
      const { TesterRun } = await loadTester();
      const queue = 'tr_safe';
      const report = await new TesterRun(
        baseConfig({ kind: 'pgmq', url }, { queue, keep: true, senders: 2, receivers: 2, messagesPerSender: 150 }),
      ).run();
      expect(report.verdict).toBe('clean');
      expect(report.counts).toMatchObject({ sent: 300, ok: 300, lost: 0, doubleDequeued: 0, unexpected: 0, uncertain: 0 });
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        expect((await c.query(`SELECT count(*)::int AS n FROM pgmq.q_${queue}`)).rows).toEqual([{ n: 0 }]);
      } finally {
        await c.end();
      }
    },
    120_000,
  );
});
