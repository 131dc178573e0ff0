// The first screen: how many queues the filter shows, then the queue list. Its own keys
// move the selection, sort and clear the filter; the rest go to the app (onCommand).
import { Box, Text } from 'ink';
import { useKeyTarget, type KeyRouter } from '../hooks/useKeys.js';
import type { QueueListView } from '../hooks/useQueueList.js';
import { escapeControl } from '../../text/escape.js';
import { cutToCells } from '../../text/width.js';
import { commandFor, type Command } from '../model/keys.js';
import type { MonitorState } from '../model/monitor.js';
import type { QueueRef } from '../model/queue-ref.js';
import { columnForSortKey, shiftSort, sortBy } from '../model/sort.js';
import { counted } from '../model/format.js';
import { moveSelection } from '../model/viewport.js';
import { isStalled, STALLED_AFTER_SEC } from '../model/tones.js';
import { QueueList } from './QueueList.js';

export interface ListScreenProps {
  readonly keys: KeyRouter;
  readonly list: QueueListView;
  readonly monitor: MonitorState;
  readonly onOpen: (queue: QueueRef) => void;
  /** Commands for the app: quit, help, filter, interval, pause, refresh, actions. */
  readonly onCommand: (command: Command, queue: QueueRef | undefined) => void;
  readonly active: boolean;
  readonly width: number;
  /** The list bar and the list. */
  readonly height: number;
  readonly now: number;
}

/** An empty store: what to do about it (top itself creates nothing). */
export const NO_QUEUES = 'no queues yet · create one with: smq create <name> (and the --url or --sqlite given to top)';

export function ListScreen(p: ListScreenProps) {
  const { list } = p;
  const count = list.rows.length;
  const select = (i: number) => list.selectIndex(i);
  useKeyTarget(
    p.keys,
    (input, key) => {
      const cmd = commandFor('list', input, key);
      if (!cmd) return;
      switch (cmd.type) {
        case 'move':
          return select(moveSelection(list.selectedIndex, cmd.delta, count));
        case 'page':
          return select(moveSelection(list.selectedIndex, cmd.delta * Math.max(1, list.height - 2), count));
        case 'home':
          return select(0);
        case 'end':
          return select(count - 1);
        case 'open':
          if (list.selectedQueue) p.onOpen(list.selectedQueue);
          return;
        case 'back':
          // Esc on the list clears the filter.
          if (list.filterText !== '') list.setFilterText('');
          return;
        case 'sortShift':
          return list.setSort((s) => shiftSort(s, list.visibleColumnIds, cmd.step));
        case 'sortKey': {
          const column = columnForSortKey(cmd.key, list.visibleColumnIds);
          if (column) list.setSort((s) => sortBy(s, column));
          return;
        }
        default:
          p.onCommand(cmd, list.selectedQueue);
      }
    },
    // Keys typed before the first refresh (at start, or just after a switch of context) wait for the queues.
    { active: p.active, ready: p.monitor.refreshes > 0 },
  );

  const { filter, filterText } = list;
  const filterInfo = filter.ok
    ? filterText !== ''
      ? ` · filter /${escapeControl(filterText)}/`
      : ''
    : ` · filter /${escapeControl(filterText)}/: invalid regex: ${escapeControl(filter.error)} (showing all)`;
  const m = p.monitor;
  // Where the highlighted row is (28/201), and how many heads have stalled (said in words too:
  // colour alone does not reach every terminal).
  const position = count > 0 && list.selectedIndex >= 0 ? ` · ${list.selectedIndex + 1}/${count}` : '';
  const stalled = list.rows.filter(isStalled).length;
  const stalledInfo = stalled > 0 ? ` · ${stalled} stalled (head waiting ${STALLED_AFTER_SEC}s+, nothing leaving)` : '';
  return (
    <Box flexDirection="column" height={p.height}>
      <Text wrap="truncate-end" color={filter.ok ? undefined : 'red'}>
        {cutToCells(`${count} of ${counted(list.allRows.length, 'queue')}${position}${stalledInfo}${filterInfo}`, p.width)}
      </Text>
      <QueueList
        rows={list.rows}
        columns={list.columns}
        selected={list.selectedIndex}
        offset={list.offset}
        height={list.height}
        sort={list.sort}
        now={p.now}
        stale={m.outage !== undefined}
        emptyText={
          m.lastRefreshAt === undefined
            ? m.outage
              ? 'no data yet: the database is unreachable'
              : 'loading…'
            : list.allRows.length === 0
              ? NO_QUEUES
              : 'no queue matches the filter'
        }
      />
    </Box>
  );
}
