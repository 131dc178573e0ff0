// The queue list table. Display only: rows arrive sorted, filtered and laid out.
import { Box, Text } from 'ink';
import { COLUMN_GAP, type LaidOutColumn } from '../model/columns.js';
import { fitText } from '../model/format.js';
import { sparkline } from '../model/history.js';
import type { QueueRow } from '../model/rows.js';
import { cellText } from '../model/snapshot.js';
import type { SortState } from '../model/sort.js';
import { queueCellTone, TONE_COLOR } from '../model/tones.js';

export interface QueueListProps {
  readonly rows: readonly QueueRow[];
  readonly columns: readonly LaidOutColumn[];
  readonly selected: number;
  readonly offset: number;
  readonly height: number;
  readonly sort: SortState;
  readonly now: number;
  /** Data is from before an outage: shown dimmed. */
  readonly stale: boolean;
  readonly emptyText: string;
}

const gap = ' '.repeat(COLUMN_GAP);
/** The selected row is marked in text too, for terminals (and screen captures) without inverse video. */
export const GUTTER_SELECTED = '› ';
export const GUTTER_BLANK = '  ';
export const GUTTER_WIDTH = 2;

export function QueueList(p: QueueListProps) {
  const title = p.columns
    .map((c) => {
      const mark = p.sort.column === c.spec.id ? (p.sort.desc ? '▼' : '▲') : '';
      return fitText(c.spec.title + mark, c.width, c.spec.align);
    })
    .join(gap);
  const visible = p.rows.slice(p.offset, p.offset + Math.max(0, p.height - 1));
  return (
    <Box flexDirection="column" height={p.height}>
      <Text bold underline wrap="truncate-end">
        {GUTTER_BLANK + title}
      </Text>
      {p.rows.length === 0 ? <Text dimColor>{p.emptyText}</Text> : null}
      {visible.map((row, i) => {
        const isSelected = p.offset + i === p.selected;
        return (
          <Text key={row.key} inverse={isSelected} dimColor={p.stale && !isSelected} wrap="truncate-end">
            {isSelected ? GUTTER_SELECTED : GUTTER_BLANK}
            {p.columns.map((c, j) => {
              const text =
                c.spec.id === 'spark' ? sparkline(row.depth, c.width, p.now) : fitText(cellText(row, c.spec.id), c.width, c.spec.align);
              const tone = p.stale ? undefined : queueCellTone(row, c.spec.id);
              return (
                <Text key={c.spec.id} color={tone ? TONE_COLOR[tone] : undefined}>
                  {(j > 0 ? gap : '') + text}
                </Text>
              );
            })}
          </Text>
        );
      })}
    </Box>
  );
}
