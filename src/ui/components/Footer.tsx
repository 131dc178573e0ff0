// The bottom lines: a prompt or the last status message, then the keys of this screen.
import type { ReactNode } from 'react';
import { Box, Text } from 'ink';
import { fitHints, type Hint } from '../model/hints.js';
import { cutToCells } from '../../text/width.js';

export interface Status {
  readonly text: string;
  readonly tone: 'info' | 'ok' | 'error';
}

export interface FooterProps {
  /** A prompt (confirmation, text input) replaces the status line. */
  readonly prompt: ReactNode | undefined;
  readonly status: Status | undefined;
  /** The keys of this screen; those that do not fit in `width` give way (model/hints). */
  readonly hints: readonly Hint[];
  /** The status is cut to this many cells, counted as the terminal draws them (it names queues). */
  readonly width: number;
}

export function Footer({ prompt, status, hints, width }: FooterProps) {
  const color = status?.tone === 'error' ? 'red' : status?.tone === 'ok' ? 'green' : undefined;
  return (
    <Box flexDirection="column">
      {prompt ?? (
        <Text color={color} wrap="truncate-end">
          {status ? cutToCells(status.text, width) : ' '}
        </Text>
      )}
      <Text dimColor wrap="truncate-end">
        {fitHints(hints, width)}
      </Text>
    </Box>
  );
}
