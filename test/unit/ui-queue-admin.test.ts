// Creating and dropping a queue from top's list (issue 18): keys, help, hints and the words
// of the prompts, without a terminal.
import { describe, expect, test } from 'vitest';
import { commandFor, helpFor } from '../../src/ui/model/keys.js';
import { fitHints, keyHints } from '../../src/ui/model/hints.js';
import { createProblem, dropLimit, dropQuestion, notDroppedLine } from '../../src/ui/model/queue-admin.js';

describe('keys', () => {
  test('n creates, Ctrl-D drops, on the list only; D still sorts by DELAYED', () => {
    expect(commandFor('list', 'n', {})).toEqual({ type: 'createQueue' });
    expect(commandFor('list', 'd', { ctrl: true })).toEqual({ type: 'dropQueue' });
    expect(commandFor('list', 'D', {})).toEqual({ type: 'sortKey', key: 'D' });
    expect(commandFor('queue', 'd', { ctrl: true })).not.toEqual({ type: 'dropQueue' });
  });
  test('help and footer name them, and leave them out when read-only', () => {
    const opts = { readOnly: false, archive: true, failedState: false };
    const help = helpFor('list', opts).map((e) => e.keys);
    expect(help).toContain('n');
    expect(help).toContain('Ctrl-D');
    const ro = helpFor('list', { ...opts, readOnly: true }).map((e) => e.keys);
    expect(ro).not.toContain('n');
    expect(ro).not.toContain('Ctrl-D');
    expect(fitHints(keyHints('list', false, true), 300)).toContain('n new · ^D drop');
    expect(fitHints(keyHints('list', true, true), 300)).not.toMatch(/new|drop/);
    // At 80 columns, drop goes before new does.
    const at80 = fitHints(keyHints('list', false, true), 100);
    if (at80.includes('^D drop')) expect(at80).toContain('n new');
  });
});

describe('words', () => {
  test('a bad name is one line, as the backend would say it', () => {
    expect(createProblem('pgmq', 'a;b')).toBe('invalid queue name "a;b": it contains ";"');
    expect(createProblem('pgmq', 'x'.repeat(48))).toMatch(/^invalid queue name "x+": it is 48 characters long$/);
    expect(createProblem('pgmq', '')).toBe('invalid queue name "": it is empty');
    expect(createProblem('sqlite', 'a\u001bb')).toBe('invalid queue name "a\\u001bb": it contains control characters');
    expect(createProblem('pgmq', 'orders')).toBeUndefined();
    expect(createProblem('sqlite', 'a;b')).toBeUndefined();
  });
  test('drop names the queue and its messages; exact, estimated, archived', () => {
    expect(dropQuestion('orders', { total: 0, estimated: false })).toBe('Drop queue orders (empty)?');
    expect(dropQuestion('orders', { total: 1204, estimated: false, archived: 3 })).toBe(
      'Drop queue orders and its 1,204 messages (and 3 archived)? Type its name to confirm: ',
    );
    expect(dropQuestion('orders', { total: 1, estimated: true })).toBe('Drop queue orders and its ~1 message? Type its name to confirm: ');
  });

  test('a queue confirmed as empty that got messages before the y: one line, nothing dropped', () => {
    expect(notDroppedLine('orders', 1204)).toBe('not dropped: queue orders now holds 1,204 messages');
    expect(notDroppedLine('orders', 1)).toBe('not dropped: queue orders now holds 1 message');
  });

  test('a typed-name drop is limited to the count the question stated; more found says both counts', () => {
    expect(dropLimit({ total: 0, estimated: false })).toBe(0);
    expect(dropLimit({ total: 1, estimated: false, archived: 3 })).toBe(1);
    expect(dropLimit({ total: 1204.4, estimated: true })).toBe(1205);
    expect(notDroppedLine('top_acyr', 101, { total: 1, estimated: false })).toBe(
      'not dropped: queue top_acyr now holds 101 messages (the question said 1): press Ctrl-D again to drop it',
    );
    expect(notDroppedLine('big', 1_300_000, { total: 1_204_311, estimated: true })).toBe(
      'not dropped: queue big now holds 1,300,000 messages (the question said ~1,204,311): press Ctrl-D again to drop it',
    );
    expect(notDroppedLine('orders', 50, { total: 0, estimated: false })).toBe('not dropped: queue orders now holds 50 messages');
  });
});
