// top's marks and the operator's keys (issue 18): pure parts, no terminal.
import { describe, expect, test } from 'vitest';
import type { Message } from '../../src/backends/types.js';
import {
  caughtMarks,
  goneWords,
  shortfallWords,
  isMarked,
  MARK_LIMIT,
  marksText,
  NO_MARKS,
  selectionOf,
  selectionWords,
  toggleMark,
} from '../../src/ui/model/marks.js';
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
    expect(isMarked(m, msg(5n))).toBe(true);
    expect(selectionOf(m, msg(9n))).toEqual({ kind: 'ids', ids: [3n, 5n] });
    m = toggleMark(toggleMark(m, 3n), 5n);
    expect(m).toEqual(NO_MARKS);
    expect(selectionOf(m, msg(9n))).toEqual({ kind: 'ids', ids: [9n] });
    expect(selectionWords(m, msg(9n), 1)).toBe('message 9');
  });

  test('* and N mark the ids that matched then, named by their filter; later arrivals are not marked', () => {
    const m = caughtMarks([4n, 7n, 9n], 'inflight', 2);
    expect(marksText(m)).toBe('all 3 in flight messages read ≥ 2 times marked');
    expect(isMarked(m, msg(7n, 2, 'inflight'))).toBe(true);
    expect(isMarked(m, msg(10n, 2, 'inflight'))).toBe(false); // arrived (or matched) after the mark
    // Acted on only while still in flight: a message made visible (or taken again) since is left.
    expect(selectionOf(m, undefined)).toEqual({ kind: 'ids', ids: [4n, 7n, 9n], state: 'inflight' });
    expect(selectionWords(m, undefined, 2)).toBe('2 in flight messages read ≥ 2 times');
    expect(goneWords(m, 2)).toBe('1 of 3 marked no longer in flight or gone');
    expect(shortfallWords(m, 1)).toBe(' (2 of 3 marked were no longer in flight or gone)');
    expect(selectionOf(caughtMarks([4n], 'all', undefined), undefined)).toEqual({ kind: 'ids', ids: [4n] });
    expect(goneWords(m, 3)).toBe('');
    expect(selectionWords(caughtMarks([1n], 'all', 1), undefined, 1)).toBe('1 message read ≥ 1 time');
    expect(caughtMarks([], 'all', undefined)).toEqual(NO_MARKS);
  });

  test('* marks at most MARK_LIMIT ids, the oldest, and says how many matched', () => {
    const ids = Array.from({ length: MARK_LIMIT + 1 }, (_, i) => BigInt(i + 1));
    const m = caughtMarks(ids, 'all', undefined, 1_204_311);
    expect(marksText(m)).toBe('the oldest 100,000 of 1,204,311 messages marked');
    expect(isMarked(m, msg(BigInt(MARK_LIMIT)))).toBe(true);
    expect(isMarked(m, msg(BigInt(MARK_LIMIT + 1)))).toBe(false);
  });

  test('a bulk result counts what did not change against the marks, not against the question', () => {
    const ids = Array.from({ length: 50_000 }, (_, i) => BigInt(i + 1));
    const m = caughtMarks(ids, 'all', undefined);
    // `d` asked about 49,990 (10 gone); 5 more went before the y: 49,985 deleted.
    expect(shortfallWords(m, 49_985)).toBe(' (15 of 50,000 marked were not there any more)');
    expect(shortfallWords(m, 49_000, 'were visible already or gone')).toBe(' (1,000 of 50,000 marked were visible already or gone)');
    expect(shortfallWords(m, 50_000)).toBe('');
    const some = toggleMark(toggleMark(NO_MARKS, 3n), 5n);
    expect(shortfallWords(some, 1)).toBe(' (1 of 2 marked were not there any more)');
    // No marks: the highlighted message.
    expect(shortfallWords(NO_MARKS, 0)).toBe(' (1 of 1 were not there any more)');
    expect(shortfallWords(NO_MARKS, 1)).toBe('');
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
