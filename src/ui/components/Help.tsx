// The `?` screen: every key of the current screen, from the same table the keys use.
import { Box, Text } from 'ink';
import { LAYER_PROMPT, useKeyTarget, type KeyRouter } from '../hooks/useKeys.js';
import { helpColumns, helpFor, type HelpEntry, type Screen } from '../model/keys.js';
import type { ViewScreen } from '../model/view-keys.js';

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
  useKeyTarget(
    p.keys,
    (input, key) => {
      if (key.escape || key.return || input === '?' || input === 'q' || input === ' ') p.onClose();
    },
    { layer: LAYER_PROMPT },
  );
  const entries = p.entries ?? (p.screen === 'groups' || p.screen === 'topics' ? [] : helpFor(p.screen, p));
  const columns = helpColumns(entries, p.height - 2);
  const columnWidth = Math.floor(p.width / columns.length);
  return (
    <Box flexDirection="column" height={p.height}>
      <Text bold>{`Keys (${p.screen === 'queue' && p.archiveView ? 'archive view' : TITLES[p.screen]})${
        p.readOnly ? ' · read-only: actions are off' : ''
      }`}</Text>
      <Box flexDirection="row">
        {columns.map((column, i) => (
          <HelpColumn key={i} entries={column} width={columnWidth} />
        ))}
      </Box>
      <Text dimColor>Esc or ? closes this help</Text>
    </Box>
  );
}

function HelpColumn({ entries, width }: { entries: readonly HelpEntry[]; width: number }) {
  const keysWidth = Math.max(...entries.map((e) => e.keys.length));
  return (
    <Box flexDirection="column" width={width} paddingRight={2}>
      {entries.map((e) => (
        <Text key={e.keys} wrap="truncate-end">
          <Text color="cyan">{e.keys.padEnd(keysWidth)}</Text>
          {`  ${e.what}`}
        </Text>
      ))}
    </Box>
  );
}
