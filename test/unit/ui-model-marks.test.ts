// top's marks and the operator's keys (issue 18): pure parts, no terminal.
import { describe, expect, test } from 'vitest';
import type { Message } from '../../src/backends/types.js';
import { isMarked, marksText, NO_MARKS, selectionOf, selectionWords, toggleMark } from '../../src/ui/model/marks.js';
import { commandFor, helpFor } from '../../src/ui/model/keys.js';
import { keyHints } from '../../src/ui/model/hints.js';

const msg = (id: bigint, readCount = 0, state: Message['state'] = 'ready'): Message => ({
  id,
  state,
  readCount,
  enqueuedAt: null,
  visibleAt: new Date(0),
  lastReadAt: null,
  body: '{}',
  headers: null,
});

describe('marks', () => {
  test('Space toggles ids; the last unmark leaves none', () => {
    let m = toggleMark(NO_MARKS, 3n);
    m = toggleMark(m, 5n);
    expect(marksText(m)).toBe('2 marked');
    expect(isMarked(m, msg(5n), 'queue')).toBe(true);
    expect(selectionOf(m, msg(9n))).toEqual({ kind: 'ids', ids: [3n, 5n] });
    m = toggleMark(toggleMark(m, 3n), 5n);
    expect(m).toEqual(NO_MARKS);
    expect(selectionOf(m, msg(9n))).toEqual({ kind: 'ids', ids: [9n] });
    expect(selectionWords(m, msg(9n), 1)).toBe('message 9');
  });

  test('a filter marks by state and read count, counted by the store', () => {
    const m = { kind: 'filter', state: 'inflight', minReadCount: 2, count: 1204 } as const;
    expect(marksText(m)).toBe('all 1,204 in flight messages read ≥ 2 times marked');
    expect(isMarked(m, msg(1n, 2, 'inflight'), 'queue')).toBe(true);
    expect(isMarked(m, msg(1n, 1, 'inflight'), 'queue')).toBe(false);
    expect(isMarked(m, msg(1n, 3, 'ready'), 'queue')).toBe(false);
    expect(selectionOf(m, undefined)).toEqual({ kind: 'filter', state: 'inflight', minReadCount: 2 });
    expect(selectionWords({ kind: 'filter', state: 'all', minReadCount: 1, count: 1 }, undefined, 1)).toBe('1 message read ≥ 1 time');
  });
});

describe('operator keys', () => {
  test('Space marks in the queue view, pages in the detail, pauses on the list', () => {
    expect(commandFor('queue', ' ', {})).toEqual({ type: 'mark' });
    expect(commandFor('message', ' ', {})).toEqual({ type: 'page', delta: 1 });
    expect(commandFor('list', ' ', {})).toEqual({ type: 'pause' });
    expect(commandFor('queue', '*', {})).toEqual({ type: 'markAll' });
    expect(commandFor('queue', 'm', {})).toEqual({ type: 'moveTo' });
    expect(commandFor('message', 'e', {})).toEqual({ type: 'export' });
  });

  test('the help lists every operator key; read-only keeps marks, export and the archive view', () => {
    const keys = helpFor('queue', { readOnly: false, archive: true, failedState: false }).map((h) => h.keys);
    expect(keys).toEqual(expect.arrayContaining(['Space', '*', 'N', 'c', 'm', 'e', 'A']));
    const archive = helpFor('queue', { readOnly: false, archive: true, failedState: false, archiveView: true }).map((h) => h.keys);
    expect(archive).toEqual(expect.arrayContaining(['u', 'm', 'e']));
    expect(archive).not.toContain('d');
    const ro = helpFor('queue', { readOnly: true, archive: true, failedState: false }).map((h) => h.keys);
    expect(ro).toEqual(expect.arrayContaining(['Space', '*', 'e', 'A']));
    expect(ro).not.toContain('m');
  });

  test('the archive view has its own hints', () => {
    expect(keyHints('queue', false, true, { archiveView: true }).map((h) => h.text)).toContain('u restore');
    expect(keyHints('queue', true, true, { archiveView: true }).map((h) => h.text)).not.toContain('u restore');
  });
});
