// The `?` screen: every key of the current screen, from the same table the keys use.
import { Box, Text } from 'ink';
import { LAYER_PROMPT, useKeyTarget, type KeyRouter } from '../hooks/useKeys.js';
import { helpFor, type Screen } from '../model/keys.js';

export interface HelpProps {
  readonly screen: Screen;
  readonly readOnly: boolean;
  readonly archive: boolean;
  readonly failedState: boolean;
  readonly sortKeys: readonly { readonly key: string; readonly title: string }[];
  readonly height: number;
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
  const entries = helpFor(p.screen, p);
  const width = Math.max(...entries.map((e) => e.keys.length));
  return (
    <Box flexDirection="column" height={p.height}>
      <Text bold>{`Keys (${p.screen === 'list' ? 'queue list' : p.screen === 'queue' ? 'queue view' : 'message'})${
        p.readOnly ? ' · read-only: actions are off' : ''
      }`}</Text>
      {entries.slice(0, Math.max(0, p.height - 2)).map((e) => (
        <Text key={e.keys} wrap="truncate-end">
          <Text color="cyan">{e.keys.padEnd(width)}</Text>
          {`  ${e.what}`}
        </Text>
      ))}
      <Text dimColor>Esc or ? closes this help</Text>
    </Box>
  );
}
