// One message: facts, headers or attributes, and the body pretty-printed (bounded), scrollable.
// Looked up with peek by id, which never changes the message.
import { useMemo, useState } from 'react';
import { Box, Text } from 'ink';
import { useKeyTarget, type KeyRouter } from '../hooks/useKeys.js';
import type { Backend, Capabilities, Message, MessageId, MessageSource } from '../../backends/types.js';
import { commandFor, type Command } from '../model/keys.js';
import { bodySection, detailFacts } from '../model/messages.js';
import { clampScroll } from '../model/viewport.js';
import { useMessage } from '../hooks/useMessages.js';
import type { LiveOptions } from '../hooks/useMessages.js';
import type { QueueRef } from '../model/queue-ref.js';
import { cutParts, cutToCells } from '../../text/width.js';

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
  const [scroll, setScroll] = useState(0);
  const bodyHeight = Math.max(1, p.height - 1);
  // The body's lines are made once per body (a refresh that brings the same body reuses
  // them); only the facts follow the clock. Only the visible window reaches Ink.
  const body = message?.body;
  const bodyLines = useMemo(() => (body === undefined ? [] : bodySection(body)), [body]);
  const lines = message ? [...detailFacts(message, p.capabilities, p.now), ...bodyLines] : [];
  const maxScroll = clampScroll(Number.MAX_SAFE_INTEGER, lines.length, bodyHeight);

  useKeyTarget(
    p.keys,
    (input, key) => {
      const cmd = commandFor('message', input, key);
      if (!cmd) return;
      switch (cmd.type) {
        case 'move':
          setScroll((s) => clampScroll(s + cmd.delta, lines.length, bodyHeight));
          return;
        case 'page':
          setScroll((s) => clampScroll(s + cmd.delta * Math.max(1, bodyHeight - 1), lines.length, bodyHeight));
          return;
        case 'home':
          setScroll(0);
          return;
        case 'end':
          setScroll(maxScroll);
          return;
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

  const offset = clampScroll(scroll, lines.length, bodyHeight);
  const position =
    lines.length > bodyHeight ? ` · lines ${offset + 1}-${Math.min(lines.length, offset + bodyHeight)} of ${lines.length}` : '';
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
      {lines.slice(offset, offset + bodyHeight - (error ? 1 : 0)).map((line, i) => (
        <Text key={offset + i} wrap="truncate-end">
          {line === '' ? ' ' : cutToCells(line, p.width)}
        </Text>
      ))}
    </Box>
  );
}
