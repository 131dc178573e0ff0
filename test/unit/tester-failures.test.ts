// A worker loop's failure policy (failures.ts): a call that never answered counts toward the
// outage timeout from when it started, whether the tester gave up on it (NoAnswer) or the
// backend's own deadline did (kind 'timeout').
import { describe, expect, test } from 'vitest';
import { SmqError } from '../../src/errors.js';
import { NoAnswer } from '../../src/tester/calls.js';
import { errorKind, recordFailure, succeeded, type FailureRun } from '../../src/tester/failures.js';

const fresh = (): FailureRun => ({ consecutiveErrors: 0, failingSinceUs: undefined });
const at = (nowUs: number, extra: { callStartUs?: number; stopping?: boolean } = {}) => ({
  nowUs,
  outageTimeoutMs: 3000,
  stopping: false,
  lastError: 'x',
  ...extra,
});

describe('recordFailure', () => {
  test('a call given up on after 3 s with no answer ends the loop at once, named as such', () => {
    const run = fresh();
    const e = new NoAnswer('no answer from the database for 3.0 s', 1000);
    expect(recordFailure(run, e, 'connection', at(4_000_000))).toBe('no answer from the database for 3.0 s, giving up');
  });

  test("a backend deadline (kind 'timeout') counts from the call's start", () => {
    const run = fresh();
    const e = new SmqError('timeout', 'no answer from the server within 3 s');
    expect(recordFailure(run, e, 'connection', at(3_100_000, { callStartUs: 0 }))).toMatch(
      /^no answer from the database for 3\.1 s, giving up$/,
    );
  });

  test('a lost connection counts from the failure; the loop goes on until the outage timeout', () => {
    const run = fresh();
    const e = new SmqError('connection', 'ECONNREFUSED');
    expect(recordFailure(run, e, 'connection', at(1_000_000, { callStartUs: 0 }))).toBeUndefined();
    expect(recordFailure(run, e, 'connection', at(3_500_000))).toBeUndefined();
    expect(recordFailure(run, e, 'connection', at(4_000_000))).toMatch(/^the database has been unreachable for 3\.0 s, giving up/);
  });

  test('a success starts over; 40 refusals in a row end the loop', () => {
    const run = fresh();
    const e = new SmqError('database', 'permission denied');
    for (let i = 1; i < 40; i++) expect(recordFailure(run, e, 'other', at(i))).toBeUndefined();
    succeeded(run);
    expect(run.failingSinceUs).toBeUndefined();
    for (let i = 1; i < 40; i++) recordFailure(run, e, 'other', at(i));
    expect(recordFailure(run, e, 'other', at(41))).toMatch(/^40 calls failed in a row/);
  });
});

describe('errorKind', () => {
  test('a write refused as read-only (the server is, or became, a standby) is counted with lost connections', () => {
    // The connection is dropped and the next one chosen again (multi-host targets): as for a
    // server that went away, the loop rides it out for --outage-timeout and asks again which
    // server it is on, instead of giving up after 40 "other" failures.
    expect(errorKind(new SmqError('read-only', 'cannot execute INSERT in a read-only transaction'))).toBe('connection');
    expect(errorKind(new SmqError('connection', 'lost the connection'))).toBe('connection');
    expect(errorKind(new SmqError('timeout', 'no answer'))).toBe('connection');
    expect(errorKind(new SmqError('database', 'permission denied for table q_x'))).toBe('other');
  });
});
