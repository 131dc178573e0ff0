// Which hints TopApp's footer shows: those of the screen on top, or of the details or the
// search drawn over it (a leaf over hints.ts, details.ts, search.ts and view-keys.ts, which
// import hints.ts's types).
import { DETAILS_HINTS } from './details.js';
import { keyHints, type Hint } from './hints.js';
import type { Screen } from './keys.js';
import { SEARCH_HINTS } from './search.js';
import { viewHints } from './view-keys.js';

/** The hints of the context picker (`:`). */
export const CONTEXT_PICKER_HINTS: readonly Hint[] = [
  { text: '↑↓ move', rank: 2 },
  { text: 'Enter or 1-9 switch', rank: 1 },
  { text: 'Esc back', rank: 0 },
  { text: '^C quit', rank: 0 },
];

/** What TopApp's footer offers: the screen on top, or the details or search drawn over it. */
export function footerHints(
  screen: Screen | 'groups' | 'topics',
  over: { readonly details: boolean; readonly search: boolean; readonly picker?: boolean },
  readOnly: boolean,
  caps: { readonly archive: boolean; readonly groups: boolean; readonly topics: boolean },
  /** contexts: top has several stores, `:` switches (offered before `? help`, among the first to go). */
  more: { readonly archiveView: boolean; readonly contexts: boolean },
): readonly Hint[] {
  const { archiveView } = more;
  if (over.picker) return CONTEXT_PICKER_HINTS;
  const hints =
    screen === 'groups' || screen === 'topics'
      ? viewHints(screen)
      : screen === 'list' && over.details
        ? DETAILS_HINTS
        : screen === 'queue' && over.search
          ? SEARCH_HINTS
          : keyHints(screen, readOnly, caps.archive, { groups: caps.groups, topics: caps.topics, archiveView });
  if (!more.contexts) return hints;
  const help = hints.findIndex((h) => h.text === '? help');
  const at = help < 0 ? hints.length : help;
  return [...hints.slice(0, at), { text: ': context', rank: 2 }, ...hints.slice(at)];
}
