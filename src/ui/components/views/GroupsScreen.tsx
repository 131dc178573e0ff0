// A queue's FIFO groups (pgmq 1.9+): one row per group, the group-less lane included, with
// its messages, its head and its state (blocked: the head is in flight; stalled: the head
// was read STALLED_READS times or more), read again every refresh interval. Enter opens the
// group's messages.
import type { Backend, Capabilities } from '../../../backends/types.js';
import { useLiveLoad, type LiveOptions } from '../../hooks/useMessages.js';
import type { KeyRouter } from '../../hooks/useKeys.js';
import { DEFAULT_GROUP_SORT, groupColumns, groupRows, groupSummary, groupTone, STALLED_READS, type GroupRow } from '../../model/groups.js';
import type { QueueRef } from '../../model/queue-ref.js';
import type { ViewCommand } from '../../model/view-keys.js';
import { TableView } from './TableView.js';

export interface GroupsScreenProps {
  readonly backend: Backend;
  readonly capabilities: Capabilities;
  readonly queue: QueueRef;
  readonly live: LiveOptions;
  readonly keys: KeyRouter;
  readonly active: boolean;
  readonly width: number;
  readonly height: number;
  readonly now: number;
  /** Enter: the queue view of this group (null: the group-less lane). */
  readonly onOpenGroup: (group: string | null) => void;
  /** Back, help, refresh, interval, quit. */
  readonly onCommand: (command: ViewCommand) => void;
}

export function GroupsScreen(p: GroupsScreenProps) {
  const { backend, queue } = p;
  const { value, error, reload, current } = useLiveLoad(
    async () => groupRows(backend.groups ? await backend.groups(queue.rawName) : []),
    [backend, queue.rawName],
    p.live,
  );
  const rows = value;
  const summary = rows ? ` · ${groupSummary(rows)}` : '';
  return (
    <TableView<GroupRow>
      screen="groups"
      title={[queue.label, ' · FIFO groups', `${summary} · stalled: head read ${STALLED_READS}+ times`]}
      rows={rows}
      columns={groupColumns(p.now, p.capabilities.lastReadAt)}
      defaultSort={DEFAULT_GROUP_SORT}
      tone={groupTone}
      filterOf={(r) => [r.label, r.group ?? '']}
      noun="group"
      emptyText="no messages, so no groups"
      error={error}
      onCommand={(cmd, row) => {
        if (cmd.type === 'open') {
          if (row) p.onOpenGroup(row.group);
          return;
        }
        if (cmd.type === 'refresh') reload();
        p.onCommand(cmd);
      }}
      keys={p.keys}
      active={p.active}
      ready={current || error !== undefined}
      width={p.width}
      height={p.height}
    />
  );
}
