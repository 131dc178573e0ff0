import { describe, expect, test } from 'vitest';
import type { CheckerCounts } from '../../src/tester/checker.js';
import { decideVerdict } from '../../src/tester/verdict.js';
import { exitCodeOf } from '../../src/commands/tester.js';
import { ExitCode } from '../../src/errors.js';

const counts = (patch: Partial<CheckerCounts> = {}): CheckerCounts => ({
  sent: 10,
  sendFailed: 0,
  received: 10,
  receivedUnique: 10,
  acknowledged: 10,
  ackFailed: 0,
  ackNotFound: 0,
  ok: 10,
  lost: 0,
  doubleDequeued: 0,
  duplicated: 0,
  redelivered: 0,
  resurrected: 0,
  unexpected: 0,
  uncertain: 0,
  notDrained: 0,
  notDeleted: 0,
  notDeletedAckFailed: 0,
  notDeletedNotFound: 0,
  groupOverlap: 0,
  reordered: 0,
  ...patch,
});
const calls = { send: 10, sendFailed: 0, receive: 12, receiveFailed: 0, ack: 10, ackFailed: 0 };
const base = { stoppedBecause: undefined, interrupted: false, senders: 2, receivers: 2, counts: counts(), calls, lastError: null };

describe('decideVerdict (issue 13 item 19)', () => {
  test('clean, violations', () => {
    expect(decideVerdict(base)).toEqual({ verdict: 'clean', failure: null, partial: false });
    // Delivered and not deleted by the tester: not the queue's violation (the report warns).
    const undeleted = counts({ ok: 7, notDeleted: 3, notDeletedAckFailed: 3, acknowledged: 7, ackFailed: 3 });
    expect(decideVerdict({ ...base, counts: undeleted, calls: { ...calls, ackFailed: 1 } }).verdict).toBe('clean');
    expect(decideVerdict({ ...base, counts: counts({ duplicated: 1 }) }).verdict).toBe('violations');
  });
  test('nothing worked: no send acknowledged, every call of a kind failed, nothing of the run received', () => {
    const noSend = decideVerdict({
      ...base,
      counts: counts({ sent: 0, received: 0, receivedUnique: 0 }),
      calls: { ...calls, sendFailed: 10 },
      lastError: 'permission denied for table q_x',
    });
    expect(noSend).toEqual({
      verdict: 'failed',
      failure: 'no send was acknowledged (10 of 10 send calls failed); last error: permission denied for table q_x',
      partial: false,
    });
    expect(decideVerdict({ ...base, calls: { ...calls, receiveFailed: 12 } }).failure).toMatch(/^every receive call failed \(12\)/);
    expect(decideVerdict({ ...base, calls: { ...calls, ackFailed: 10 } }).failure).toMatch(/^every acknowledgement failed \(10 calls\)/);
    expect(decideVerdict({ ...base, counts: counts({ received: 0, receivedUnique: 0, ok: 0, notDrained: 10 }) }).failure).toBe(
      'none of the 10 acknowledged messages was received',
    );
    // Send-only (--receivers 0) and drain-only (--senders 0) runs are not failed for that.
    expect(
      decideVerdict({ ...base, receivers: 0, counts: counts({ received: 0, receivedUnique: 0, ok: 0, notDrained: 10 }) }).verdict,
    ).toBe('clean');
    expect(decideVerdict({ ...base, senders: 0, counts: counts({ sent: 0 }), calls: { ...calls, send: 0 } }).verdict).toBe('clean');
  });
  test('a drain (--senders 0) that finds no message of its run id at all is failed, not clean', () => {
    const none = counts({ sent: 0, received: 0, receivedUnique: 0, acknowledged: 0, ok: 0 });
    const drain = { ...base, senders: 0, counts: none, calls: { ...calls, send: 0, ack: 0 }, drain: { runId: 'wrongid', queue: 'q1' } };
    expect(decideVerdict(drain)).toEqual({ verdict: 'failed', failure: 'no message of run wrongid found in q1', partial: false });
    // Found in the queue but not received (still leased): not "none found".
    expect(decideVerdict({ ...drain, counts: { ...none, notDrained: 3 } }).verdict).toBe('clean');
    expect(decideVerdict({ ...drain, interrupted: true }).verdict).toBe('interrupted');
  });
  test('stopped early: failed and partial; interrupted: never clean', () => {
    expect(decideVerdict({ ...base, stoppedBecause: 'receiver 0 crashed' })).toEqual({
      verdict: 'failed',
      failure: 'receiver 0 crashed',
      partial: true,
    });
    expect(decideVerdict({ ...base, interrupted: true })).toEqual({ verdict: 'interrupted', failure: null, partial: true });
    expect(decideVerdict({ ...base, interrupted: true, counts: counts({ sent: 0 }) }).verdict).toBe('interrupted');
  });
  test('interrupted and stopped early (SIGTERM while the server hangs): "interrupted", the failure still given', () => {
    const why = 'the queue cannot be read after the run: no answer within 1 s';
    expect(decideVerdict({ ...base, interrupted: true, stoppedBecause: why })).toEqual({
      verdict: 'interrupted',
      failure: why,
      partial: true,
    });
  });
});

describe('exit codes of a finished run (issue 14): CI can tell them apart', () => {
  type Finished = Parameters<typeof exitCodeOf>[0];
  const run: Finished = { interrupted: false, interruptedBy: null, verdict: 'clean', maxP99: null };
  const missed = { limitMs: 1, valueMs: 2, samples: 10, exceeded: true, missed: true, notMeasured: null };
  const notMeasured = { limitMs: 1, valueMs: null, samples: 0, exceeded: false, missed: true, notMeasured: 'no send was acknowledged' };
  test('0 clean, 4 violations found, 5 --max-p99 missed; violations come first', () => {
    expect(exitCodeOf(run)).toBe(0);
    expect(exitCodeOf({ ...run, maxP99: { ...missed, exceeded: false, missed: false } })).toBe(0);
    // No sample to judge (a warm-up as long as the run): never passed.
    expect(exitCodeOf({ ...run, maxP99: notMeasured })).toBe(5);
    expect(exitCodeOf({ ...run, verdict: 'violations' })).toBe(4);
    expect(exitCodeOf({ ...run, maxP99: missed })).toBe(5);
    expect(exitCodeOf({ ...run, verdict: 'violations', maxP99: missed })).toBe(4);
  });
  test("a run that could not be carried out is 1; an interrupted one the signal's code", () => {
    expect(exitCodeOf({ ...run, verdict: 'failed', maxP99: missed })).toBe(1);
    expect(exitCodeOf({ ...run, verdict: 'interrupted', interrupted: true })).toBe(130);
    expect(exitCodeOf({ ...run, verdict: 'interrupted', interrupted: true, interruptedBy: 'SIGTERM' })).toBe(143);
    expect(exitCodeOf({ ...run, verdict: 'interrupted', interrupted: true, interruptedBy: 'SIGHUP' })).toBe(129);
  });
  test('the codes are distinct from one another and from usage (2) and not found (3)', () => {
    const codes = [ExitCode.ok, ExitCode.failure, ExitCode.usage, ExitCode.notFound, ExitCode.violations, ExitCode.thresholdMissed];
    expect(new Set(codes).size).toBe(codes.length);
  });
});
