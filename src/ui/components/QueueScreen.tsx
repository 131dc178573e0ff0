// The queue view: one page of the selected queue's messages, read with peek (which never
// changes them), newest or oldest first, filtered by state, paged by keyset.
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Box, Text } from 'ink';
import { useKeyTarget, type KeyRouter } from '../hooks/useKeys.js';
import type { Backend, Capabilities, Message, MessageId, MessageSource, QueueStats } from '../../backends/types.js';
import { commandFor, type Command } from '../model/keys.js';
import { headersWidth, maxBodyLeft, messageColumns, messageLine, messageTitle } from '../model/messages.js';
import { HSCROLL_STEP } from '../model/body-view.js';
import {
  cycleStateFilter,
  emptyText,
  firstPage,
  lastPage,
  nextPage,
  prevPage,
  rowsText,
  setOrder,
  setPageSize,
  groupLabel,
  type PagingState,
} from '../model/paging.js';
import { formatAge, formatCount } from '../model/format.js';
import type { QueueRow } from '../model/rows.js';
import { moveSelection } from '../model/viewport.js';
import { messageTone, TONE_COLOR } from '../model/tones.js';
import { useMessages, type LiveOptions } from '../hooks/useMessages.js';
import type { QueueRef } from '../model/queue-ref.js';
import { GUTTER_BLANK, GUTTER_SELECTED, GUTTER_WIDTH } from './QueueList.js';
import { cutParts } from '../../text/width.js';
import { STATE_WORDS } from '../../output/records.js';

export interface QueueScreenProps {
  readonly backend: Backend;
  readonly capabilities: Capabilities;
  readonly queue: QueueRef;
  /** The queue's row from the last list refresh (undefined when it is gone). */
  readonly row: QueueRow | undefined;
  readonly paging: PagingState;
  readonly selected: number;
  readonly onChange: (paging: PagingState, selected: number) => void;
  /** Commands for the app: open, back, quit, help, actions, jump, interval, refresh. */
  readonly onCommand: (command: Command, message: Message | undefined) => void;
  readonly live: LiveOptions;
  readonly width: number;
  readonly height: number;
  readonly active: boolean;
  readonly keys: KeyRouter;
  readonly reloadToken: number;
  readonly now: number;
  /** A notice in the footer (what `o` changed to). */
  readonly say: (text: string) => void;
  /** 'archive': the queue's archive (pgmq) or its failed messages (SmoothMQ). */
  readonly source?: MessageSource | undefined;
  /** The marks (Space, `*`, `N`): which rows show one, and what they are in words. */
  readonly isMarked?: ((m: Message) => boolean) | undefined;
  readonly marksText?: string | undefined;
}

/** Lines above the messages: the queue's counts and the paging state, then column titles. */
const CHROME_LINES = 2;

export function QueueScreen(p: QueueScreenProps) {
  const pageSize = Math.max(1, p.height - CHROME_LINES);
  const {
    page,
    pageOf,
    loading,
    error,
    reload,
    current: pageCurrent,
  } = useMessages(p.backend, p.queue.rawName, p.paging, p.live, p.reloadToken, p.source);
  const archiveView = p.source === 'archive';

  // The page is as tall as the screen; resizing changes it.
  const { paging, selected: selectedRow, onChange } = p;
  useEffect(() => {
    if (paging.pageSize !== pageSize) onChange(setPageSize(paging, pageSize), selectedRow);
  }, [pageSize, paging, selectedRow, onChange]);

  // While the next page loads, the previous one stays on screen.
  const current = page;
  const messages = current?.messages ?? [];
  // The highlight stays on its message when the page's rows shift under it (messages removed
  // above it, or arriving at the head of a newest-first page): keys act on what was pointed
  // at. A row number the screen set since (a key) wins; a message gone leaves its row number.
  // Only on a page of the paging state shown (not the last page, still on screen while the
  // next one loads).
  const fresh = pageOf === p.paging;
  // Within one view only: another order, filter or page starts from the row the key set.
  const kept = useRef<{ readonly id: MessageId; readonly at: number; readonly paging: PagingState } | undefined>(undefined);
  let selected = messages.length === 0 ? -1 : Math.min(Math.max(0, p.selected), messages.length - 1);
  let followed = false;
  const k = kept.current;
  if (fresh && k !== undefined && k.paging === p.paging && k.at === p.selected) {
    const j = messages.findIndex((m) => m.id === k.id);
    if (j >= 0 && j !== selected) {
      selected = j;
      followed = true;
    }
  }
  const selectedMessage = selected >= 0 ? messages[selected] : undefined;
  useLayoutEffect(() => {
    if (!fresh || selectedMessage === undefined) return;
    kept.current = { id: selectedMessage.id, at: followed ? selected : p.selected, paging: p.paging };
    // The row number follows, so that the next key counts from the message's row.
    if (followed) onChange(paging, selected);
  });
  // h/l: BODY sideways, a few cells a press (the other columns stay).
  const [bodyLeft, setBodyLeft] = useState(0);

  useKeyTarget(
    p.keys,
    (input, key) => {
      const cmd = commandFor('queue', input, key);
      if (!cmd) return;
      switch (cmd.type) {
        case 'move': {
          const target = (selected < 0 ? 0 : selected) + cmd.delta;
          if (target < 0 && fresh && current?.hasPrev) p.onChange(prevPage(p.paging, current), p.paging.pageSize - 1);
          else if (target >= messages.length && fresh && current?.hasNext) p.onChange(nextPage(p.paging, current), 0);
          else p.onChange(p.paging, moveSelection(selected, cmd.delta, messages.length));
          return;
        }
        case 'page':
          if (cmd.delta > 0) {
            if (fresh && current?.hasNext) p.onChange(nextPage(p.paging, current), 0);
            else p.onChange(p.paging, Math.max(0, messages.length - 1));
          } else if (fresh && current?.hasPrev) p.onChange(prevPage(p.paging, current), 0);
          else p.onChange(p.paging, 0);
          return;
        case 'home':
          // The first and the last row of the queue, not of the page.
          p.onChange(firstPage(p.paging), 0);
          return;
        case 'end':
          p.onChange(lastPage(p.paging), p.paging.pageSize - 1);
          return;
        case 'order': {
          const order = p.paging.order === 'oldest' ? 'newest' : 'oldest';
          p.onChange(setOrder(p.paging, order), 0);
          p.say(`${order} first, from the start`);
          return;
        }
        case 'stateFilter':
          if (archiveView) return p.say(p.capabilities.archive ? 'archived messages have no state' : 'these are the failed messages');
          p.onChange(cycleStateFilter(p.paging, p.capabilities.failedState), 0);
          return;
        case 'refresh':
          reload();
          p.onCommand(cmd, selectedMessage);
          return;
        case 'hscroll': {
          const most = maxBodyLeft(messages, cols.find((c) => c.id === 'body')?.width ?? 0);
          setBodyLeft((l) => (cmd.direction < 0 ? Math.max(0, l - HSCROLL_STEP) : Math.max(l, Math.min(l + HSCROLL_STEP, most))));
          return;
        }
        default:
          p.onCommand(cmd, selectedMessage);
      }
    },
    // Keys typed ahead (20 PgDn, Down after a delete) wait for the page they act on.
    { active: p.active, ready: pageCurrent || error !== undefined },
  );

  const idWidth = Math.max(2, ...messages.map((m) => m.id.toString().length));
  const read = messages.some((m) => m.lastReadAt !== null);
  const cols = messageColumns(p.width - GUTTER_WIDTH, p.capabilities, idWidth, headersWidth(messages, p.capabilities), read);
  const s = p.row?.stats;
  const counts = s
    ? `ready ${formatCount(s.ready, s.estimated)} · in flight ${formatCount(s.inFlight, s.estimated)} · delayed ${formatCount(
        s.delayed,
        s.estimated,
      )}${s.failed !== undefined ? ` · failed ${formatCount(s.failed, s.estimated)}` : ''} · total ${formatCount(
        s.total,
        s.estimated,
      )}${s.archived !== undefined ? ` · archived ${formatCount(s.archived)}` : ''} · oldest ${formatAge(s.oldestAgeSec)}${queueExtras(s)}`
    : 'queue not in the last refresh';
  const stateWord = archiveView ? undefined : p.paging.state === 'all' ? undefined : STATE_WORDS[p.paging.state];
  const groupWord = p.paging.group === undefined ? '' : `${groupLabel(p.paging.group)} · `;
  const total = archiveView ? archiveTotal(s, p.capabilities.archive) : totalOf(s, p.paging);
  // The archive view says what it is after the name: "orders (archive)", "jobs (failed)".
  const what = archiveView ? '' : ` · ${stateWord ? `only ${stateWord}` : 'all states'}`;
  const where = `${groupWord}${p.paging.order} first${what}${current ? ` · ${rowsText(current, total)}` : ''}${p.marksText ? ` · ${p.marksText}` : ''}${
    bodyLeft > 0 ? ` · body from column ${bodyLeft + 1}` : ''
  }${loading && !fresh ? ' · loading…' : ''}`;

  // Cut here, as the terminal counts cells: a name in Devanagari or with emoji must not wrap.
  const titleParts = cutParts(
    [`${p.queue.label}${archiveView ? (p.capabilities.archive ? ' (archive)' : ' (failed)') : ''}`, ` · ${where}`, ` · ${counts}`],
    p.width,
  );
  return (
    <Box flexDirection="column" height={p.height}>
      <Text wrap="truncate-end">
        <Text bold>{titleParts[0]}</Text>
        <Text color="cyan">{titleParts[1]}</Text>
        {titleParts[2]}
      </Text>
      <Text bold underline wrap="truncate-end">
        {GUTTER_BLANK + messageTitle(cols, archiveView && p.capabilities.archive)}
      </Text>
      {error ? <Text color="red" wrap="truncate-end">{`cannot read messages: ${error} (retrying)`}</Text> : null}
      {!current && !error ? <Text dimColor>loading…</Text> : null}
      {current && messages.length === 0 ? <Text dimColor>{emptyText(p.paging, stateWord)}</Text> : null}
      {messages.slice(0, Math.max(0, pageSize - (error ? 1 : 0))).map((m, i) => {
        const tone = messageTone(m);
        return (
          <Text key={m.id.toString()} inverse={i === selected} color={tone ? TONE_COLOR[tone] : undefined} wrap="truncate-end">
            {gutter(i === selected, p.isMarked?.(m) ?? false) + messageLine(m, cols, p.now, bodyLeft)}
          </Text>
        );
      })}
    </Box>
  );
}

/** '›' on the highlighted row, '*' on a marked one (both: '›*'). */
function gutter(selected: boolean, marked: boolean): string {
  const g = selected ? GUTTER_SELECTED : GUTTER_BLANK;
  return marked ? `${g.slice(0, 1)}*` : g;
}

/** The archive view's row count: pgmq's archived messages, SmoothMQ's failed ones. */
function archiveTotal(s: QueueStats | undefined, archive: boolean): { n: number; estimated: boolean } | undefined {
  const n = archive ? s?.archived : s?.failed;
  return n === undefined || !s ? undefined : { n, estimated: archive ? false : s.estimated };
}

/** The list's count of the messages the view shows (all of them, or one state's). */
function totalOf(s: QueueStats | undefined, paging: PagingState): { n: number; estimated: boolean } | undefined {
  if (!s || paging.group !== undefined) return undefined; // the list counts whole queues, not groups
  const n = { all: s.total, ready: s.ready, inflight: s.inFlight, delayed: s.delayed, failed: s.failed }[paging.state];
  return n === undefined ? undefined : { n, estimated: s.estimated };
}

/** FIFO groups and insert notifications, where the store has them: " · 3 groups · notify on (250 ms)". */
function queueExtras(s: QueueStats): string {
  const groups = s.groups ? ` · ${formatCount(s.groups, s.estimated)} ${s.groups === 1 ? 'group' : 'groups'}` : '';
  const notify =
    s.notifyThrottleMs === undefined ? '' : s.notifyThrottleMs === null ? ' · notify off' : ` · notify on (${s.notifyThrottleMs} ms)`;
  return groups + notify;
}
