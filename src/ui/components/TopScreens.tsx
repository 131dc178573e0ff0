// The screen between top's header and footer: the context picker, the help, a queue's
// details over the list, the list, a queue's search, the queue view, its groups, the topic
// bindings or a message. Which one comes from where top is (model/navigation) and what is
// drawn over it; this only picks and wires it, the screens display.
import type { Dispatch } from 'react';
import type { Backend, Capabilities } from '../../backends/types.js';
import type { CommandDispatch } from '../hooks/useCommandDispatch.js';
import type { ContextPicker } from '../hooks/useContextPicker.js';
import type { ContextsControl } from '../hooks/useContexts.js';
import type { KeyRouter } from '../hooks/useKeys.js';
import type { LiveOptions } from '../hooks/useMessages.js';
import type { Ops } from '../hooks/useOps.js';
import type { Say } from '../hooks/useQueueActions.js';
import type { QueueListView } from '../hooks/useQueueList.js';
import type { Search } from '../hooks/useSearch.js';
import type { TenantBackends } from '../hooks/useTenantBackends.js';
import { sortKeysOf } from '../model/columns.js';
import type { MonitorState } from '../model/monitor.js';
import { topScreen, type Navigation, type NavigationEvent } from '../model/navigation.js';
import type { QueueRef } from '../model/queue-ref.js';
import { viewHelp } from '../model/view-keys.js';
import { Help } from './Help.js';
import { ListScreen } from './ListScreen.js';
import { MessageScreen } from './MessageScreen.js';
import { QueueScreen } from './QueueScreen.js';
import { ContextsScreen } from './views/ContextsScreen.js';
import { DetailsScreen } from './views/DetailsScreen.js';
import { GroupsScreen } from './views/GroupsScreen.js';
import { SearchScreen } from './views/SearchScreen.js';
import { TopicsScreen } from './views/TopicsScreen.js';

/** What every screen gets. */
export interface ScreenCommon {
  readonly keys: KeyRouter;
  readonly capabilities: Capabilities;
  readonly live: LiveOptions;
  readonly width: number;
  readonly height: number;
  /** No prompt is open: the keys are the screen's. */
  readonly active: boolean;
  readonly now: number;
}

export interface TopScreensProps {
  readonly common: ScreenCommon;
  /** The main backend: the topic bindings, and a queue's details while its tenant's is opening. */
  readonly backend: Backend;
  readonly nav: Navigation;
  readonly dispatch: Dispatch<NavigationEvent>;
  readonly readOnly: boolean;
  readonly contexts: ContextsControl | undefined;
  readonly picker: ContextPicker;
  readonly list: QueueListView;
  readonly monitor: MonitorState;
  readonly tenants: TenantBackends;
  readonly search: Search;
  /** The search of the queue on top is shown. */
  readonly searching: boolean;
  readonly ops: Pick<Ops, 'isMarkedIn' | 'marksTextOf'>;
  /** The queue whose details are drawn over the list. */
  readonly details: QueueRef | undefined;
  readonly setDetails: (queue: QueueRef | undefined) => void;
  readonly reloadToken: number;
  readonly commands: CommandDispatch;
  readonly say: Say;
  readonly closeHelp: () => void;
}

export function TopScreens(p: TopScreensProps) {
  const { common, backend, dispatch, list, tenants, search, ops, details, setDetails } = p;
  const { keys, capabilities: caps, width, height, active, now } = common;
  const { onCommand, onScreenCommand, onViewCommand, openQueue, openBoundQueue } = p.commands;
  const top = topScreen(p.nav);
  const { modal } = p.nav;
  const screenBackend = top.kind === 'list' || top.kind === 'topics' ? undefined : tenants.backendOf(top.queue);
  if (p.picker.isOpen && p.contexts) {
    return <ContextsScreen keys={keys} contexts={p.contexts} picker={p.picker} width={width} height={height} />;
  }
  if (modal?.kind === 'help') {
    const helpProps = {
      screen: top.kind,
      readOnly: p.readOnly,
      archive: caps.archive,
      failedState: caps.failedState,
      archiveView: top.kind === 'queue' && top.source === 'archive',
      sortKeys: sortKeysOf(list.visibleColumnIds),
      groups: caps.groups,
      topics: caps.topics,
      entries: top.kind === 'groups' || top.kind === 'topics' ? viewHelp(top.kind, caps.lastReadAt) : undefined,
    };
    return <Help keys={keys} {...helpProps} height={height} width={width} onClose={p.closeHelp} />;
  }
  if (top.kind === 'list' && details) {
    return (
      <DetailsScreen
        {...common}
        key={`${details.key}/details`}
        backend={tenants.backendOf(details) ?? backend}
        queue={details}
        onClose={() => setDetails(undefined)}
        onOpen={() => {
          setDetails(undefined);
          void openQueue(details);
        }}
        onCommand={(cmd) => onCommand(cmd, details, undefined)}
      />
    );
  }
  if (top.kind === 'list') {
    return (
      <ListScreen
        keys={keys}
        list={list}
        monitor={p.monitor}
        onOpen={(q) => void openQueue(q)}
        onCommand={(cmd, q) => onCommand(cmd, q, undefined)}
        active={active}
        width={width}
        height={height}
        now={now}
      />
    );
  }
  if (top.kind === 'queue' && screenBackend && p.searching && search.state) {
    const found = search.state;
    return (
      <SearchScreen
        {...common}
        search={found}
        queue={top.queue}
        stats={list.allRows.find((r) => r.key === top.queue.key)?.stats}
        onSubmit={(text) => search.start(screenBackend, top.queue, text)}
        onCancel={search.cancel}
        onClose={search.close}
        onAgain={() => search.open(top.queue.key)}
        onSelect={search.select}
        onOpen={(i) => {
          const m = found.matches[i];
          if (m) dispatch({ type: 'openMessage', id: m.id });
        }}
        onCommand={(cmd) => onCommand(cmd, top.queue, undefined)}
        onElsewhere={(text) => p.say(text)}
      />
    );
  }
  if (top.kind === 'queue' && screenBackend) {
    return (
      <QueueScreen
        {...common}
        key={`${top.queue.key}/${top.source ?? 'queue'}`}
        backend={screenBackend}
        queue={top.queue}
        source={top.source}
        isMarked={ops.isMarkedIn(top.queue, top.source ?? 'queue')}
        marksText={ops.marksTextOf(top.queue, top.source ?? 'queue')}
        row={list.allRows.find((r) => r.key === top.queue.key)}
        paging={top.paging}
        selected={top.selected}
        onChange={(paging, selected) => dispatch({ type: 'paged', paging, selected })}
        onCommand={onScreenCommand}
        reloadToken={p.reloadToken}
        say={p.say}
      />
    );
  }
  if (top.kind === 'groups' && screenBackend) {
    return (
      <GroupsScreen
        {...common}
        key={`${top.queue.key}/groups`}
        backend={screenBackend}
        queue={top.queue}
        onOpenGroup={(group) => void openQueue(top.queue, group)}
        onCommand={onViewCommand}
      />
    );
  }
  if (top.kind === 'topics') {
    return <TopicsScreen {...common} key="topics" backend={backend} onOpenQueue={openBoundQueue} onCommand={onViewCommand} />;
  }
  if (top.kind === 'message' && screenBackend) {
    return (
      <MessageScreen
        {...common}
        key={`${top.queue.key}/${top.id}`}
        backend={screenBackend}
        queue={top.queue}
        id={top.id}
        source={top.source}
        onCommand={onScreenCommand}
        reloadToken={p.reloadToken}
      />
    );
  }
  return null;
}
