// The pure parts of top's search inside messages: what the text means, its LIKE pattern, where
// the next bounded step starts, and the progress words.
import { describe, expect, test } from 'vitest';
import { likePattern, nextAfter, searchMode } from '../../src/backends/search.js';
import { searchProgress } from '../../src/ui/model/search.js';
import type { SearchState } from '../../src/ui/hooks/useSearch.js';

describe('search text', () => {
  test('%, _ and \\ match themselves', () => {
    expect(likePattern('50%_off\\x')).toBe('%50\\%\\_off\\\\x%');
  });
  test('a JSON object is containment where the store has JSON; arrays, scalars and bad JSON are text', () => {
    expect(searchMode('{"k": 1}', true)).toEqual({ kind: 'json', json: '{"k": 1}' });
    expect(searchMode('{"k": 1}', false).kind).toBe('text');
    for (const t of ['[1]', '1', '"x"', '{k:1}', 'null']) expect(searchMode(t, true).kind).toBe('text');
  });
  test('the next step starts after the last match when the limit cut the step, else after the rows read', () => {
    expect(nextAfter([3n, 9n], 2, 5000, 5000, 5000n)).toBe(9n);
    expect(nextAfter([3n], 2, 5000, 5000, 5000n)).toBe(5000n);
    expect(nextAfter([3n], 2, 120, 5000, 120n)).toBeNull();
    expect(nextAfter([], 2, 0, 5000, null)).toBeNull();
  });
});

describe('search progress', () => {
  const base: SearchState = {
    queueKey: 'q',
    text: 'x',
    phase: 'scanning',
    mode: 'text',
    matches: [],
    scanned: 5000,
    lastId: 5000n,
    error: undefined,
    selected: 0,
    startedAt: 0,
    tookMs: undefined,
  };
  test('under way, stopped, done', () => {
    expect(searchProgress(base, { n: 20_000, estimated: true }, 2000)).toBe(
      'searching… 5,000 of ~20.0k rows read (2s) · 0 matches · Esc stops',
    );
    expect(searchProgress({ ...base, phase: 'cancelled' }, undefined, 0)).toBe('stopped after 5,000 rows (ids up to 5000) · 0 matches');
    expect(searchProgress({ ...base, phase: 'done', scanned: 1, tookMs: 400 }, undefined, 0)).toBe(
      'done: 1 row searched in 0.4s · 0 matches',
    );
  });
});
