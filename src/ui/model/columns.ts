// Columns of the queue list, which ones a backend has, and which to drop when the
// terminal is too narrow for all of them.
import type { Capabilities } from '../../backends/types.js';

export const COLUMN_IDS = [
  'tenant',
  'name',
  'ready',
  'inFlight',
  'delayed',
  'total',
  'groups',
  'oldest',
  'in',
  'out',
  'archived',
  'failed',
  'notify',
  'spark',
] as const;
export type ColumnId = (typeof COLUMN_IDS)[number];

export interface ColumnSpec {
  readonly id: ColumnId;
  readonly title: string;
  /** Fixed width; NAME takes what is left, between minWidth and maxWidth. */
  readonly width: number;
  readonly minWidth?: number;
  readonly maxWidth?: number;
  readonly align: 'left' | 'right';
  /** Lower is more important; the highest goes first when space runs out. NAME never goes. */
  readonly dropOrder: number;
  /** Sorting on this column by default puts the largest first. */
  readonly descByDefault: boolean;
  /** Shift-key that sorts by this column (`<`/`>` reach every column). */
  readonly sortKey?: string;
}

export const SPARK_WIDTH = 15;
/** The sparkline is never narrower than its title (DEPTH 1m). */
const SPARK_MIN_WIDTH = 8;
/** Below this NAME takes the sparkline's room altogether. */
const NAME_COMFORT = 20;

const SPECS: Record<ColumnId, ColumnSpec> = {
  tenant: { id: 'tenant', title: 'TENANT', width: 8, align: 'left', dropOrder: 3, descByDefault: false, sortKey: 'E' },
  name: {
    id: 'name',
    title: 'NAME',
    width: 0,
    minWidth: 14,
    maxWidth: 48,
    align: 'left',
    dropOrder: 0,
    descByDefault: false,
    sortKey: 'N',
  },
  ready: { id: 'ready', title: 'READY', width: 8, align: 'right', dropOrder: 1, descByDefault: true, sortKey: 'R' },
  inFlight: { id: 'inFlight', title: 'IN FLIGHT', width: 9, align: 'right', dropOrder: 2, descByDefault: true, sortKey: 'I' },
  delayed: { id: 'delayed', title: 'DELAYED', width: 8, align: 'right', dropOrder: 7, descByDefault: true, sortKey: 'D' },
  total: { id: 'total', title: 'TOTAL', width: 8, align: 'right', dropOrder: 2, descByDefault: true, sortKey: 'T' },
  // FIFO groups: shown only where some queue has grouped messages (whose users care), so it
  // may push DELAYED out on 80 columns; no capital key (G is the end), `<`/`>` reach it.
  groups: { id: 'groups', title: 'GROUPS', width: 7, align: 'right', dropOrder: 3, descByDefault: true },
  oldest: { id: 'oldest', title: 'OLDEST', width: 7, align: 'right', dropOrder: 4, descByDefault: true, sortKey: 'O' },
  in: { id: 'in', title: 'IN/s', width: 7, align: 'right', dropOrder: 5, descByDefault: true },
  out: { id: 'out', title: 'OUT/s', width: 7, align: 'right', dropOrder: 5, descByDefault: true },
  archived: { id: 'archived', title: 'ARCHIVED', width: 8, align: 'right', dropOrder: 8, descByDefault: true, sortKey: 'A' },
  failed: { id: 'failed', title: 'FAILED', width: 7, align: 'right', dropOrder: 6, descByDefault: true, sortKey: 'F' },
  // Insert notifications on (pgmq 1.7+): a setting, not a count: it goes right after the
  // sparkline (the queue view's title says it too).
  notify: { id: 'notify', title: 'NOTIFY', width: 6, align: 'left', dropOrder: 8.5, descByDefault: true },
  spark: { id: 'spark', title: 'DEPTH 1m', width: SPARK_WIDTH, align: 'left', dropOrder: 9, descByDefault: false },
};

export function columnSpec(id: ColumnId): ColumnSpec {
  return SPECS[id];
}

/** The capital keys that sort by these columns, with the columns' titles. */
export function sortKeysOf(ids: readonly ColumnId[]): { key: string; title: string }[] {
  return ids.flatMap((id) => {
    const s = SPECS[id];
    return s.sortKey ? [{ key: s.sortKey, title: s.title }] : [];
  });
}

/**
 * The columns this backend has, in display order: GROUPS only where the store has FIFO
 * groups and some queue's messages carry them (`grouped`), NOTIFY where it has insert
 * notifications.
 */
export function availableColumns(capabilities: Capabilities, showTenant: boolean, grouped = false): ColumnId[] {
  return COLUMN_IDS.filter((id) => {
    if (id === 'tenant') return showTenant;
    if (id === 'archived') return capabilities.archive;
    if (id === 'failed') return capabilities.failedState;
    if (id === 'groups') return capabilities.groups && grouped;
    if (id === 'notify') return capabilities.notifyInsert;
    return true;
  });
}

export interface LaidOutColumn {
  readonly spec: ColumnSpec;
  readonly width: number;
}

/** One space between columns. */
export const COLUMN_GAP = 1;

/** A sortable column is wide enough for its title and the sort arrow (▲/▼) beside it. */
export function columnWidth(id: ColumnId): number {
  const spec = SPECS[id];
  return Math.max(spec.width, spec.title.length + (spec.sortKey ? 1 : 0));
}

/**
 * Fits columns into `totalWidth`: drops the least important ones until the rest fit, NAME
 * only as wide as the longest name (`nameCells`, between its title and maxWidth): room
 * left over stays at the end of the line instead of padding NAME.
 */
export function layoutColumns(ids: readonly ColumnId[], totalWidth: number, nameCells: number = SPECS.name.minWidth!): LaidOutColumn[] {
  const nameWanted = Math.min(SPECS.name.maxWidth!, Math.max(SPECS.name.title.length + 1, nameCells));
  // Columns go before NAME is cut below NAME_COMFORT (a cut name is the worst loss: it is what the row is).
  const nameMin = Math.min(Math.max(SPECS.name.minWidth!, NAME_COMFORT), nameWanted);
  let kept = [...ids];
  // The sparkline counts at its narrowest here: it narrows before anything goes.
  const least = (id: ColumnId) => (id === 'name' ? nameMin : id === 'spark' ? SPARK_MIN_WIDTH : columnWidth(id));
  const need = (cols: readonly ColumnId[]) => cols.reduce((sum, id) => sum + least(id), 0) + COLUMN_GAP * Math.max(0, cols.length - 1);
  while (need(kept) > totalWidth && kept.length > 1) {
    // The highest dropOrder goes; on a tie the rightmost.
    let victim = -1;
    for (let i = 0; i < kept.length; i++) {
      const id = kept[i]!;
      if (id === 'name') continue;
      if (victim < 0 || SPECS[id].dropOrder >= SPECS[kept[victim]!].dropOrder) victim = i;
    }
    if (victim < 0) break;
    kept = kept.filter((_, i) => i !== victim);
  }
  // Room left over goes to NAME first (up to its longest name), then to the sparkline.
  const fixed = need(kept) - (kept.includes('name') ? nameMin : 0);
  const nameWidth = Math.max(nameMin, Math.min(nameWanted, totalWidth - fixed));
  const spare = Math.max(0, totalWidth - fixed - (kept.includes('name') ? nameWidth : 0));
  const sparkWidth = Math.min(columnWidth('spark'), SPARK_MIN_WIDTH + spare);
  return kept.map((id) => ({ spec: SPECS[id], width: id === 'name' ? nameWidth : id === 'spark' ? sparkWidth : columnWidth(id) }));
}
