// Which key does what, per screen. Pure: the components turn key presses into these
// commands and act on them; the help screen is written from the same tables. The operator's
// keys (marks, move, restore, export, archive) are in ops-keys.ts.
import { opsCommandFor, opsHelp, type OpsCommand } from './ops-keys.js';
import { cellWidth } from '../../text/width.js';
import { wrapCells } from './prompt-lines.js';

/** The parts of a key press top looks at (ink's Key has all of these). */
export interface KeyPress {
  readonly upArrow?: boolean;
  readonly downArrow?: boolean;
  readonly leftArrow?: boolean;
  readonly rightArrow?: boolean;
  readonly pageUp?: boolean;
  readonly pageDown?: boolean;
  readonly home?: boolean;
  readonly end?: boolean;
  readonly return?: boolean;
  readonly escape?: boolean;
  readonly ctrl?: boolean;
  readonly meta?: boolean;
  readonly tab?: boolean;
  readonly backspace?: boolean;
  readonly delete?: boolean;
}

export type Action = 'delete' | 'archive' | 'makeVisible' | 'purge' | 'send';

export type Command =
  | { readonly type: 'move'; readonly delta: number }
  | { readonly type: 'page'; readonly delta: 1 | -1 }
  | { readonly type: 'home' }
  | { readonly type: 'end' }
  | { readonly type: 'open' }
  | { readonly type: 'back' }
  | { readonly type: 'quit' }
  | { readonly type: 'help' }
  | { readonly type: 'filter' }
  | { readonly type: 'sortShift'; readonly step: 1 | -1 }
  | { readonly type: 'sortKey'; readonly key: string }
  | { readonly type: 'interval'; readonly direction: 1 | -1 }
  | { readonly type: 'pause' }
  | { readonly type: 'refresh' }
  | { readonly type: 'order' }
  | { readonly type: 'stateFilter' }
  | { readonly type: 'jump' }
  | { readonly type: 'action'; readonly action: Action }
  /** A side view: the queue's FIFO groups (queue view), the topic bindings (list). */
  | { readonly type: 'view'; readonly view: 'groups' | 'topics' }
  /** `/` in the queue view: search inside the messages (hooks/useSearch). */
  | { readonly type: 'search' }
  /** `i` on the list: the highlighted queue's storage (views/DetailsScreen). */
  | { readonly type: 'details' }
  /** `w` in the message detail: long lines wrap, or are cut at the edge (model/body-view). */
  | { readonly type: 'wrap' }
  /** h/l (and ←/→ in the detail): long lines sideways; `orBack`: ← at the left edge goes back. */
  | { readonly type: 'hscroll'; readonly direction: 1 | -1; readonly orBack?: boolean }
  /** `n` / Ctrl-D on the list: create a queue, drop the highlighted one (hooks/useQueueAdmin). */
  | { readonly type: 'createQueue' }
  | { readonly type: 'dropQueue' }
  /** `p`: the message (body and headers) in $PAGER (hooks/usePager). */
  | { readonly type: 'pager' }
  /** `:` anywhere: the contexts (stores) to switch to (k9s' `:ctx`; views/ContextsScreen). */
  | { readonly type: 'contexts' }
  | OpsCommand;

export type Screen = 'list' | 'queue' | 'message';

/** Keys every screen shares. */
export function common(input: string, key: KeyPress): Command | undefined {
  if (key.ctrl && input === 'c') return { type: 'quit' };
  if (key.upArrow || input === 'k') return { type: 'move', delta: -1 };
  if (key.downArrow || input === 'j') return { type: 'move', delta: 1 };
  if (key.pageUp || (key.ctrl && input === 'b')) return { type: 'page', delta: -1 };
  if (key.pageDown || (key.ctrl && input === 'f') || input === ' ') return { type: 'page', delta: 1 };
  if (key.home || input === 'g') return { type: 'home' };
  if (key.end || input === 'G') return { type: 'end' };
  if (input === '?') return { type: 'help' };
  if (input === 'r' || (key.ctrl && input === 'l')) return { type: 'refresh' };
  if (input === '+' || input === '=') return { type: 'interval', direction: 1 };
  if (input === '-' || input === '_') return { type: 'interval', direction: -1 };
  if (input === ':') return { type: 'contexts' };
  return undefined;
}

export function commandFor(screen: Screen, input: string, key: KeyPress): Command | undefined {
  if (screen === 'list') {
    // Space pauses on the list, marks a row in the queue view, pages in the message detail.
    if (input === ' ') return { type: 'pause' };
    // k9s drops with Ctrl-D; D sorts by DELAYED here.
    if (key.ctrl && input === 'd') return { type: 'dropQueue' };
    if (input === 'n' && !key.ctrl) return { type: 'createQueue' };
    if (key.return) return { type: 'open' };
    if (key.escape) return { type: 'back' };
    if (input === 'q') return { type: 'quit' };
    if (input === '/') return { type: 'filter' };
    if (input === '<' || input === ',') return { type: 'sortShift', step: -1 };
    if (input === '>' || input === '.') return { type: 'sortShift', step: 1 };
    if (/^[A-Z]$/.test(input) && input !== 'G' && input !== 'P') return { type: 'sortKey', key: input };
    if (input === 'P') return { type: 'action', action: 'purge' };
    if (input === 's') return { type: 'action', action: 'send' };
    if (input === 't') return { type: 'view', view: 'topics' };
    if (input === 'i') return { type: 'details' };
    return common(input, key);
  }
  if (screen === 'message') {
    // Sideways through long lines; ← past the left edge still goes back, as before.
    if (key.leftArrow) return { type: 'hscroll', direction: -1, orBack: true };
    if (key.rightArrow) return { type: 'hscroll', direction: 1 };
    if (input === 'w') return { type: 'wrap' };
  }
  if (key.escape || input === 'q' || key.leftArrow || key.backspace) return { type: 'back' };
  if (input === 'h') return { type: 'hscroll', direction: -1 };
  if (input === 'l') return { type: 'hscroll', direction: 1 };
  if (input === 'p') return { type: 'pager' };
  const op = opsCommandFor(screen, input);
  if (op) return op;
  if (screen === 'queue') {
    if (key.return || key.rightArrow) return { type: 'open' };
    if (input === 'o') return { type: 'order' };
    if (input === 'f') return { type: 'stateFilter' };
    if (input === '#' || input === 'i') return { type: 'jump' };
    if (input === 'P') return { type: 'action', action: 'purge' };
    if (input === 's') return { type: 'action', action: 'send' };
    if (input === 'F') return { type: 'view', view: 'groups' };
    if (input === '/') return { type: 'search' };
  }
  if (input === 'd' || key.delete) return { type: 'action', action: 'delete' };
  if (input === 'a') return { type: 'action', action: 'archive' };
  if (input === 'v') return { type: 'action', action: 'makeVisible' };
  return common(input, key);
}

export interface HelpEntry {
  readonly keys: string;
  readonly what: string;
}

/** The help screen, per screen; actions are listed only when they are available. */
export function helpFor(
  screen: Screen,
  opts: {
    readOnly: boolean;
    archive: boolean;
    failedState: boolean;
    /** The queue view shows the archive (or SmoothMQ's failed messages). */
    archiveView?: boolean | undefined;
    /** The list's columns a capital key sorts by (only those shown: F and E mean nothing elsewhere). */
    sortKeys?: readonly { readonly key: string; readonly title: string }[];
    /** The store has FIFO groups (F in the queue view) / topics (t on the list). */
    groups?: boolean;
    topics?: boolean;
  },
): HelpEntry[] {
  const nav: HelpEntry[] = [
    { keys: '↑/↓ j/k', what: 'move' },
    screen === 'list'
      ? { keys: 'PgUp/PgDn', what: 'page up / down' }
      : { keys: screen === 'queue' ? 'PgUp/PgDn' : 'PgUp/PgDn Space', what: 'previous / next page' },
    { keys: 'g/G Home/End', what: 'first / last' },
  ];
  const general: HelpEntry[] = [
    { keys: ':', what: 'switch context: another database or SmoothMQ file' },
    { keys: 'r', what: 'refresh now' },
    { keys: '+ / -', what: 'refresh interval longer / shorter (0.5 s minimum)' },
    { keys: '?', what: 'this help' },
    { keys: 'Ctrl-C', what: 'quit' },
  ];
  const actions: HelpEntry[] = [];
  if (!opts.readOnly && !opts.archiveView) {
    if (screen !== 'list') {
      actions.push({ keys: 'd', what: 'delete the message' });
      if (opts.archive) actions.push({ keys: 'a', what: 'archive the message' });
      actions.push({ keys: 'v', what: 'make the message visible now' });
    }
    if (screen !== 'message') {
      actions.push({ keys: 'P', what: 'purge the queue (type its name to confirm)' });
      actions.push({ keys: 's', what: 'send a message' });
    }
    if (screen === 'list') {
      actions.push({ keys: 'n', what: 'create a queue' });
      actions.push({ keys: 'Ctrl-D', what: 'drop the queue (type its name when it has messages)' });
    }
  }
  if (screen === 'list') {
    return [
      ...nav,
      { keys: 'Enter', what: 'open the queue' },
      { keys: '/', what: 'filter by name (regex); Esc clears' },
      { keys: '< / >', what: 'sort by the previous / next column (again: reverse)' },
      ...sortKeyHelp(opts.sortKeys ?? []),
      { keys: 'Space', what: 'pause / resume refreshing' },
      ...(opts.topics ? [{ keys: 't', what: 'topic bindings; test a routing key' }] : []),
      { keys: 'i', what: "the queue's details: created, tables, sizes, vacuum, settings" },
      ...actions,
      ...general,
      { keys: 'q', what: 'quit' },
    ];
  }
  if (screen === 'queue') {
    return [
      ...nav,
      { keys: 'Enter →', what: 'open the message' },
      { keys: 'Esc q ←', what: opts.archiveView ? 'back to the queue view' : 'back to the queue list' },
      { keys: 'o', what: 'oldest / newest first' },
      // The archive has no states (SmoothMQ's view is the failed ones).
      ...(opts.archiveView
        ? []
        : [{ keys: 'f', what: `filter by state (all, ready, in flight, delayed${opts.failedState ? ', failed' : ''})` }]),
      { keys: '# / i', what: 'jump to a message id' },
      { keys: '/', what: 'search bodies and headers: a JSON object (contains) or text; Esc stops' },
      ...(opts.groups ? [{ keys: 'F', what: "the queue's FIFO groups (blocked, stalled)" }] : []),
      { keys: 'h/l', what: 'scroll BODY sideways' },
      { keys: 'p', what: 'the message in $PAGER (else less, more)' },
      ...actions,
      ...opsHelp(screen, opts),
      ...general,
    ];
  }
  return [
    { keys: '↑/↓ j/k', what: 'scroll' },
    { keys: 'PgUp/PgDn Space', what: 'scroll a page' },
    { keys: 'g/G Home/End', what: 'top / bottom' },
    { keys: 'Esc / q', what: 'back to the messages' },
    { keys: 'w', what: 'wrap long lines / cut them at the edge' },
    { keys: '←/→ h/l', what: 'scroll long lines sideways (← at the left edge: back)' },
    { keys: 'p', what: 'the message whole in $PAGER (else less, more)' },
    ...actions,
    ...opsHelp(screen, opts),
    ...general,
  ];
}

/** "N R I D T O  sort by name, ready, in flight, …": one line for the sort keys there are. */
function sortKeyHelp(keys: readonly { readonly key: string; readonly title: string }[]): HelpEntry[] {
  if (keys.length === 0) return [];
  return [{ keys: keys.map((k) => k.key).join(' '), what: `sort by ${keys.map((k) => k.title.toLowerCase()).join(', ')}` }];
}

/**
 * The help's entries in columns of at most `rows` lines: one column when they fit, else
 * as many as it takes (every key stays on screen; long explanations are cut instead).
 */
export function helpColumns(
  entries: readonly HelpEntry[],
  rows: number,
  count = Math.ceil(entries.length / Math.max(1, rows)),
): HelpEntry[][] {
  // Balanced: 17 entries in 15 lines are two columns of 9 and 8, not 15 and 2.
  const perColumn = Math.max(1, Math.ceil(entries.length / Math.max(1, count)));
  const columns: HelpEntry[][] = [];
  for (let i = 0; i < entries.length; i += perColumn) columns.push(entries.slice(i, i + perColumn));
  return columns;
}

/** The gap between an entry's keys and its words, and between two columns. */
export const HELP_GAP = 2;

/** Cells a column of the help takes with every entry whole: its keys padded alike, the gap, the words, the gap to the next. */
export function helpColumnWidth(column: readonly HelpEntry[]): number {
  const keys = Math.max(0, ...column.map((e) => cellWidth(e.keys)));
  return keys + HELP_GAP + Math.max(0, ...column.map((e) => cellWidth(e.what))) + HELP_GAP;
}

export interface HelpLayout {
  readonly columns: readonly (readonly HelpEntry[])[];
  /** Lines the longest column takes; more than the screen's rows: the help scrolls. */
  readonly lines: number;
  /** The columns share the width evenly and the longest words are cut at a column's end. */
  readonly cut?: boolean;
}

/**
 * The help in `rows` lines of `width` cells, every key on screen at once where that can be:
 * first side by side with every entry whole on its line (as many columns as it takes); where
 * those do not fit the width, the long entries' words go on over more lines of their column
 * (the fewest columns that hold every entry, each left room for its words). Only where no
 * such layout holds them all are there fewer columns than it takes, taller than the screen,
 * and the help scrolls. No entry's words are cut for the sake of a column (on a terminal
 * narrower than one entry, the line itself is cut).
 */
export function helpLayout(entries: readonly HelpEntry[], rows: number, width: number): HelpLayout {
  const lines = Math.max(1, rows);
  const keysWidth = Math.max(0, ...entries.map((e) => cellWidth(e.keys)));
  const fits = (columns: readonly (readonly HelpEntry[])[]) => columns.reduce((sum, c) => sum + helpColumnWidth(c), 0) - HELP_GAP <= width;
  const layoutOf = (columns: HelpEntry[][]): HelpLayout => ({ columns, lines: Math.max(0, ...columns.map((c) => c.length)) });
  let count = Math.max(1, Math.ceil(entries.length / lines));
  let columns = helpColumns(entries, lines, count);
  if (fits(columns)) return layoutOf(columns);
  for (let n = count; ; n++) {
    const wrapped = wrappedColumns(entries, lines, n, width, keysWidth);
    if (wrapped === 'no room') break;
    if (wrapped) return layoutOf(wrapped);
  }
  // Every key on screen, the longest words cut at the column's end, while each column still
  // leaves them a fair share (80 x 24: two columns, 24 cells of words): what a look at the
  // keys wants more than every word. Narrower than that, cut words say little: scroll.
  if (count > 1 && Math.floor((width + HELP_GAP) / count) - HELP_GAP - keysWidth - HELP_GAP >= MIN_CUT_WORDS_WIDTH) {
    return { ...layoutOf(columns), cut: true };
  }
  while (count > 1 && !fits(columns)) {
    count -= 1;
    columns = helpColumns(entries, lines, count);
  }
  if (count === 1 && !fits(columns)) {
    // One column, still too wide: the words of the long entries go on over more lines.
    const room = Math.max(10, width - keysWidth - 2 * HELP_GAP);
    columns = [entries.flatMap((e) => wrapEntry(e, room))];
  }
  return layoutOf(columns);
}

/** The fewest cells left for an entry's words beside its keys: below that, no column. */
const MIN_WORDS_WIDTH = 16;
/** The same where the words are cut at the column's end rather than wrapped. */
const MIN_CUT_WORDS_WIDTH = 20;

/**
 * `count` columns of equal width in `width` cells, each entry's words wrapped to its
 * column, filled in order without splitting an entry; undefined when they take more than
 * `count` columns of `rows` lines, 'no room' when the words would get fewer than
 * MIN_WORDS_WIDTH cells (more columns only make that worse).
 */
function wrappedColumns(
  entries: readonly HelpEntry[],
  rows: number,
  count: number,
  width: number,
  keysWidth: number,
): HelpEntry[][] | undefined | 'no room' {
  const room = Math.floor((width + HELP_GAP) / count) - HELP_GAP - keysWidth - HELP_GAP;
  if (room < MIN_WORDS_WIDTH) return 'no room';
  const columns: HelpEntry[][] = [[]];
  for (const e of entries) {
    const lines = wrapEntry(e, room);
    if (lines.length > rows) return undefined;
    if (columns.at(-1)!.length + lines.length > rows) columns.push([]);
    columns.at(-1)!.push(...lines);
  }
  return columns.length <= count ? columns : undefined;
}

/** An entry's words over lines of `room` cells, its keys on the first. */
const wrapEntry = (e: HelpEntry, room: number): HelpEntry[] =>
  wrapCells(e.what, room).map((what, i) => ({ keys: i === 0 ? e.keys : '', what }));
