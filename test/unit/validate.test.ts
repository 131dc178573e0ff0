// The Backend's argument checks (src/backends/validate.ts), shared by both stores: pure, no
// database. The contract suite checks that both backends really apply them.
import { describe, expect, test } from 'vitest';
import { messageIds, peekOptions, positiveWhole, receiveOptions, sendInputs, wholeSeconds } from '../../src/backends/validate.js';
import { SmqError } from '../../src/errors.js';

function refusal(fn: () => unknown): SmqError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SmqError);
    expect((e as SmqError).kind).toBe('invalid-input');
    return e as SmqError;
  }
  throw new Error('expected a refusal');
}

describe('wholeSeconds', () => {
  test('takes whole seconds from 0, refuses fractions, negatives and non-numbers in one line', () => {
    expect(wholeSeconds(0, 'delay')).toBe(0);
    expect(wholeSeconds(3600, 'visibility timeout')).toBe(3600);
    for (const v of [1.5, 0.001, -1, Number.NaN, Number.POSITIVE_INFINITY, '5' as unknown as number]) {
      const e = refusal(() => wholeSeconds(v, 'visibility timeout'));
      expect(e.line()).toBe(`invalid visibility timeout ${String(v)}: give a whole number of seconds, 0 or more`);
    }
  });
});

test('positiveWhole refuses 0, fractions and negatives', () => {
  expect(positiveWhole(1, 'quantity')).toBe(1);
  for (const v of [0, 1.5, -2, Number.NaN])
    expect(refusal(() => positiveWhole(v, 'quantity')).line()).toMatch(/^invalid quantity .*: give a whole number of 1 or more$/);
});

test('messageIds takes signed 64-bit ids from 0 and nothing else', () => {
  expect(messageIds([0n, (1n << 63n) - 1n])).toEqual([0n, (1n << 63n) - 1n]);
  refusal(() => messageIds([-1n]));
  refusal(() => messageIds([1n << 63n]));
  refusal(() => messageIds([5 as unknown as bigint]));
  refusal(() => messageIds('1' as unknown as bigint[]));
});

test('sendInputs gives each delay and refuses a fractional one or a missing body', () => {
  expect(sendInputs([{ body: 'a' }, { body: 'b', delaySec: 7 }])).toEqual([0, 7]);
  refusal(() => sendInputs([{ body: 'a', delaySec: 0.5 }]));
  refusal(() => sendInputs([{} as never]));
});

test('receiveOptions: defaults, and the one rule for vt', () => {
  expect(receiveOptions({ qty: 3 })).toEqual({ qty: 3, vtSec: undefined, dequeue: 'safe', naivePauseMs: 0 });
  expect(receiveOptions({ qty: 1, vtSec: 0, dequeue: 'naive', naivePauseMs: 2.5 })).toEqual({
    qty: 1,
    vtSec: 0,
    dequeue: 'naive',
    naivePauseMs: 2.5,
  });
  refusal(() => receiveOptions({ qty: 1, vtSec: 1.5 }));
  refusal(() => receiveOptions({ qty: 1, dequeue: 'other' as never }));
  refusal(() => receiveOptions({ qty: 1, naivePauseMs: -1 }));
});

test('peekOptions: states the store has, orders, ids', () => {
  expect(peekOptions({ limit: 5 })).toEqual({ limit: 5, state: 'all', order: 'oldest', afterId: undefined, id: undefined });
  expect(peekOptions({ limit: 5, state: 'failed', order: 'newest', afterId: 9n })).toMatchObject({
    state: 'failed',
    order: 'newest',
    afterId: 9n,
  });
  expect(refusal(() => peekOptions({ limit: 1, state: 'failed' }, ['ready', 'inflight', 'delayed'])).line()).toMatch(
    /no failed state: use ready, inflight, delayed or all/,
  );
  refusal(() => peekOptions({ limit: 1, state: 'constructor' as never }));
  refusal(() => peekOptions({ limit: 1, order: 'up' as never }));
  refusal(() => peekOptions({ limit: 0 }));
});
