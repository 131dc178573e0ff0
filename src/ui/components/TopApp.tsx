// smq top: the queue list, the queue view and the message detail, with the prompts that
// guard every action. This component composes hooks and lays out header, screen and footer:
// where top is comes from the navigation reducer (../model/navigation), data from the hooks
// (list refresh, tenant backends, actions), what a shared command does from
// hooks/useCommandDispatch, the screen on top from TopScreens; the screens and prompts only
// display.
import { useEffect, useMemo, useReducer, useState } from 'react';
import { Box } from 'ink';
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
import { useTopExit } from '../hooks/useTopExit.js';
import { OpsPrompt, opsPromptText } from './OpsPrompt.js';
import { useQueueList } from '../hooks/useQueueList.js';
import { useQueueMonitor } from '../hooks/useQueueMonitor.js';
import { useTenantBackends } from '../hooks/useTenantBackends.js';
import { useTerminalSize, type TerminalSize } from '../hooks/useTerminalSize.js';
import { Footer } from './Footer.js';
import { useNotice } from '../hooks/useNotice.js';
import { footerHints } from '../model/footer-hints.js';
import { Header } from './Header.js';
import { topLayout } from '../model/layout.js';
import { modalPromptText, promptLines, STATUS_MAX_LINES, statusLines } from '../model/prompt-lines.js';
import { ModalPrompt } from './Prompts.js';
import { TopScreens, type ScreenCommon } from './TopScreens.js';
import { useSearch } from '../hooks/useSearch.js';
import { useTopCommands } from '../hooks/useTopCommands.js';
import { useContextPicker } from '../hooks/useContextPicker.js';
import type { ContextsControl } from '../hooks/useContexts.js';

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
  const size = useTerminalSize(props.size);

  const [intervalMs, setIntervalMs] = useState(() => clampInterval(props.intervalMs));
  const [paused, setPaused] = useState(false);
  const [nav, dispatch] = useReducer(navigate, INITIAL_NAVIGATION);
  const [status, say] = useNotice();
  const picker = useContextPicker(props.contexts, say);

  const monitor = useQueueMonitor(backend, { intervalMs, paused, exactThreshold: props.exactThreshold });
  const { state } = monitor;
  const alert = state.outage ? 'outage' : state.health?.replication ? 'replication' : undefined;
  const { bodyHeight } = topLayout(size.rows, alert);
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

  const quit = useTopExit(props.onExit, state.refreshes, props.maxRefreshes);

  const list = useQueueList(state.rows.rows, {
    tenantFilter: props.tenantFilter,
    capabilities: caps,
    width: size.columns,
    height: bodyHeight - 1, // one line for the list bar
  });
  const top = topScreen(nav);
  const { modal } = nav;
  // Jumping needs the queue view on top.
  const footerModal = modal && modal.kind !== 'help' && (modal.kind !== 'jump' || top.kind === 'queue') ? modal : undefined;
  // A question that does not fit on one line takes more: they come out of the body's view.
  const promptText = footerModal ? modalPromptText(footerModal, caps.jsonBodies) : opsModal ? opsPromptText(opsModal.modal) : undefined;
  // So does a status that does not fit (up to STATUS_MAX_LINES): its end says what to do next.
  const layout = topLayout(
    size.rows,
    alert,
    promptText
      ? promptLines(promptText, size.columns, size.rows).height
      : status
        ? statusLines(status.text, size.columns, STATUS_MAX_LINES).length
        : 1,
  );
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

  // One key at a time, each after the commit of the one before: Ctrl-C quits from anywhere,
  // the rest goes to the prompt if one is open, else to the screen on top.
  const keyRouter = useKeyRouter(quit, actions.busy || commands.opening || ops.busy || extra.busy, props.keyRouter, () =>
    say('pasted text ignored: paste into a prompt (s sends, / searches)', 'error'),
  );

  const now = Date.now();
  const screenActive = modal === undefined && opsModal === undefined;
  const reloadToken = actions.reloadToken + ops.reloadToken;
  // An action changed the queue: its search results drop the matches it took away.
  const searchQueue = top.kind === 'queue' ? top.queue : undefined;
  useEffect(() => {
    if (reloadToken > 0 && searchQueue) {
      const b = tenants.backendOf(searchQueue);
      if (b) search.prune(b, searchQueue);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- after each action only, not when the screen changes
  }, [reloadToken]);
  const common: ScreenCommon = {
    keys: keyRouter,
    capabilities: caps,
    live,
    width: size.columns,
    height: bodyHeight,
    active: screenActive,
    now,
  };
  const searching = top.kind === 'queue' && search.state?.queueKey === top.queue.key && top.source !== 'archive';
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
        lines={layout.header}
      />
      <Box flexDirection="column" height={layout.shownBody} overflow="hidden" flexShrink={0}>
        {/* Laid out at its full height and cut at the bottom (a squeezed box draws its lines over each other). */}
        <Box flexDirection="column" height={bodyHeight} flexShrink={0}>
          <TopScreens
            common={common}
            backend={backend}
            nav={nav}
            dispatch={dispatch}
            readOnly={readOnly}
            contexts={props.contexts}
            picker={picker}
            list={list}
            monitor={state}
            tenants={tenants}
            search={search}
            searching={searching}
            ops={ops}
            details={details}
            setDetails={setDetails}
            reloadToken={reloadToken}
            commands={commands}
            say={say}
            closeHelp={close}
          />
        </Box>
      </Box>
      <Footer
        prompt={
          footerModal ? (
            <ModalPrompt
              keys={keyRouter}
              modal={footerModal}
              width={size.columns}
              maxLines={layout.promptLines}
              jsonBodies={caps.jsonBodies}
              filterText={list.filterText}
              onFilterChange={list.setFilterText}
              onJump={commands.jump}
              actions={actions}
              close={close}
              cancel={cancel}
            />
          ) : opsModal ? (
            <OpsPrompt {...opsModal} key={opsModal.id} keys={keyRouter} width={size.columns} maxLines={layout.promptLines} />
          ) : undefined
        }
        status={status}
        hints={footerHints(top.kind, { details: details !== undefined, search: searching, picker: picker.isOpen }, readOnly, caps, {
          archiveView: top.kind === 'queue' && top.source === 'archive',
          contexts: props.contexts !== undefined,
        })}
        width={size.columns}
        statusMaxLines={layout.promptLines}
      />
    </Box>
  );
}
