// What top does with a command of a screen (the keys every screen shares; a screen's own
// keys are handled by the screen) and with the screens' requests to open a queue, a queue
// named by a topic binding, or a typed message id. TopApp owns the state; this acts on it.
import { useState, type Dispatch, type SetStateAction } from 'react';
import type { Capabilities, Message } from '../../backends/types.js';
import { lacking } from '../../backends/index.js';
import { escapeControl, escapeName } from '../../text/escape.js';
import { parseMessageId } from '../../text/ids.js';
import { formatInterval } from '../model/format.js';
import { stepInterval } from '../model/interval.js';
import type { Command } from '../model/keys.js';
import { errorText } from '../model/monitor.js';
import type { NavigationEvent, ScreenEntry } from '../model/navigation.js';
import { queueRefOf, type QueueRef } from '../model/queue-ref.js';
import { rowNamed } from '../model/rows.js';
import type { ViewCommand } from '../model/view-keys.js';
import type { ContextPicker } from './useContextPicker.js';
import { opsContextOf, type Ops } from './useOps.js';
import type { QueueActions, Say } from './useQueueActions.js';
import type { QueueListView } from './useQueueList.js';
import type { Search } from './useSearch.js';
import type { TenantBackends } from './useTenantBackends.js';
import type { TopCommands } from './useTopCommands.js';

export interface CommandDispatchOptions {
  /** The screen on top (model/navigation). */
  readonly top: ScreenEntry;
  readonly dispatch: Dispatch<NavigationEvent>;
  readonly capabilities: Capabilities;
  /** Lines of the screen between header and footer: a queue view opens with a page that fits. */
  readonly bodyHeight: number;
  /** The queue whose details are drawn over the list. */
  readonly details: QueueRef | undefined;
  readonly setDetails: (queue: QueueRef | undefined) => void;
  readonly intervalMs: number;
  readonly setIntervalMs: (ms: number) => void;
  readonly setPaused: Dispatch<SetStateAction<boolean>>;
  readonly say: Say;
  readonly quit: () => void;
  readonly refreshList: () => void;
  readonly extra: TopCommands;
  readonly ops: Ops;
  readonly actions: QueueActions;
  readonly tenants: TenantBackends;
  readonly search: Search;
  readonly picker: ContextPicker;
  readonly list: QueueListView;
}

export interface CommandDispatch {
  /** A queue is being opened: keys typed after Enter are for the queue view, they wait for it. */
  readonly opening: boolean;
  readonly onCommand: (cmd: Command, queue: QueueRef | undefined, message: Message | undefined) => void;
  /** A command of the queue view or the message detail (the queue is the one on top). */
  readonly onScreenCommand: (cmd: Command, message: Message | undefined) => void;
  /** A command of a side view (groups, topics). */
  readonly onViewCommand: (cmd: ViewCommand) => void;
  readonly openQueue: (queue: QueueRef, group?: string | null) => Promise<void>;
  /** A topic binding's queue, from the list's rows. */
  readonly openBoundQueue: (name: string) => void;
  /** The queue on top from this message id (the jump prompt's text). */
  readonly jump: (text: string) => void;
}

export function useCommandDispatch(o: CommandDispatchOptions): CommandDispatch {
  const { top, dispatch, details, say, extra, ops, actions, tenants, search, list } = o;
  const caps = o.capabilities;
  const [opening, setOpening] = useState(false);

  const openQueue = async (queue: QueueRef, group?: string | null) => {
    setOpening(true); // keys typed after Enter are for the queue view: they wait for it
    try {
      await tenants.resolveBackend(queue);
      dispatch({ type: 'openQueue', queue, pageSize: Math.max(1, o.bodyHeight - 2), ...(group === undefined ? {} : { group }) });
    } catch (e) {
      say(`cannot open ${queue.label}: ${errorText(e)}`, 'error');
    } finally {
      setOpening(false);
    }
  };

  // Commands every screen shares; a screen's own keys are handled by the screen.
  const onCommand = (cmd: Command, queue: QueueRef | undefined, message: Message | undefined) => {
    if (extra.handle(cmd, queue, message, top.kind === 'list' && !details)) return;
    switch (cmd.type) {
      case 'quit':
        return o.quit();
      case 'help':
        return dispatch({ type: 'openModal', modal: { kind: 'help' } });
      case 'filter':
        if (top.kind === 'list') dispatch({ type: 'openModal', modal: { kind: 'filter' } });
        return;
      case 'jump':
        if (top.kind !== 'list') dispatch({ type: 'openModal', modal: { kind: 'jump' } });
        return;
      case 'open':
        if (top.kind === 'queue' && message) dispatch({ type: 'openMessage', id: message.id });
        return;
      case 'interval': {
        const next = stepInterval(o.intervalMs, cmd.direction);
        o.setIntervalMs(next);
        return say(`refresh every ${formatInterval(next)}`);
      }
      case 'pause':
        return o.setPaused((p) => !p);
      case 'refresh':
        return o.refreshList();
      case 'back':
        return dispatch({ type: 'back' });
      case 'action': {
        const ctx = opsContextOf(top, message);
        if (ctx && (cmd.action === 'delete' || cmd.action === 'archive' || cmd.action === 'makeVisible') && ops.bulk(cmd.action, ctx))
          return;
        return actions.request(cmd.action, queue, message);
      }
      case 'details':
        if (top.kind !== 'list' || !queue) return;
        void tenants.resolveBackend(queue).then(
          (b) => (b.queueDetails ? o.setDetails(queue) : say('this store has no queue details', 'error')),
          (e: unknown) => say(`cannot open ${queue.label}: ${errorText(e)}`, 'error'),
        );
        return;
      case 'search':
        if (top.kind !== 'queue') return;
        if (top.source === 'archive') return say('search works in the live queue: Esc, then /', 'error');
        if (!tenants.backendOf(top.queue)?.searchMessages) return say('this store cannot search messages', 'error');
        return search.open(top.queue.key);
      case 'view': {
        // Only what the store has: a side view it lacks says so in one line.
        const feature = cmd.view === 'groups' ? 'groups' : 'topics';
        if (!caps[feature]) return say(errorText(lacking(feature)), 'error');
        if (cmd.view === 'groups') dispatch({ type: 'openGroups' });
        else dispatch({ type: 'openTopics' });
        return;
      }
      case 'contexts':
        return o.picker.open();
      case 'mark':
      case 'markAll':
      case 'markReads':
      case 'clearMarks':
      case 'moveTo':
      case 'restore':
      case 'export':
      case 'archiveView': {
        const ctx = opsContextOf(top, message);
        if (ctx) ops.command(cmd, ctx);
        return;
      }
    }
  };
  const onScreenCommand = (cmd: Command, message: Message | undefined) => {
    if (top.kind === 'queue' || top.kind === 'message') onCommand(cmd, top.queue, message);
  };
  const onViewCommand = (cmd: ViewCommand) => {
    if (cmd.type !== 'testRoute') onCommand(cmd, undefined, undefined);
  };
  // A binding's queue, from the list's rows (a queue the list does not have cannot be opened).
  const openBoundQueue = (name: string) => {
    const row = rowNamed(list.allRows, name);
    if (!row) return say(`queue ${escapeName(name)} is not in the list`, 'error');
    void openQueue(queueRefOf(row, list.showTenant));
  };
  const jump = (text: string) => {
    const parsed = parseMessageId(text.trim()); // typed text: spaces around the id do no harm
    if (!parsed.ok) return say(`not a message id: ${escapeControl(text)}`, 'error');
    dispatch({ type: 'jump', id: parsed.id });
    say(`from message ${parsed.id}`);
  };
  return { opening, onCommand, onScreenCommand, onViewCommand, openQueue, openBoundQueue, jump };
}
