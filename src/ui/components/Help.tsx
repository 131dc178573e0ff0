// The `?` screen: every key of the current screen, from the same table the keys use.
import { useState } from 'react';
import { Box, Text } from 'ink';
import { LAYER_PROMPT, useKeyTarget, type KeyRouter } from '../hooks/useKeys.js';
import { HELP_GAP, helpColumnWidth, helpFor, helpLayout, type HelpEntry, type Screen } from '../model/keys.js';
import type { ViewScreen } from '../model/view-keys.js';
import { cellWidth } from '../../text/width.js';

const TITLES: Record<Screen | ViewScreen, string> = {
  list: 'queue list',
  queue: 'queue view',
  message: 'message',
  groups: 'FIFO groups',
  topics: 'topic bindings',
};

export interface HelpProps {
  readonly screen: Screen | ViewScreen;
  /** The keys of a side view (model/view-keys); the other screens' come from helpFor. */
  readonly entries?: readonly HelpEntry[] | undefined;
  readonly groups?: boolean;
  readonly topics?: boolean;
  readonly readOnly: boolean;
  readonly archive: boolean;
  readonly failedState: boolean;
  /** The queue view shows the archive (or SmoothMQ's failed messages). */
  readonly archiveView?: boolean;
  readonly sortKeys: readonly { readonly key: string; readonly title: string }[];
  readonly height: number;
  readonly width: number;
  readonly onClose: () => void;
  readonly keys: KeyRouter;
}

export function Help(p: HelpProps) {
  const entries = p.entries ?? (p.screen === 'groups' || p.screen === 'topics' ? [] : helpFor(p.screen, p));
  // The title and the last line take two of the rows; on a screen with fewer than 4 the title gives way.
  const titled = p.height >= 4;
  const rows = Math.max(1, p.height - (titled ? 2 : 1));
  const layout = helpLayout(entries, rows, p.width);
  const last = Math.max(0, layout.lines - rows);
  const [top, setTop] = useState(0);
  const first = Math.min(top, last);
  useKeyTarget(
    p.keys,
    (input, key) => {
      if (key.escape || key.return || input === '?' || input === 'q' || input === ' ') return p.onClose();
      const move = (to: number) => setTop(Math.max(0, Math.min(last, to)));
      if (key.downArrow || input === 'j') move(first + 1);
      else if (key.upArrow || input === 'k') move(first - 1);
      else if (key.pageDown) move(first + rows);
      else if (key.pageUp) move(first - rows);
      else if (key.home || input === 'g') move(0);
      else if (key.end || input === 'G') move(last);
    },
    { layer: LAYER_PROMPT },
  );
  const scrolls = last > 0;
  return (
    <Box flexDirection="column" height={p.height}>
      {titled && (
        <Text bold wrap="truncate-end">{`Keys (${p.screen === 'queue' && p.archiveView ? 'archive view' : TITLES[p.screen]})${
          p.readOnly ? ' · read-only: actions are off' : ''
        }`}</Text>
      )}
      <Box flexDirection="row" height={Math.min(rows, layout.lines)} overflow="hidden">
        {layout.columns.map((column, i) => (
          <HelpColumn
            key={i}
            entries={column.slice(first, first + rows)}
            keysWidth={Math.max(...column.map((e) => cellWidth(e.keys)))}
            width={layout.cut ? Math.floor((p.width + HELP_GAP) / layout.columns.length) : helpColumnWidth(column)}
          />
        ))}
      </Box>
      <Text dimColor wrap="truncate-end">
        {scrolls
          ? `lines ${first + 1}–${Math.min(first + rows, layout.lines)} of ${layout.lines} · ↑/↓ scroll · Esc or ? closes this help`
          : 'Esc or ? closes this help'}
      </Text>
    </Box>
  );
}

function HelpColumn({ entries, keysWidth, width }: { entries: readonly HelpEntry[]; keysWidth: number; width: number }) {
  return (
    <Box flexDirection="column" width={width} paddingRight={HELP_GAP} flexShrink={1}>
      {entries.map((e, i) => (
        <Text key={i} wrap="truncate-end">
          <Text color="cyan">{e.keys + ' '.repeat(Math.max(0, keysWidth - cellWidth(e.keys)))}</Text>
          {`${' '.repeat(HELP_GAP)}${e.what}`}
        </Text>
      ))}
    </Box>
  );
}
