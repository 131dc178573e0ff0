// Keys of top's side views, a queue's FIFO groups and the topic bindings: tables that move,
// sort and filter like the queue list, open a row with Enter and go back with Esc. The help
// and the footer hints of these views are written from here.
import { groupColumns } from './groups.js';
import type { Hint } from './hints.js';
import { bindingColumns } from './topics.js';
import { common, type Command, type HelpEntry, type KeyPress } from './keys.js';

export type ViewScreen = 'groups' | 'topics';

export type ViewCommand = Command | { readonly type: 'testRoute' };

export function viewCommandFor(screen: ViewScreen, input: string, key: KeyPress): ViewCommand | undefined {
  if (key.escape || input === 'q' || key.leftArrow || key.backspace) return { type: 'back' };
  if (key.return || key.rightArrow) return { type: 'open' };
  if (input === '/') return { type: 'filter' };
  if (input === '<' || input === ',') return { type: 'sortShift', step: -1 };
  if (input === '>' || input === '.') return { type: 'sortShift', step: 1 };
  if (screen === 'topics' && input === 't') return { type: 'testRoute' };
  if (/^[A-Z]$/.test(input) && input !== 'G') return { type: 'sortKey', key: input };
  return common(input, key);
}

/** The capital keys that sort the view's columns (`lastReadAt`: the groups view has LAST READ). */
function viewSortKeys(screen: ViewScreen, lastReadAt: boolean): { key: string; title: string }[] {
  const cols: readonly { sortKey?: string; title: string }[] = screen === 'groups' ? groupColumns(0, lastReadAt) : bindingColumns(0, false);
  return cols.flatMap((c) => (c.sortKey ? [{ key: c.sortKey, title: c.title }] : []));
}

export function viewHelp(screen: ViewScreen, lastReadAt: boolean): HelpEntry[] {
  const sortKeys = viewSortKeys(screen, lastReadAt);
  const sort =
    sortKeys.length > 0
      ? [{ keys: sortKeys.map((k) => k.key).join(' '), what: `sort by ${sortKeys.map((k) => k.title.toLowerCase()).join(', ')}` }]
      : [];
  return [
    { keys: '↑/↓ j/k', what: 'move' },
    { keys: 'PgUp/PgDn Space', what: 'page up / down' },
    { keys: 'g/G Home/End', what: 'first / last' },
    screen === 'groups'
      ? { keys: 'Enter →', what: "open the group's messages" }
      : { keys: 'Enter →', what: 'open the queue of the binding' },
    ...(screen === 'topics' ? [{ keys: 't', what: 'test a routing key: which queues a topic send reaches' }] : []),
    { keys: '/', what: screen === 'groups' ? 'filter by group (regex); Esc clears' : 'filter by pattern or queue (regex); Esc clears' },
    { keys: '< / >', what: 'sort by the previous / next column (again: reverse)' },
    ...sort,
    { keys: 'Esc q ←', what: screen === 'groups' ? 'back to the queue' : 'back to the queue list' },
    { keys: ':', what: 'switch context: another database or SmoothMQ file' },
    { keys: 'r', what: 'refresh now' },
    { keys: '+ / -', what: 'refresh interval longer / shorter (0.5 s minimum)' },
    { keys: '?', what: 'this help' },
    { keys: 'Ctrl-C', what: 'quit' },
  ];
}

export function viewHints(screen: ViewScreen): Hint[] {
  return [
    { text: '↑↓ move', rank: 6 },
    { text: screen === 'groups' ? 'Enter messages' : 'Enter queue', rank: 2 },
    ...(screen === 'topics' ? [{ text: 't test key', rank: 1 }] : []),
    { text: '/ filter', rank: 3 },
    { text: '</> sort', rank: 4 },
    { text: 'r refresh', rank: 7 },
    { text: 'Esc back', rank: 0 },
    { text: '? help', rank: 0 },
    { text: '^C quit', rank: 0 },
  ];
}
