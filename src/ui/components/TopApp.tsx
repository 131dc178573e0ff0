// smq top: the queue list, the queue view and the message detail, with the prompts that
// guard every action. This component wires state to screens: where top is comes from the
// navigation reducer (../model/navigation), data from the hooks (list refresh, tenant
// backends, actions), calculations from ../model; the screens and prompts only display.
import { useCallback, useEffect, useMemo, useReducer, useRef, useState, type ReactNode } from 'react';
import { Box, useApp } from 'ink';
import { useKeyRouter, type KeyRouter } from '../hooks/useKeys.js';
import type { Backend } from '../../backends/types.js';
import { INITIAL_NAVIGATION, navigate, topScreen } from '../model/navigation.js';
import type { QueueRef } from '../model/queue-ref.js';
import { sumRates } from '../model/rates.js';
import { totalsOf } from '../model/rows.js';
import { clampInterval } from '../model/interval.js';
import { useQueueActions } from '../hooks/useQueueActions.js';
import { useOps } from '../hooks/useOps.js';
import { useCommandDispatch } from '../hooks/useCommandDispatch.js';
import { OpsPrompt } from './OpsPrompt.js';
import { useQueueList } from '../hooks/useQueueList.js';
import { useQueueMonitor } from '../hooks/useQueueMonitor.js';
import { useTenantBackends } from '../hooks/useTenantBackends.js';
import { useTerminalSize, type TerminalSize } from '../hooks/useTerminalSize.js';
import { Footer, FOOTER_LINES } from './Footer.js';
import { useNotice } from '../hooks/useNotice.js';
import { footerHints } from '../model/footer-hints.js';
import { sortKeysOf } from '../model/columns.js';
import { Header, HEADER_LINES } from './Header.js';
import { Help } from './Help.js';
import { ListScreen } from './ListScreen.js';
import { MessageScreen } from './MessageScreen.js';
import { ModalPrompt } from './Prompts.js';
import { QueueScreen } from './QueueScreen.js';
import { GroupsScreen } from './views/GroupsScreen.js';
import { TopicsScreen } from './views/TopicsScreen.js';
import { SearchScreen } from './views/SearchScreen.js';
import { DetailsScreen } from './views/DetailsScreen.js';
import { useSearch } from '../hooks/useSearch.js';
import { useTopCommands } from '../hooks/useTopCommands.js';
import { viewHelp } from '../model/view-keys.js';
import { useContextPicker } from '../hooks/useContextPicker.js';
import type { ContextsControl } from '../hooks/useContexts.js';
import { ContextsScreen } from './views/ContextsScreen.js';

export interface TopAppProps {
  readonly backend: Backend;
  /**
   * SmoothMQ lists every tenant's queues but acts on one tenant per connection: this opens
   * (and caches) the backend of another tenant. Without it the main backend is used.
   */
  readonly backendForTenant?: (tenant: number) => Promise<Backend>;
  /** The connection, password masked. */
  readonly connection: string;
  readonly intervalMs: number;
  /** Actions are off (the backend itself was opened read-only too). */
  readonly readOnly: boolean;
  /** Why (--read-only, or a role / file that may only read); shown in the header. */
  readonly readOnlyReason?: string | undefined;
  readonly exactThreshold?: number | undefined;
  /** Quit after this many refreshes of the list (-n). */
  readonly maxRefreshes?: number | undefined;
  /**
   * Only this tenant's queues (pgmq: queues of SmoothMQ's pgmq driver, named
   * tnt_<tenant>_<name>; on SQLite the backend itself is opened for one tenant).
   */
  readonly tenantFilter?: string | undefined;
  /** Fixed size (tests); otherwise the terminal's, following resizes. */
  readonly size?: TerminalSize | undefined;
  /** Called once when top quits (q, Ctrl-C, -n reached). */
  readonly onExit?: (() => void) | undefined;
  /** Several stores (ContextsTop): `:` picks another; the header names the current one. */
  readonly contexts?: ContextsControl | undefined;
  /** The keyboard queue, kept across a switch of context (ContextsTop); else TopApp's own. */
  readonly keyRouter?: KeyRouter | undefined;
}

export function TopApp(props: TopAppProps) {
  const { backend, readOnly } = props;
  const caps = backend.capabilities;
  const { exit } = useApp();
  const size = useTerminalSize(props.size);

  const [intervalMs, setIntervalMs] = useState(() => clampInterval(props.intervalMs));
  const [paused, setPaused] = useState(false);
  const [nav, dispatch] = useReducer(navigate, INITIAL_NAVIGATION);
  const [status, say] = useNotice();
  const picker = useContextPicker(props.contexts, say);

  const bodyHeight = Math.max(3, size.rows - 1 - HEADER_LINES - FOOTER_LINES);
  const monitor = useQueueMonitor(backend, { intervalMs, paused, exactThreshold: props.exactThreshold });
  const { state } = monitor;
  const tenants = useTenantBackends(backend, props.backendForTenant);
  const actions = useQueueActions({
    readOnly,
    readOnlyReason: props.readOnlyReason,
    capabilities: caps,
    resolveBackend: tenants.resolveBackend,
    navigate: dispatch,
    say,
    refreshList: monitor.refreshNow,
  });
  const search = useSearch();
  const extra = useTopCommands({ ...props, resolveBackend: tenants.resolveBackend, say, refreshList: monitor.refreshNow });
  const [details, setDetails] = useState<QueueRef | undefined>(undefined);
  const ops = useOps({
    readOnly,
    readOnlyReason: props.readOnlyReason,
    archive: caps.archive,
    resolveBackend: tenants.resolveBackend,
    say,
    refreshList: monitor.refreshNow,
    openArchive: () => dispatch({ type: 'openArchive', pageSize: Math.max(1, bodyHeight - 2) }),
  });
  const opsModal = extra.promptOr(ops.modal, ops.closeModal);

  // One exit path for q, Ctrl-C and -n.
  const exited = useRef(false);
  const { onExit } = props;
  const quit = useCallback(() => {
    if (exited.current) return;
    exited.current = true;
    onExit?.();
    exit();
  }, [exit, onExit]);

  useEffect(() => {
    if (props.maxRefreshes !== undefined && state.refreshes >= props.maxRefreshes) quit();
  }, [state.refreshes, props.maxRefreshes, quit]);

  const list = useQueueList(state.rows.rows, {
    tenantFilter: props.tenantFilter,
    capabilities: caps,
    width: size.columns,
    height: bodyHeight - 1, // one line for the list bar
  });
  const top = topScreen(nav);
  const { modal } = nav;
  const live = useMemo(() => ({ intervalMs, paused }), [intervalMs, paused]);
  const close = () => dispatch({ type: 'closeModal' });
  const cancel = () => {
    close();
    say('cancelled');
  };

  const commands = useCommandDispatch({
    top,
    dispatch,
    capabilities: caps,
    bodyHeight,
    details,
    setDetails,
    intervalMs,
    setIntervalMs,
    setPaused,
    say,
    quit,
    refreshList: monitor.refreshNow,
    extra,
    ops,
    actions,
    tenants,
    search,
    picker,
    list,
  });
  const { onCommand, onScreenCommand, onViewCommand, openQueue, openBoundQueue, jump } = commands;

  // One key at a time, each after the commit of the one before: Ctrl-C quits from anywhere,
  // the rest goes to the prompt if one is open, else to the screen on top.
  const keyRouter = useKeyRouter(quit, actions.busy || commands.opening || ops.busy || extra.busy, props.keyRouter);

  const now = Date.now();
  const screenBackend = top.kind === 'list' || top.kind === 'topics' ? undefined : tenants.backendOf(top.queue);
  const screenActive = modal === undefined && opsModal === undefined;
  const reloadToken = actions.reloadToken + ops.reloadToken;
  const common = { keys: keyRouter, capabilities: caps, live, width: size.columns, height: bodyHeight, active: screenActive, now };
  const searching = top.kind === 'queue' && search.state?.queueKey === top.queue.key && top.source !== 'archive';
  let body: ReactNode = null;
  if (picker.isOpen && props.contexts) {
    body = <ContextsScreen keys={keyRouter} contexts={props.contexts} picker={picker} width={size.columns} height={bodyHeight} />;
  } else if (modal?.kind === 'help') {
    const helpProps = {
      screen: top.kind,
      readOnly,
      archive: caps.archive,
      failedState: caps.failedState,
      archiveView: top.kind === 'queue' && top.source === 'archive',
      sortKeys: sortKeysOf(list.visibleColumnIds),
      groups: caps.groups,
      topics: caps.topics,
      entries: top.kind === 'groups' || top.kind === 'topics' ? viewHelp(top.kind, caps.lastReadAt) : undefined,
    };
    body = <Help keys={keyRouter} {...helpProps} height={bodyHeight} width={size.columns} onClose={close} />;
  } else if (top.kind === 'list' && details) {
    body = (
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
  } else if (top.kind === 'list') {
    body = (
      <ListScreen
        keys={keyRouter}
        list={list}
        monitor={state}
        onOpen={(q) => void openQueue(q)}
        onCommand={(cmd, q) => onCommand(cmd, q, undefined)}
        active={screenActive}
        width={size.columns}
        height={bodyHeight}
        now={now}
      />
    );
  } else if (top.kind === 'queue' && screenBackend && searching && search.state) {
    const found = search.state;
    body = (
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
      />
    );
  } else if (top.kind === 'queue' && screenBackend) {
    body = (
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
        reloadToken={reloadToken}
        say={say}
      />
    );
  } else if (top.kind === 'groups' && screenBackend) {
    body = (
      <GroupsScreen
        {...common}
        key={`${top.queue.key}/groups`}
        backend={screenBackend}
        queue={top.queue}
        onOpenGroup={(group) => void openQueue(top.queue, group)}
        onCommand={onViewCommand}
      />
    );
  } else if (top.kind === 'topics') {
    body = <TopicsScreen {...common} key="topics" backend={backend} onOpenQueue={openBoundQueue} onCommand={onViewCommand} />;
  } else if (top.kind === 'message' && screenBackend) {
    body = (
      <MessageScreen
        {...common}
        key={`${top.queue.key}/${top.id}`}
        backend={screenBackend}
        queue={top.queue}
        id={top.id}
        source={top.source}
        onCommand={onScreenCommand}
        reloadToken={reloadToken}
      />
    );
  }

  return (
    <Box flexDirection="column" width={size.columns} height={size.rows - 1}>
      <Header
        kind={backend.kind}
        info={monitor.info}
        connection={props.connection}
        intervalMs={intervalMs}
        paused={paused}
        readOnly={readOnly}
        readOnlyReason={props.readOnlyReason}
        totals={totalsOf(list.allRows)}
        rates={sumRates(list.allRows.map((r) => r.rate))}
        monitor={state}
        refreshingSince={monitor.refreshingSince}
        now={now}
        hasHealth={typeof backend.health === 'function'}
        context={props.contexts?.current}
      />
      {body}
      <Footer
        prompt={
          // Jumping needs the queue view on top.
          modal && modal.kind !== 'help' && (modal.kind !== 'jump' || top.kind === 'queue') ? (
            <ModalPrompt
              keys={keyRouter}
              modal={modal}
              width={size.columns}
              jsonBodies={caps.jsonBodies}
              filterText={list.filterText}
              onFilterChange={list.setFilterText}
              onJump={jump}
              actions={actions}
              close={close}
              cancel={cancel}
            />
          ) : opsModal ? (
            <OpsPrompt {...opsModal} key={opsModal.id} keys={keyRouter} width={size.columns} />
          ) : undefined
        }
        status={status}
        hints={footerHints(top.kind, { details: details !== undefined, search: searching, picker: picker.isOpen }, readOnly, caps, {
          archiveView: top.kind === 'queue' && top.source === 'archive',
          contexts: props.contexts !== undefined,
        })}
        width={size.columns}
      />
    </Box>
  );
}
