// The bottom lines: a prompt or the last status message, then the keys of this screen.
import type { ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { Screen } from '../model/keys.js';
import { cutToCells } from '../../text/width.js';

export interface Status {
  readonly text: string;
  readonly tone: 'info' | 'ok' | 'error';
}

export const FOOTER_LINES = 2;

export function keyHints(screen: Screen, readOnly: boolean, archive: boolean): string {
  if (screen === 'list') {
    return `↑↓ move · Enter open · / filter · </> sort · Space pause · +/- interval · r refresh${
      readOnly ? '' : ' · P purge · s send'
    } · ? help · q quit`;
  }
  const actions = readOnly ? '' : ` · d delete${archive ? ' · a archive' : ''} · v visible now`;
  if (screen === 'queue') {
    return `↑↓ move · PgUp/PgDn page · Enter open · o order · f state · # jump${actions}${
      readOnly ? '' : ' · P purge · s send'
    } · Esc back · ? help`;
  }
  return `↑↓ scroll · PgUp/PgDn page${actions} · Esc back · ? help`;
}

export interface FooterProps {
  /** A prompt (confirmation, text input) replaces the status line. */
  readonly prompt: ReactNode | undefined;
  readonly status: Status | undefined;
  readonly hints: string;
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
        {hints}
      </Text>
    </Box>
  );
}
