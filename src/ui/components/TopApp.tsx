// smq top: the queue list, the queue view and the message detail, with the prompts that
// guard every action. State and screen changes live here; data comes from the hooks,
// calculations from ../model.
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Box, Text, useApp } from 'ink';
import { useKeyRouter, useKeyTarget } from '../hooks/useKeys.js';
import type { Backend, Message } from '../../backends/types.js';
import { escapeControl } from '../../text/escape.js';
import { cutToCells } from '../../text/width.js';
import { confirmQuestion } from './Confirm.js';
import { availableColumns, layoutColumns } from '../model/columns.js';
import { commandFor, type Action, type Command } from '../model/keys.js';
import { errorText } from '../model/monitor.js';
import { initialPaging, jumpTo, parseMessageId } from '../model/paging.js';
import { sumRates } from '../model/rates.js';
import { distinctTenants, totalsOf } from '../model/rows.js';
import { columnForSortKey, compileFilter, DEFAULT_SORT, filterRows, shiftSort, sortBy, sortRows, type SortState } from '../model/sort.js';
import { clampInterval, stepInterval } from '../model/interval.js';
import { formatInterval } from '../model/format.js';
import { indexOfKey, moveSelection, scrollOffset } from '../model/viewport.js';
import { useQueueMonitor } from '../hooks/useQueueMonitor.js';
import { useTerminalSize, type TerminalSize } from '../hooks/useTerminalSize.js';
import { Confirm } from './Confirm.js';
import { Footer, FOOTER_LINES, keyHints, type Status } from './Footer.js';
import { Header, HEADER_LINES } from './Header.js';
import { Help } from './Help.js';
import { LineInput } from './LineInput.js';
import { MessageScreen } from './MessageScreen.js';
import { GUTTER_WIDTH, QueueList } from './QueueList.js';
import { QueueScreen } from './QueueScreen.js';
import { queueRefOf, type QueueRef } from './types.js';
import { ACTION_WORDS, type Modal, type ScreenEntry } from './screens.js';

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
}

export function TopApp(props: TopAppProps) {
  const { backend, readOnly } = props;
  const caps = backend.capabilities;
  const { exit } = useApp();
  const size = useTerminalSize(props.size);

  const [intervalMs, setIntervalMs] = useState(() => clampInterval(props.intervalMs));
  const [paused, setPaused] = useState(false);
  const [sort, setSort] = useState<SortState>(DEFAULT_SORT);
  const [filterText, setFilterText] = useState('');
  const [selectedKey, setSelectedKey] = useState<string | undefined>(undefined);
  const [stack, setStack] = useState<readonly ScreenEntry[]>([{ kind: 'list' }]);
  const [modal, setModal] = useState<Modal | undefined>(undefined);
  const [status, setStatus] = useState<Status | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [opening, setOpening] = useState(false);
  const [reloadToken, setReloadToken] = useState(0);
  const listOffset = useRef(0);

  const monitor = useQueueMonitor(backend, { intervalMs, paused, exactThreshold: props.exactThreshold });
  const { state } = monitor;

  // One exit path for q, Ctrl-C and -n.
  const exited = useRef(false);
  const quit = useCallback(() => {
    if (exited.current) return;
    exited.current = true;
    props.onExit?.();
    exit();
  }, [exit, props.onExit]);

  useEffect(() => {
    if (props.maxRefreshes !== undefined && state.refreshes >= props.maxRefreshes) quit();
  }, [state.refreshes, props.maxRefreshes, quit]);

  // ---- per-tenant backends ----------------------------------------------------------------
  const [tenantBackends, setTenantBackends] = useState<ReadonlyMap<number, Backend>>(new Map());
  const backendOf = useCallback(
    (queue: QueueRef): Backend | undefined => {
      if (queue.tenant === undefined || !props.backendForTenant) return backend;
      return tenantBackends.get(queue.tenant);
    },
    [backend, props.backendForTenant, tenantBackends],
  );
  const resolveBackend = useCallback(
    async (queue: QueueRef): Promise<Backend> => {
      const known = backendOf(queue);
      if (known) return known;
      const b = await props.backendForTenant!(queue.tenant!);
      setTenantBackends((m) => new Map(m).set(queue.tenant!, b));
      return b;
    },
    [backendOf, props.backendForTenant],
  );

  // ---- the list ---------------------------------------------------------------------------
  const filter = useMemo(() => compileFilter(filterText), [filterText]);
  const tenantFilter = props.tenantFilter;
  const allRows = useMemo(
    () => (tenantFilter === undefined ? state.rows.rows : state.rows.rows.filter((r) => r.tenant === tenantFilter)),
    [state.rows.rows, tenantFilter],
  );
  const showTenant = distinctTenants(allRows) > 1;
  const columnIds = useMemo(() => availableColumns(caps, showTenant), [caps, showTenant]);
  const columns = useMemo(() => layoutColumns(columnIds, size.columns - GUTTER_WIDTH), [columnIds, size.columns]);
  const visibleColumnIds = columns.map((c) => c.spec.id);
  const rows = useMemo(() => sortRows(filterRows(allRows, filter), sort), [allRows, filter, sort]);
  const keys = rows.map((r) => r.key);
  const selectedIndex = indexOfKey(keys, selectedKey, 0);
  const selectedRow = selectedIndex >= 0 ? rows[selectedIndex] : undefined;

  const bodyHeight = Math.max(3, size.rows - 1 - HEADER_LINES - FOOTER_LINES);
  const listHeight = bodyHeight - 1; // one line for the list bar
  listOffset.current = scrollOffset(selectedIndex, listOffset.current, Math.max(1, listHeight - 1), rows.length);

  const top = stack[stack.length - 1]!;
  const screen = top.kind;
  const live = useMemo(() => ({ intervalMs, paused }), [intervalMs, paused]);

  const say = (text: string, tone: Status['tone'] = 'info') => setStatus({ text, tone });
  const push = (entry: ScreenEntry) => setStack((s) => [...s, entry]);
  const pop = () => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s));

  const openQueue = async (queue: QueueRef) => {
    setOpening(true); // keys typed after Enter are for the queue view: they wait for it
    try {
      await resolveBackend(queue);
      push({ kind: 'queue', queue, paging: initialPaging(Math.max(1, bodyHeight - 2)), selected: 0 });
    } catch (e) {
      say(`cannot open ${queue.label}: ${errorText(e)}`, 'error');
    } finally {
      setOpening(false);
    }
  };

  // ---- actions ----------------------------------------------------------------------------
  const requestAction = (action: Action, queue: QueueRef | undefined, message: Message | undefined) => {
    if (readOnly) {
      say('read-only: actions are disabled (top was started with --read-only)', 'error');
      return;
    }
    if (busy) return;
    if (!queue) return;
    if (action === 'purge') return setModal({ kind: 'purge', queue });
    if (action === 'send') return setModal({ kind: 'send', queue });
    if (action === 'archive' && !caps.archive) {
      say('this backend has no archive', 'error');
      return;
    }
    if (!message) {
      say('no message selected');
      return;
    }
    setModal({ kind: 'confirm', action, queue, id: message.id });
  };

  const runAction = async (label: string, queue: QueueRef, fn: (b: Backend) => Promise<string>) => {
    setBusy(true);
    say(`${label}…`);
    try {
      const b = await resolveBackend(queue);
      say(await fn(b), 'ok');
    } catch (e) {
      say(`${label} failed: ${errorText(e)}`, 'error');
    } finally {
      // The reload first: keys typed after the answer wait for the page without the message.
      setReloadToken((t) => t + 1);
      setBusy(false);
      monitor.refreshNow();
    }
  };

  const confirmMessageAction = (m: Extract<Modal, { kind: 'confirm' }>) => {
    const words = ACTION_WORDS[m.action];
    const id = m.id;
    void runAction(`${words.ask.toLowerCase()} message ${id}`, m.queue, async (b) => {
      const changed =
        m.action === 'delete'
          ? await b.delete(m.queue.rawName, [id])
          : m.action === 'archive'
            ? await b.archive(m.queue.rawName, [id])
            : await b.setVisibility(m.queue.rawName, [id], 0);
      if (changed.length === 0) return `message ${id} ${words.gone}`;
      // A deleted or archived message has no detail to show any more.
      if (m.action !== 'makeVisible') {
        setStack((s) => {
          const t = s[s.length - 1];
          return t?.kind === 'message' && t.id === id ? s.slice(0, -1) : s;
        });
      }
      return `${words.done} message ${id} in ${m.queue.label}`;
    });
  };

  // ---- commands shared by every screen --------------------------------------------------
  const handleCommon = (cmd: Command, queue: QueueRef | undefined, message: Message | undefined): boolean => {
    switch (cmd.type) {
      case 'quit':
        quit();
        return true;
      case 'help':
        setModal({ kind: 'help' });
        return true;
      case 'interval': {
        const next = stepInterval(intervalMs, cmd.direction);
        setIntervalMs(next);
        say(`refresh every ${formatInterval(next)}`);
        return true;
      }
      case 'pause':
        setPaused((p) => !p);
        return true;
      case 'refresh':
        monitor.refreshNow();
        return true;
      case 'back':
        pop();
        return true;
      case 'action':
        requestAction(cmd.action, queue, message);
        return true;
      default:
        return false;
    }
  };

  const onScreenCommand = (cmd: Command, message: Message | undefined) => {
    if (top.kind === 'list') return;
    if (cmd.type === 'open' && top.kind === 'queue') {
      if (message) push({ kind: 'message', queue: top.queue, id: message.id });
      return;
    }
    if (cmd.type === 'jump') {
      setModal({ kind: 'jump' });
      return;
    }
    handleCommon(cmd, top.queue, message);
  };

  // One key at a time, each after the commit of the one before: Ctrl-C quits from anywhere,
  // the rest goes to the prompt if one is open, else to the screen on top.
  const keyRouter = useKeyRouter(quit, busy || opening);

  // The list's own keys.
  useKeyTarget(
    keyRouter,
    (input, key) => {
      const cmd = commandFor('list', input, key);
      if (!cmd) return;
      const queue = selectedRow ? queueRefOf(selectedRow, showTenant) : undefined;
      switch (cmd.type) {
        case 'move':
          setSelectedKey(keys[moveSelection(selectedIndex, cmd.delta, keys.length)]);
          return;
        case 'page':
          setSelectedKey(keys[moveSelection(selectedIndex, cmd.delta * Math.max(1, listHeight - 2), keys.length)]);
          return;
        case 'home':
          setSelectedKey(keys[0]);
          return;
        case 'end':
          setSelectedKey(keys[keys.length - 1]);
          return;
        case 'open':
          if (queue) void openQueue(queue);
          return;
        case 'back':
          // Esc on the list clears the filter.
          if (filterText !== '') setFilterText('');
          return;
        case 'filter':
          setModal({ kind: 'filter' });
          return;
        case 'sortShift':
          setSort((s) => shiftSort(s, visibleColumnIds, cmd.step));
          return;
        case 'sortKey': {
          const column = columnForSortKey(cmd.key, visibleColumnIds);
          if (column) setSort((s) => sortBy(s, column));
          return;
        }
        default:
          handleCommon(cmd, queue, undefined);
      }
    },
    { active: screen === 'list' && modal === undefined },
  );

  // ---- prompts ----------------------------------------------------------------------------
  const close = () => setModal(undefined);
  let prompt: ReactNode | undefined;
  if (modal?.kind === 'filter') {
    prompt = (
      <LineInput
        keys={keyRouter}
        label="filter (regex): /"
        initial={filterText}
        hint="Enter keeps · Esc clears"
        onChange={setFilterText}
        onSubmit={close}
        onCancel={() => {
          setFilterText('');
          close();
        }}
      />
    );
  } else if (modal?.kind === 'jump' && top.kind === 'queue') {
    prompt = (
      <LineInput
        keys={keyRouter}
        label="jump to message id: "
        hint="Enter jumps · Esc cancels"
        onSubmit={(text) => {
          close();
          const id = parseMessageId(text);
          if (id === undefined) return say(`not a message id: ${escapeControl(text)}`, 'error');
          setStack((s) => s.map((e, i) => (i === s.length - 1 && e.kind === 'queue' ? { ...e, paging: jumpTo(e.paging, id), selected: 0 } : e)));
          say(`from message ${id}`);
        }}
        onCancel={close}
      />
    );
  } else if (modal?.kind === 'confirm') {
    prompt = (
      <Confirm
        keys={keyRouter}
        question={confirmQuestion(ACTION_WORDS[modal.action].ask, modal.id, modal.queue.label, size.columns)}
        onAnswer={(yes) => {
          close();
          if (yes) confirmMessageAction(modal);
          else say('cancelled');
        }}
      />
    );
  } else if (modal?.kind === 'purge') {
    const q = modal.queue;
    prompt = (
      <LineInput
        keys={keyRouter}
        label={`Purge deletes EVERY message of ${q.label}. Type the queue name to confirm: `}
        hint="Esc cancels"
        onSubmit={(typed) => {
          close();
          if (typed !== q.rawName && escapeControl(typed) !== q.label.split(' (tenant ')[0]) {
            return say('purge cancelled: the name did not match', 'error');
          }
          void runAction(`purge ${q.label}`, q, async (b) => `purged ${await b.purgeQueue(q.rawName)} messages from ${q.label}`);
        }}
        onCancel={() => {
          close();
          say('cancelled');
        }}
      />
    );
  } else if (modal?.kind === 'send') {
    const q = modal.queue;
    prompt = (
      <LineInput
        keys={keyRouter}
        label={`send to ${q.label}: `}
        hint={caps.jsonBodies ? 'a JSON body · Enter sends · Esc cancels' : 'Enter sends · Esc cancels'}
        onSubmit={(body) => {
          close();
          if (body.trim() === '') return say('nothing sent: the body was empty', 'error');
          void runAction(`send to ${q.label}`, q, async (b) => `sent message ${await b.send(q.rawName, { body })} to ${q.label}`);
        }}
        onCancel={() => {
          close();
          say('cancelled');
        }}
      />
    );
  }

  // ---- layout -----------------------------------------------------------------------------
  const now = Date.now();
  const filterInfo = filter.ok
    ? filterText !== ''
      ? ` · filter /${escapeControl(filterText)}/`
      : ''
    : ` · filter /${escapeControl(filterText)}/: invalid regex: ${escapeControl(filter.error)} (showing all)`;

  let body: ReactNode;
  if (modal?.kind === 'help') {
    body = (
      <Help
        keys={keyRouter}
        screen={screen}
        readOnly={readOnly}
        archive={caps.archive}
        failedState={caps.failedState}
        height={bodyHeight}
        onClose={close}
      />
    );
  } else if (top.kind === 'list') {
    body = (
      <Box flexDirection="column" height={bodyHeight}>
        <Text wrap="truncate-end" color={filter.ok ? undefined : 'red'}>
          {cutToCells(`${rows.length} of ${allRows.length} queues${filterInfo}`, size.columns)}
        </Text>
        <QueueList
          rows={rows}
          columns={columns}
          selected={selectedIndex}
          offset={listOffset.current}
          height={listHeight}
          sort={sort}
          now={now}
          stale={state.outage !== undefined}
          emptyText={
            state.lastRefreshAt === undefined
              ? state.outage
                ? 'no data yet: the database is unreachable'
                : 'loading…'
              : allRows.length === 0
                ? 'no queues'
                : 'no queue matches the filter'
          }
        />
      </Box>
    );
  }

  const screenBackend = top.kind === 'list' ? undefined : backendOf(top.queue);
  const rowOf = (q: QueueRef) => allRows.find((r) => r.key === q.key);
  const screenActive = modal === undefined;

  return (
    <Box flexDirection="column" width={size.columns} height={size.rows - 1}>
      <Header
        kind={backend.kind}
        info={monitor.info}
        connection={props.connection}
        intervalMs={intervalMs}
        paused={paused}
        readOnly={readOnly}
        totals={totalsOf(allRows)}
        rates={sumRates(allRows.map((r) => r.rate))}
        monitor={state}
        refreshingSince={monitor.refreshingSince}
        now={now}
        hasHealth={typeof backend.health === 'function'}
      />
      {body}
      {modal?.kind !== 'help' && top.kind === 'queue' && screenBackend ? (
        <QueueScreen
          keys={keyRouter}
          key={top.queue.key}
          backend={screenBackend}
          capabilities={caps}
          queue={top.queue}
          row={rowOf(top.queue)}
          paging={top.paging}
          selected={top.selected}
          onChange={(paging, selected) =>
            setStack((s) => s.map((e, i) => (i === s.length - 1 && e.kind === 'queue' ? { ...e, paging, selected } : e)))
          }
          onCommand={onScreenCommand}
          live={live}
          width={size.columns}
          height={bodyHeight}
          active={screenActive}
          reloadToken={reloadToken}
          now={now}
        />
      ) : null}
      {modal?.kind !== 'help' && top.kind === 'message' && screenBackend ? (
        <MessageScreen
          keys={keyRouter}
          key={`${top.queue.key}/${top.id}`}
          backend={screenBackend}
          capabilities={caps}
          queue={top.queue}
          id={top.id}
          onCommand={onScreenCommand}
          live={live}
          height={bodyHeight}
          width={size.columns}
          active={screenActive}
          reloadToken={reloadToken}
          now={now}
        />
      ) : null}
      <Footer prompt={prompt} status={status} hints={keyHints(screen, readOnly, caps.archive)} width={size.columns} />
    </Box>
  );
}
