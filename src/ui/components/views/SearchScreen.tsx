// The search inside a queue's messages (`/` in the queue view): a prompt for the text, then
// the matches as the message list shows them, with how far the scan got. Enter opens a
// match; Esc stops a scan under way, else goes back to the queue's messages; `/` searches again.
import { Box, Text } from 'ink';
import { useRef } from 'react';
import type { Capabilities, QueueStats } from '../../../backends/types.js';
import { cutParts } from '../../../text/width.js';
import { useKeyTarget, type KeyRouter } from '../../hooks/useKeys.js';
import type { SearchState } from '../../hooks/useSearch.js';
import { commandFor, type Command } from '../../model/keys.js';
import { headersWidth, messageColumns, messageLine, messageTitle } from '../../model/messages.js';
import type { QueueRef } from '../../model/queue-ref.js';
import { searchProgress, searchWhat } from '../../model/search.js';
import { messageTone, TONE_COLOR } from '../../model/tones.js';
import { moveSelection, scrollOffset } from '../../model/viewport.js';
import { LineInput } from '../LineInput.js';
import { GUTTER_BLANK, GUTTER_SELECTED, GUTTER_WIDTH } from '../QueueList.js';

export interface SearchScreenProps {
  readonly search: SearchState;
  readonly queue: QueueRef;
  readonly stats: QueueStats | undefined;
  readonly capabilities: Capabilities;
  readonly keys: KeyRouter;
  readonly active: boolean;
  readonly width: number;
  readonly height: number;
  readonly now: number;
  readonly onSubmit: (text: string) => void;
  readonly onCancel: () => void;
  readonly onClose: () => void;
  readonly onAgain: () => void;
  readonly onSelect: (index: number) => void;
  readonly onOpen: (index: number) => void;
  /** Help, quit, interval. */
  readonly onCommand: (command: Command) => void;
  /** A key of the queue view that does nothing here (marks, actions): said, not swallowed. */
  readonly onElsewhere: (text: string) => void;
}

export const NOT_ON_RESULTS = 'not on search results: Enter opens a match, to act on it there; Esc goes back to the queue';

/** The title, the progress line and the column titles. */
const CHROME_LINES = 3;

export function SearchScreen(p: SearchScreenProps) {
  const s = p.search;
  const typing = s.phase === 'typing';
  const scanning = s.phase === 'scanning' || s.phase === 'cancelling';
  const count = s.matches.length;
  const listHeight = Math.max(1, p.height - CHROME_LINES);
  const offset = useRef(0);
  offset.current = scrollOffset(s.selected, offset.current, listHeight, count);

  useKeyTarget(
    p.keys,
    (input, key) => {
      if (key.escape) return scanning ? p.onCancel() : p.onClose();
      if (input === '/') return p.onAgain();
      if (input === 'q' || key.leftArrow || key.backspace) return p.onClose();
      const cmd = commandFor('queue', input, key);
      if (!cmd) return;
      switch (cmd.type) {
        case 'move':
          return p.onSelect(moveSelection(s.selected, cmd.delta, count));
        case 'page':
          return p.onSelect(moveSelection(s.selected, cmd.delta * listHeight, count));
        case 'home':
          return p.onSelect(count > 0 ? 0 : -1);
        case 'end':
          return p.onSelect(count - 1);
        case 'open':
          if (count > 0) p.onOpen(Math.max(0, s.selected));
          return;
        case 'help':
        case 'quit':
        case 'interval':
          return p.onCommand(cmd);
        default:
          return p.onElsewhere(NOT_ON_RESULTS);
      }
    },
    { active: p.active && !typing },
  );

  const shown = s.matches.slice(offset.current, offset.current + listHeight);
  const idWidth = Math.max(2, ...shown.map((m) => m.id.toString().length));
  const read = shown.some((m) => m.lastReadAt !== null);
  const cols = messageColumns(p.width - GUTTER_WIDTH, p.capabilities, idWidth, headersWidth(shown, p.capabilities), read);
  const total = p.stats ? { n: p.stats.total, estimated: p.stats.estimated } : undefined;
  const titleParts = cutParts([p.queue.label, typing ? ' · search bodies and headers' : searchWhat(s), ''], p.width);
  const progress = searchProgress(s, total, p.now);
  const position = count > 0 && !typing ? ` · ${Math.max(0, s.selected) + 1}/${count}` : '';
  return (
    <Box flexDirection="column" height={p.height}>
      <Text wrap="truncate-end">
        <Text bold>{titleParts[0]}</Text>
        <Text color="cyan">{titleParts[1]}</Text>
      </Text>
      {typing ? (
        <LineInput
          keys={p.keys}
          label="search: "
          initial={s.text}
          hint={
            p.capabilities.jsonBodies
              ? 'text, or a JSON object the body or headers contain · Enter · Esc'
              : 'text in bodies and attributes · Enter · Esc'
          }
          onSubmit={(text) => (text === '' ? p.onClose() : p.onSubmit(text))}
          onCancel={p.onClose}
        />
      ) : (
        <Text color={s.phase === 'failed' ? 'red' : undefined} wrap="truncate-end">
          {progress + position}
        </Text>
      )}
      <Text bold underline wrap="truncate-end">
        {GUTTER_BLANK + messageTitle(cols)}
      </Text>
      {!typing && count === 0 && !scanning ? <Text dimColor>no message matches</Text> : null}
      {shown.map((m, i) => {
        const index = offset.current + i;
        const tone = messageTone(m);
        return (
          <Text key={m.id.toString()} inverse={index === s.selected} color={tone ? TONE_COLOR[tone] : undefined} wrap="truncate-end">
            {(index === s.selected ? GUTTER_SELECTED : GUTTER_BLANK) + messageLine(m, cols, p.now)}
          </Text>
        );
      })}
    </Box>
  );
}
