// The words of a search inside a queue's messages (`/` in the queue view): what it looks for
// and how far it got. Pure.
import { escapeControl } from '../../text/escape.js';
import type { SearchState } from '../hooks/useSearch.js';
import { counted, formatCount } from './format.js';
import type { Hint } from './hints.js';

/** ` · search {"k":1} (JSON contains)`: what is searched, as the store takes it. */
export function searchWhat(s: SearchState): string {
  const how = s.mode === 'json' ? 'JSON contains' : s.mode === 'text' ? 'text, any case' : '…';
  return ` · search ${escapeControl(s.text)} (${how})`;
}

const rows = (n: number) => counted(n, 'row');

/** `scanning… 5,000 of ~20k rows · 3 matches` / `done: 20,000 rows in 0.4s · 3 matches` / …. */
export function searchProgress(s: SearchState, total: { n: number; estimated: boolean } | undefined, now: number): string {
  const of = total ? ` of ${formatCount(total.n, total.estimated)}` : '';
  const found = counted(s.matches.length, 'match', 'matches');
  const took = s.tookMs === undefined ? '' : ` in ${(s.tookMs / 1000).toFixed(1)}s`;
  switch (s.phase) {
    case 'typing':
      return 'type text or a JSON object';
    case 'scanning':
      return `searching… ${s.scanned.toLocaleString('en-US')}${of} rows read (${((now - s.startedAt) / 1000).toFixed(0)}s) · ${found} · Esc stops`;
    case 'cancelling':
      return `stopping after this step… ${s.scanned.toLocaleString('en-US')}${of} rows read · ${found}`;
    case 'cancelled':
      return `stopped after ${rows(s.scanned)}${s.lastId === undefined ? '' : ` (ids up to ${s.lastId})`} · ${found}`;
    case 'full':
      return `stopped at ${found}${s.lastId === undefined ? '' : ` (ids up to ${s.lastId})`} after ${rows(s.scanned)}${took}`;
    case 'done':
      return `done: ${rows(s.scanned)} searched${took} · ${found}`;
    case 'failed':
      return `search failed after ${rows(s.scanned)}: ${s.error ?? 'unknown error'}`;
  }
}

/** The footer while the search is on screen. */
export const SEARCH_HINTS: readonly Hint[] = [
  { text: '↑↓ move', rank: 3 },
  { text: 'Enter open', rank: 1 },
  { text: '/ search again', rank: 2 },
  { text: 'Esc stop / back', rank: 0 },
  { text: '? help', rank: 0 },
  { text: '^C quit', rank: 0 },
];
