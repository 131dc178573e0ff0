// The footer's key hints, per screen, and which of them give way when the terminal is
// narrow: the least useful go first; the keys to get help and to get out always stay.
import { cellWidth } from '../../text/width.js';
import type { Screen } from './keys.js';

export interface Hint {
  readonly text: string;
  /** Lower stays longer; 0 never goes. */
  readonly rank: number;
}

const SEPARATOR = ' · ';

/** The hints of a screen, in the order they are shown. */
export function keyHints(
  screen: Screen,
  readOnly: boolean,
  archive: boolean,
  views: { groups?: boolean; topics?: boolean; archiveView?: boolean } = {},
): Hint[] {
  const archiveView = views.archiveView === true;
  const act = (hints: Hint[]) => (readOnly ? [] : hints);
  // The operator's keys go first when the terminal is narrow (help lists them all).
  const marks: Hint[] = [{ text: 'Space mark', rank: 10 }, ...act([{ text: 'm move', rank: 11 }]), { text: 'e export', rank: 12 }];
  if (screen === 'queue' && archiveView) {
    return [
      { text: '↑↓ move', rank: 8 },
      { text: 'Enter open', rank: 1 },
      ...marks,
      ...act([{ text: 'u restore', rank: 2 }]),
      { text: 'Esc back', rank: 0 },
      { text: '? help', rank: 0 },
      { text: '^C quit', rank: 0 },
    ];
  }
  if (screen === 'list') {
    return [
      { text: '↑↓ move', rank: 6 },
      { text: 'Enter open', rank: 1 },
      { text: '/ filter', rank: 2 },
      { text: '</> sort', rank: 5 },
      { text: 'Space pause', rank: 7 },
      { text: 'i details', rank: 6 },
      ...(views.topics ? [{ text: 't topics', rank: 4 }] : []),
      { text: '+/- interval', rank: 9 },
      { text: 'r refresh', rank: 8 },
      ...act([
        { text: 'P purge', rank: 4 },
        { text: 's send', rank: 3 },
        { text: 'n new', rank: 6 },
        { text: '^D drop', rank: 10 },
      ]),
      { text: '? help', rank: 0 },
      { text: 'q quit', rank: 0 },
    ];
  }
  const messageActions = act([
    { text: 'd delete', rank: 2 },
    ...(archive ? [{ text: 'a archive', rank: 3 }] : []),
    { text: 'v visible now', rank: 4 },
  ]);
  if (screen === 'queue') {
    return [
      { text: '↑↓ move', rank: 8 },
      { text: 'PgUp/PgDn page', rank: 7 },
      { text: 'Enter open', rank: 1 },
      { text: 'o order', rank: 6 },
      { text: 'f state', rank: 5 },
      { text: '# jump', rank: 3 },
      { text: '/ search', rank: 4 },
      ...(views.groups ? [{ text: 'F groups', rank: 2 }] : []),
      ...messageActions,
      ...act([
        { text: 'P purge', rank: 9 },
        { text: 's send', rank: 5 },
      ]),
      ...marks,
      { text: archive ? 'A archive' : 'A failed', rank: 13 },
      { text: 'p pager', rank: 14 },
      { text: 'h/l body', rank: 15 },
      { text: 'Esc back', rank: 0 },
      { text: '? help', rank: 0 },
      { text: '^C quit', rank: 0 },
    ];
  }
  return [
    { text: '↑↓ scroll', rank: 5 },
    { text: 'PgUp/PgDn page', rank: 6 },
    { text: '←→ sideways', rank: 7 },
    { text: 'w wrap', rank: 3 },
    { text: 'p pager', rank: 3 },
    ...messageActions,
    { text: 'Esc back', rank: 0 },
    { text: '? help', rank: 0 },
    { text: '^C quit', rank: 0 },
  ];
}

/**
 * The hints that fit in `width` cells, joined: the highest rank goes first (on a tie the
 * rightmost), rank 0 never.
 */
export function fitHints(hints: readonly Hint[], width: number): string {
  let kept = [...hints];
  const text = () => kept.map((h) => h.text).join(SEPARATOR);
  while (cellWidth(text()) > width) {
    let victim = -1;
    kept.forEach((h, i) => {
      if (h.rank > 0 && (victim < 0 || h.rank >= kept[victim]!.rank)) victim = i;
    });
    if (victim < 0) break;
    kept = kept.filter((_, i) => i !== victim);
  }
  return text();
}
