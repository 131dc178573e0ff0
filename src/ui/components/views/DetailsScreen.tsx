// A queue's details (`i` on the queue list): how it is stored, read again every refresh
// interval (Backend.queueDetails). Esc goes back to the list; Enter opens the queue.
import { Box, Text } from 'ink';
import type { Backend } from '../../../backends/types.js';
import { cutParts, cutToCells } from '../../../text/width.js';
import { useKeyTarget, type KeyRouter } from '../../hooks/useKeys.js';
import { useLiveLoad, type LiveOptions } from '../../hooks/useMessages.js';
import { detailsLines } from '../../model/details.js';
import { commandFor, type Command } from '../../model/keys.js';
import type { QueueRef } from '../../model/queue-ref.js';

export interface DetailsScreenProps {
  readonly backend: Backend;
  readonly queue: QueueRef;
  readonly live: LiveOptions;
  readonly keys: KeyRouter;
  readonly active: boolean;
  readonly width: number;
  readonly height: number;
  readonly now: number;
  readonly onClose: () => void;
  readonly onOpen: () => void;
  /** Help, quit, interval, refresh. */
  readonly onCommand: (command: Command) => void;
}

export function DetailsScreen(p: DetailsScreenProps) {
  const { backend, queue } = p;
  const { value, error, reload, current } = useLiveLoad(
    async () => (backend.queueDetails ? await backend.queueDetails(queue.rawName) : undefined),
    [backend, queue.rawName],
    p.live,
  );
  useKeyTarget(
    p.keys,
    (input, key) => {
      if (key.escape || input === 'q' || key.leftArrow || key.backspace || input === 'i') return p.onClose();
      if (key.return) return p.onOpen();
      const cmd = commandFor('message', input, key);
      if (!cmd) return;
      if (cmd.type === 'refresh') reload();
      if (cmd.type === 'help' || cmd.type === 'quit' || cmd.type === 'interval' || cmd.type === 'refresh') p.onCommand(cmd);
    },
    { active: p.active, ready: current || error !== undefined },
  );
  const title = cutParts([queue.label, ' · details', ''], p.width);
  const lines = value ? detailsLines(value, p.now) : [];
  return (
    <Box flexDirection="column" height={p.height}>
      <Text wrap="truncate-end">
        <Text bold>{title[0]}</Text>
        <Text color="cyan">{title[1]}</Text>
      </Text>
      {error ? <Text color="red">{cutToCells(`cannot read the details: ${error} (retrying)`, p.width)}</Text> : null}
      {!value && !error ? <Text dimColor>loading…</Text> : null}
      {lines.slice(0, Math.max(0, p.height - 1)).map((l, i) => (
        <Text key={i} wrap="truncate-end">
          {l === '' ? ' ' : cutToCells(l, p.width)}
        </Text>
      ))}
    </Box>
  );
}
