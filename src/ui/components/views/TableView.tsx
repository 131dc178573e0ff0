// A side view's table (a queue's FIFO groups, the topic bindings): a title, a bar with the
// count, the highlighted row's position and the filter, the column titles and the rows,
// coloured by tone. It keeps the selection (by row key, so it stays on its row when rows
// move), the sort and the `/` filter; what Enter and the other keys do is the owner's.
import { useRef, useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import { useKeyTarget, type KeyRouter } from '../../hooks/useKeys.js';
import { escapeControl } from '../../../text/escape.js';
import { cutParts, cutToCells } from '../../../text/width.js';
import { counted } from '../../model/format.js';
import {
  fitColumns,
  shiftTableSort,
  sortOn,
  sortTable,
  tableFilter,
  tableLine,
  tableTitle,
  type TableColumn,
  type TableSort,
} from '../../model/table.js';
import { TONE_COLOR, type Tone } from '../../model/tones.js';
import { indexOfKey, moveSelection, scrollOffset } from '../../model/viewport.js';
import { viewCommandFor, type ViewCommand, type ViewScreen } from '../../model/view-keys.js';
import { GUTTER_BLANK, GUTTER_SELECTED, GUTTER_WIDTH } from '../QueueList.js';
import { LineInput } from '../LineInput.js';

export interface TableViewProps<R extends { readonly key: string }> {
  readonly screen: ViewScreen;
  /** The title: [bold, cyan, plain] parts, cut to the width together. */
  readonly title: readonly [string, string, string];
  /** Lines under the bar (a routing test's answer), each cut to the width. */
  readonly notes?: readonly { readonly text: string; readonly color?: string }[];
  readonly rows: readonly R[] | undefined;
  readonly columns: readonly TableColumn<R>[];
  readonly defaultSort: TableSort;
  readonly tone: (row: R) => Tone | undefined;
  /** The texts `/` matches against. */
  readonly filterOf: (row: R) => readonly string[];
  /** 'group' / 'binding': the bar counts them. */
  readonly noun: string;
  readonly emptyText: string;
  readonly error: string | undefined;
  /** Keys the table does not handle itself (open, back, help, refresh, …) with the highlighted row. */
  readonly onCommand: (command: ViewCommand, row: R | undefined) => void;
  /** The owner's own prompt (it takes the keys while it is open). */
  readonly prompt?: ReactNode;
  readonly keys: KeyRouter;
  readonly active: boolean;
  /** Keys wait until the rows are loaded. */
  readonly ready: boolean;
  readonly width: number;
  readonly height: number;
}

export function TableView<R extends { readonly key: string }>(p: TableViewProps<R>) {
  const [sort, setSort] = useState<TableSort>(p.defaultSort);
  const [filterText, setFilterText] = useState('');
  const [filtering, setFiltering] = useState(false);
  const [selectedKey, setSelectedKey] = useState<string | undefined>(undefined);
  const offset = useRef(0);

  const filter = tableFilter(filterText, p.filterOf);
  const all = p.rows ?? [];
  const rows = sortTable(all.filter(filter.keep), p.columns, sort);
  const keys = rows.map((r) => r.key);
  const selected = indexOfKey(keys, selectedKey, 0);
  const cols = fitColumns(p.columns, p.width - GUTTER_WIDTH);
  const shown = cols.map((c) => c.col);
  const notes = p.notes ?? [];
  const promptOpen = filtering || p.prompt !== undefined;
  // Title, bar, notes, column titles; the prompt's line at the bottom.
  const listHeight = Math.max(1, p.height - 3 - notes.length - (promptOpen ? 1 : 0) - (p.error ? 1 : 0));
  offset.current = scrollOffset(selected, offset.current, listHeight, rows.length);
  const select = (i: number) => setSelectedKey(keys[i]);

  useKeyTarget(
    p.keys,
    (input, key) => {
      const cmd = viewCommandFor(p.screen, input, key);
      if (!cmd) return;
      switch (cmd.type) {
        case 'move':
          return select(moveSelection(selected, cmd.delta, rows.length));
        case 'page':
          return select(moveSelection(selected, cmd.delta * Math.max(1, listHeight - 1), rows.length));
        case 'home':
          return select(0);
        case 'end':
          return select(rows.length - 1);
        case 'filter':
          return setFiltering(true);
        case 'sortShift':
          return setSort((s) => shiftTableSort(s, shown, cmd.step));
        case 'sortKey': {
          const column = shown.find((c) => c.sortKey === cmd.key);
          if (column) setSort((s) => sortOn(s, column));
          return;
        }
        case 'back':
          // Esc clears a filter first; q and ← always go back.
          if (key.escape && filterText !== '') return setFilterText('');
          return p.onCommand(cmd, rows[selected]);
        default:
          return p.onCommand(cmd, rows[selected]);
      }
    },
    { active: p.active && !promptOpen, ready: p.ready },
  );

  const position = rows.length > 0 && selected >= 0 ? ` · ${selected + 1}/${rows.length}` : '';
  const filterInfo = filter.ok
    ? filterText !== ''
      ? ` · filter /${escapeControl(filterText)}/`
      : ''
    : ` · filter /${escapeControl(filterText)}/: invalid regex: ${escapeControl(filter.error ?? '')} (showing all)`;
  const bar = p.rows === undefined ? 'loading…' : `${rows.length} of ${counted(all.length, p.noun)}${position}${filterInfo}`;
  const titleParts = cutParts([...p.title], p.width);
  const visible = rows.slice(offset.current, offset.current + listHeight);
  return (
    <Box flexDirection="column" height={p.height}>
      <Text wrap="truncate-end">
        <Text bold>{titleParts[0]}</Text>
        <Text color="cyan">{titleParts[1]}</Text>
        {titleParts[2]}
      </Text>
      <Text wrap="truncate-end" color={filter.ok ? undefined : 'red'}>
        {cutToCells(bar, p.width)}
      </Text>
      {notes.map((n, i) => (
        <Text key={i} wrap="truncate-end" color={n.color}>
          {cutToCells(n.text, p.width)}
        </Text>
      ))}
      {p.error ? (
        <Text color="red" wrap="truncate-end">
          {cutToCells(`cannot read: ${p.error} (retrying)`, p.width)}
        </Text>
      ) : null}
      <Text bold underline wrap="truncate-end">
        {GUTTER_BLANK + tableTitle(cols, sort)}
      </Text>
      <Box flexDirection="column" height={listHeight}>
        {p.rows !== undefined && rows.length === 0 ? (
          <Text dimColor>{all.length === 0 ? p.emptyText : `no ${p.noun} matches the filter`}</Text>
        ) : null}
        {visible.map((row, i) => {
          const isSelected = offset.current + i === selected;
          const tone = p.tone(row);
          return (
            <Text key={row.key} inverse={isSelected} color={tone ? TONE_COLOR[tone] : undefined} wrap="truncate-end">
              {(isSelected ? GUTTER_SELECTED : GUTTER_BLANK) + tableLine(row, cols)}
            </Text>
          );
        })}
      </Box>
      {filtering ? (
        <LineInput
          keys={p.keys}
          label="filter (regex): /"
          initial={filterText}
          hint="Enter keeps · Esc clears"
          onChange={setFilterText}
          onSubmit={() => setFiltering(false)}
          onCancel={() => {
            setFilterText('');
            setFiltering(false);
          }}
        />
      ) : (
        (p.prompt ?? null)
      )}
    </Box>
  );
}
