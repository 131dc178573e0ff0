// The state of the queue list between refreshes: filter, sort, the selected queue (kept by
// key, so it stays on its queue when rows move) and the scroll offset; the rows to show
// and their columns are derived from them and the last refresh.
import { useMemo, useRef, useState } from 'react';
import type { Capabilities } from '../../backends/types.js';
import { availableColumns, layoutColumns, type ColumnId, type LaidOutColumn } from '../model/columns.js';
import { queueRefOf, type QueueRef } from '../model/queue-ref.js';
import { distinctTenants, hasGroups, type QueueRow } from '../model/rows.js';
import { compileFilter, DEFAULT_SORT, filterRows, sortRows, type CompiledFilter, type SortState } from '../model/sort.js';
import { indexOfKey, scrollOffset } from '../model/viewport.js';
import { GUTTER_WIDTH } from '../components/QueueList.js';
import { displayName } from '../model/format.js';
import { cellWidth } from '../../text/width.js';

export interface QueueListView {
  /** Every queue of the refresh (of the tenant asked for). */
  readonly allRows: readonly QueueRow[];
  /** Filtered and sorted: what the list shows. */
  readonly rows: readonly QueueRow[];
  readonly filterText: string;
  readonly setFilterText: (text: string) => void;
  readonly filter: CompiledFilter;
  readonly sort: SortState;
  readonly setSort: (change: (s: SortState) => SortState) => void;
  readonly columns: readonly LaidOutColumn[];
  readonly visibleColumnIds: readonly ColumnId[];
  /** More than one tenant is listed, so names alone are ambiguous. */
  readonly showTenant: boolean;
  readonly selectedIndex: number;
  readonly selectedQueue: QueueRef | undefined;
  /** Selects the row at this index of `rows` (clamped by the caller). */
  readonly selectIndex: (index: number) => void;
  /** First row on screen. */
  readonly offset: number;
  /** Lines for rows (the list's title line included). */
  readonly height: number;
}

export function useQueueList(
  refreshed: readonly QueueRow[],
  options: { tenantFilter: string | undefined; capabilities: Capabilities; width: number; height: number },
): QueueListView {
  const [sort, setSort] = useState<SortState>(DEFAULT_SORT);
  const [filterText, setFilterText] = useState('');
  const [selectedKey, setSelectedKey] = useState<string | undefined>(undefined);
  const offset = useRef(0);
  const { tenantFilter, capabilities, width, height } = options;

  const filter = useMemo(() => compileFilter(filterText), [filterText]);
  const allRows = useMemo(
    () => (tenantFilter === undefined ? refreshed : refreshed.filter((r) => r.tenant === tenantFilter)),
    [refreshed, tenantFilter],
  );
  const showTenant = distinctTenants(allRows) > 1;
  const grouped = hasGroups(allRows);
  const columnIds = useMemo(() => availableColumns(capabilities, showTenant, grouped), [capabilities, showTenant, grouped]);
  // NAME as wide as the longest name (of every queue, so that filtering does not shift columns).
  const nameCells = useMemo(() => Math.max(0, ...allRows.map((r) => cellWidth(displayName(r.name)))), [allRows]);
  const columns = useMemo(() => layoutColumns(columnIds, width - GUTTER_WIDTH, nameCells), [columnIds, width, nameCells]);
  const rows = useMemo(() => sortRows(filterRows(allRows, filter), sort), [allRows, filter, sort]);
  const keys = rows.map((r) => r.key);
  const selectedIndex = indexOfKey(keys, selectedKey, 0);
  const selectedRow = selectedIndex >= 0 ? rows[selectedIndex] : undefined;
  offset.current = scrollOffset(selectedIndex, offset.current, Math.max(1, height - 1), rows.length);

  return {
    allRows,
    rows,
    filterText,
    setFilterText,
    filter,
    sort,
    setSort,
    columns,
    visibleColumnIds: columns.map((c) => c.spec.id),
    showTenant,
    selectedIndex,
    selectedQueue: selectedRow ? queueRefOf(selectedRow, showTenant) : undefined,
    selectIndex: (i) => setSelectedKey(keys[i]),
    offset: offset.current,
    height,
  };
}
