// The bottom lines: a prompt or the last status message, then the keys of this screen.
import type { ReactNode } from 'react';
import { Box, Text } from 'ink';
import { fitHints, type Hint } from '../model/hints.js';
import { statusLines } from '../model/prompt-lines.js';

export interface Status {
  readonly text: string;
  /** working: an action in progress, said until its answer replaces it. */
  readonly tone: 'info' | 'ok' | 'error' | 'working';
}

export interface FooterProps {
  /** A prompt (confirmation, text input) replaces the status line. */
  readonly prompt: ReactNode | undefined;
  readonly status: Status | undefined;
  /** The keys of this screen; those that do not fit in `width` give way (model/hints). */
  readonly hints: readonly Hint[];
  /** The status is wrapped to this many cells, counted as the terminal draws them (it names queues). */
  readonly width: number;
  /** Lines the status may take (the layout's; model/prompt-lines statusLines). */
  readonly statusMaxLines?: number;
}

export function Footer({ prompt, status, hints, width, statusMaxLines = 1 }: FooterProps) {
  const color = status?.tone === 'error' ? 'red' : status?.tone === 'ok' ? 'green' : undefined;
  const lines = status ? statusLines(status.text, width, statusMaxLines) : [' '];
  return (
    <Box flexDirection="column">
      {prompt ??
        lines.map((line, i) => (
          <Text key={i} color={color} wrap="truncate-end">
            {line}
          </Text>
        ))}
      <Text dimColor wrap="truncate-end">
        {fitHints(hints, width)}
      </Text>
    </Box>
  );
}
