// One message: facts, headers or attributes, and the body pretty-printed (bounded), scrollable.
// Looked up with peek by id, which never changes the message. Long lines are cut at the edge
// and scrolled sideways (h/l, ←/→), or wrapped (`w`): model/body-view.
import { useMemo, useState } from 'react';
import { Box, Text } from 'ink';
import { useKeyTarget, type KeyRouter } from '../hooks/useKeys.js';
import type { Backend, Capabilities, Message, MessageId, MessageSource } from '../../backends/types.js';
import { commandFor, type Command } from '../model/keys.js';
import { bodySection, detailFacts } from '../model/messages.js';
import { INITIAL_BODY_VIEW, scrollView, shiftView, toggleWrap, viewEnd, viewWindow } from '../model/body-view.js';
import { useMessage } from '../hooks/useMessages.js';
import type { LiveOptions } from '../hooks/useMessages.js';
import type { QueueRef } from '../model/queue-ref.js';
import { cutParts } from '../../text/width.js';

export interface MessageScreenProps {
  readonly backend: Backend;
  readonly capabilities: Capabilities;
  readonly queue: QueueRef;
  readonly id: MessageId;
  readonly onCommand: (command: Command, message: Message | undefined) => void;
  readonly live: LiveOptions;
  readonly height: number;
  /** Lines are cut to this many cells (as the terminal counts them, so none wraps). */
  readonly width: number;
  readonly active: boolean;
  readonly keys: KeyRouter;
  readonly reloadToken: number;
  readonly now: number;
  /** 'archive': a message of the queue's archive (or failed messages). */
  readonly source?: MessageSource | undefined;
}

export function MessageScreen(p: MessageScreenProps) {
  const { message, error, reload, current } = useMessage(p.backend, p.queue.rawName, p.id, p.live, p.reloadToken, p.source);
  const [view, setView] = useState(INITIAL_BODY_VIEW);
  const bodyHeight = Math.max(1, p.height - 1);
  // The body's lines are made once per body (a refresh that brings the same body reuses
  // them); only the facts follow the clock. Only the visible window reaches Ink.
  const body = message?.body;
  const bodyBytes = message?.bodyBytes;
  const bodyLines = useMemo(() => (body === undefined ? [] : bodySection(body, bodyBytes)), [body, bodyBytes]);
  const lines = message ? [...detailFacts(message, p.capabilities, p.now), ...bodyLines] : [];
  const rowsHeight = bodyHeight - (message === undefined || message === null ? 1 : 0);
  const scroll = (delta: number) => setView((v) => scrollView(lines, v, delta, p.width, rowsHeight));

  useKeyTarget(
    p.keys,
    (input, key) => {
      const cmd = commandFor('message', input, key);
      if (!cmd) return;
      switch (cmd.type) {
        case 'move':
          return scroll(cmd.delta);
        case 'page':
          return scroll(cmd.delta * Math.max(1, rowsHeight - 1));
        case 'home':
          return setView((v) => ({ ...v, top: 0, sub: 0 }));
        case 'end':
          return setView((v) => viewEnd(lines, v, p.width, rowsHeight));
        case 'wrap':
          return setView(toggleWrap);
        case 'hscroll':
          // ← at the left edge (or while wrapped) goes back, as it always did.
          if (cmd.orBack && (view.wrap || view.left === 0)) return p.onCommand({ type: 'back' }, message ?? undefined);
          return setView((v) => shiftView(lines, v, cmd.direction, p.width, rowsHeight));
        case 'refresh':
          reload();
          p.onCommand(cmd, message ?? undefined);
          return;
        default:
          p.onCommand(cmd, message ?? undefined);
      }
    },
    { active: p.active, ready: current || error !== undefined },
  );

  const shown = viewWindow(lines, view, p.width, Math.max(1, rowsHeight - (error ? 1 : 0)));
  const scrolled = shown.first > 0 || shown.last < lines.length - 1;
  const position =
    (scrolled ? ` · lines ${shown.first + 1}-${shown.last + 1} of ${lines.length}` : '') +
    (view.wrap ? ' · wrapped' : view.left > 0 ? ` · from column ${view.left + 1}` : '');
  const titleParts = cutParts(
    [`${p.queue.label} · ${p.source === 'archive' && p.capabilities.archive ? 'archived ' : ''}message ${p.id.toString()}`, position],
    p.width,
  );
  return (
    <Box flexDirection="column" height={p.height}>
      <Text wrap="truncate-end">
        <Text bold>{titleParts[0]}</Text>
        <Text dimColor>{titleParts[1]}</Text>
      </Text>
      {error ? <Text color="red" wrap="truncate-end">{`cannot read the message: ${error} (retrying)`}</Text> : null}
      {message === undefined && !error ? <Text dimColor>loading…</Text> : null}
      {message === null ? (
        <Text color="yellow">{`message ${p.id.toString()} is not in the queue any more (deleted, archived, or never there)`}</Text>
      ) : null}
      {shown.rows.map((row, i) => (
        <Text key={i} wrap="truncate-end">
          {row === '' ? ' ' : row}
        </Text>
      ))}
    </Box>
  );
}
