// --read poll waits up to --poll inside one statement. The call's deadline (--timeout) and the
// server's statement_timeout inside it must leave room for that wait: a poll longer than
// --timeout is not a hung call.
import { expect, inject, test } from 'vitest';
import { ensureBuilt } from '../helpers/run-cli.js';
import { baseConfig, loadTester } from '../helpers/tester-dist.js';

test('--read poll --poll 3 with --timeout 2s: the empty polls wait their 3 s, none is cut', async () => {
  ensureBuilt();
  const { TesterRun } = await loadTester();
  const url = inject('pgUrl');
  // Two receivers for one sender's 20 messages: one of them waits on an empty queue at times.
  const report = await new TesterRun(
    baseConfig(
      { kind: 'pgmq', url },
      { senders: 1, receivers: 2, messagesPerSender: 20, batch: 1, read: 'poll', pollSec: 3, callTimeoutMs: 2000 },
    ),
  ).run();
  expect(report.verdict, JSON.stringify({ calls: report.calls, failure: report.failure })).toBe('clean');
  expect(report.calls.receiveFailed).toBe(0);
}, 120_000);
