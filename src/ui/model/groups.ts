// The groups view of a queue: one row per FIFO group (the group-less lane included) and the
// group's state as a FIFO consumer sees it. Grouped reads hand out nothing of a group while
// its head is in flight (blocked); a head that keeps coming back (read again and again, each
// time past its visibility timeout) is the poison message of head-of-line blocking (stalled).
import type { GroupStats } from '../../backends/types.js';
import { escapeName } from '../../text/escape.js';
import { formatAge, formatCount, formatVisibleIn } from './format.js';
import type { TableColumn } from './table.js';
import type { Tone } from './tones.js';

/** A head read this many times (each read after the one before it ran out) has stalled its group. */
export const STALLED_READS = 3;

export type GroupState = 'ready' | 'blocked' | 'stalled' | 'delayed';

export interface GroupRow extends GroupStats {
  /** Unique per row: the group-less lane cannot be told apart by name alone. */
  readonly key: string;
  readonly state: GroupState;
  /** The group's name as shown (escaped); the group-less lane in words. */
  readonly label: string;
}

export const NO_GROUP_LABEL = '(no group)';

export function groupState(g: GroupStats): GroupState {
  if (g.headReadCount >= STALLED_READS) return 'stalled';
  if (g.headState === 'inflight') return 'blocked';
  return g.headState === 'delayed' ? 'delayed' : 'ready';
}

export function groupRows(groups: readonly GroupStats[]): GroupRow[] {
  return groups.map((g) => ({
    ...g,
    key: g.group === null ? '\u0000none' : `g:${g.group}`,
    state: groupState(g),
    label: g.group === null ? NO_GROUP_LABEL : groupLabel(g.group),
  }));
}

/** A group's name as shown: quoted where it would read as the lane, as nothing, or with edges of spaces. */
function groupLabel(name: string): string {
  const shown = escapeName(name);
  return shown === NO_GROUP_LABEL || shown.trim() !== shown || shown === '' ? `"${shown}"` : shown;
}

/** Colour by state (none under NO_COLOR: the STATE column says it in words). */
export function groupTone(row: GroupRow): Tone | undefined {
  if (row.state === 'stalled') return 'stalled';
  if (row.state === 'blocked') return 'inflight';
  if (row.state === 'delayed') return 'delayed';
  return undefined;
}

/** "5 groups: 1 stalled, 2 blocked" for the view's title. */
export function groupSummary(rows: readonly GroupRow[]): string {
  const count = (s: GroupState) => rows.filter((r) => r.state === s).length;
  const parts = [
    count('stalled') > 0 ? `${count('stalled')} stalled` : '',
    count('blocked') > 0 ? `${count('blocked')} blocked` : '',
  ].filter((p) => p !== '');
  // The lane of messages without a group is a row, not a group (the queue list counts groups).
  const lane = rows.some((r) => r.group === null);
  const groups = rows.length - (lane ? 1 : 0);
  const n =
    groups === 0 && lane
      ? 'messages without a group only'
      : `${groups} ${groups === 1 ? 'group' : 'groups'}${lane ? ' and messages without one' : ''}`;
  return parts.length > 0 ? `${n}: ${parts.join(', ')}` : n;
}

const STATE_ORDER: Record<GroupState, number> = { stalled: 3, blocked: 2, ready: 1, delayed: 0 };
const ageOf = (d: Date | null | undefined, now: number) => (d ? Math.max(0, (now - d.getTime()) / 1000) : null);

/** The groups view's columns; `lastReadAt`: the store keeps when the head was last read. */
export function groupColumns(now: number, lastReadAt: boolean): TableColumn<GroupRow>[] {
  const cols: TableColumn<GroupRow>[] = [
    {
      id: 'group',
      title: 'GROUP',
      width: 40,
      align: 'left',
      sortKey: 'N',
      text: (r) => r.label,
      value: (r) => r.group ?? '',
      dropOrder: 0,
      flexible: true,
    },
    {
      id: 'state',
      title: 'STATE',
      width: 8,
      align: 'left',
      sortKey: 'S',
      descByDefault: true,
      text: (r) => r.state,
      value: (r) => STATE_ORDER[r.state],
      dropOrder: 0,
    },
    {
      id: 'ready',
      title: 'READY',
      width: 6,
      align: 'right',
      sortKey: 'R',
      descByDefault: true,
      text: (r) => formatCount(r.ready),
      value: (r) => r.ready,
      dropOrder: 2,
    },
    {
      id: 'inFlight',
      title: 'IN FLIGHT',
      width: 10,
      align: 'right',
      sortKey: 'I',
      descByDefault: true,
      text: (r) => formatCount(r.inFlight),
      value: (r) => r.inFlight,
      dropOrder: 2,
    },
    {
      id: 'delayed',
      title: 'DELAYED',
      width: 8,
      align: 'right',
      sortKey: 'D',
      descByDefault: true,
      text: (r) => formatCount(r.delayed),
      value: (r) => r.delayed,
      dropOrder: 5,
    },
    {
      id: 'age',
      title: 'HEAD AGE',
      width: 9,
      align: 'right',
      sortKey: 'A',
      descByDefault: true,
      text: (r) => formatAge(ageOf(r.headEnqueuedAt, now)),
      value: (r) => ageOf(r.headEnqueuedAt, now),
      dropOrder: 1,
    },
    {
      id: 'reads',
      title: 'READS',
      width: 6,
      align: 'right',
      sortKey: 'C',
      descByDefault: true,
      text: (r) => String(r.headReadCount),
      value: (r) => r.headReadCount,
      dropOrder: 1,
    },
    {
      id: 'visible',
      title: 'VISIBLE',
      width: 8,
      align: 'right',
      text: (r) => (r.headVisibleAt ? formatVisibleIn(r.headVisibleAt, now) : '-'),
      value: (r) => r.headVisibleAt?.getTime() ?? null,
      dropOrder: 4,
    },
    {
      id: 'head',
      title: 'HEAD ID',
      width: 8,
      align: 'right',
      text: (r) => r.headId.toString(),
      value: (r) => Number(r.headId),
      dropOrder: 6,
    },
  ];
  if (lastReadAt) {
    const text = (r: GroupRow) => (r.headLastReadAt ? `${formatAge(ageOf(r.headLastReadAt, now))} ago` : '-');
    cols.push({
      id: 'lastRead',
      title: 'LAST READ',
      width: 10,
      align: 'right',
      sortKey: 'L',
      text,
      value: (r) => ageOf(r.headLastReadAt, now),
      dropOrder: 3,
    });
  }
  return cols;
}

/** Rows are first sorted as pgmq serves the groups: oldest head first. */
export const DEFAULT_GROUP_SORT = { column: 'age', desc: true } as const;
