// `:` : the contexts (stores) top can switch between, the current one marked, each with its
// store, mode, connection (password masked) and state: connected, connecting, or the one
// line saying why it cannot connect. Enter (or the row's number) switches; Esc goes back.
// Display only: the switch itself is hooks/useContexts'.
import { useState } from 'react';
import { Box, Text } from 'ink';
import { LAYER_PROMPT, useKeyTarget, type KeyRouter } from '../../hooks/useKeys.js';
import { contextTable, failureText, type ContextEntry, type ContextsModel } from '../../model/contexts.js';
import { counted } from '../../model/format.js';
import { escapeControl } from '../../../text/escape.js';

export interface ContextsScreenProps {
  readonly keys: KeyRouter;
  readonly contexts: { readonly entries: readonly ContextEntry[]; readonly model: ContextsModel };
  /** `switching`: a switch is under way, keys wait for it (HOLD_MS at most). */
  readonly picker: { readonly switching: boolean; readonly pick: (name: string) => void; readonly close: () => void };
  readonly width: number;
  readonly height: number;
}

export function ContextsScreen(p: ContextsScreenProps) {
  const { entries, model } = p.contexts;
  const { switching } = p.picker;
  const [selected, setSelected] = useState(() =>
    Math.max(
      0,
      entries.findIndex((e) => e.name === model.current),
    ),
  );
  const last = entries.length - 1;
  useKeyTarget(
    p.keys,
    (input, key) => {
      if (key.escape || input === 'q' || input === ':' || key.leftArrow) return p.picker.close();
      if (key.upArrow || input === 'k') return setSelected((s) => Math.max(0, s - 1));
      if (key.downArrow || input === 'j') return setSelected((s) => Math.min(last, s + 1));
      if (key.home || input === 'g') return setSelected(0);
      if (key.end || input === 'G') return setSelected(last);
      const picked = key.return || key.rightArrow ? selected : /^[1-9]$/.test(input) ? Number(input) - 1 : -1;
      const entry = entries[picked];
      if (entry) {
        setSelected(picked);
        p.picker.pick(entry.name);
      }
    },
    { layer: LAYER_PROMPT, ready: !switching },
  );
  const table = contextTable(entries, model, p.width);
  // The highlighted store's failure in full (the STATE column cuts it).
  const state = model.states.get(entries[selected]?.name ?? '');
  const failed = state?.status === 'failed' ? state : undefined;
  const rowsShown = Math.max(1, p.height - 3); // title, header, and the line under the table
  const first = Math.min(Math.max(0, selected - rowsShown + 1), Math.max(0, entries.length - rowsShown));
  return (
    <Box flexDirection="column" height={p.height}>
      <Text bold wrap="truncate-end">{`contexts · ${counted(entries.length, 'store')} · on ${escapeControl(model.current)}`}</Text>
      <Text bold wrap="truncate-end">
        {table.header}
      </Text>
      {table.rows.slice(first, first + rowsShown).map((row, i) => {
        const index = first + i;
        const entry = entries[index]!;
        const state = model.states.get(entry.name);
        const color = entry.name === model.current ? 'green' : state?.status === 'failed' ? 'red' : undefined;
        return (
          <Text key={entry.name} color={color} bold={index === selected} wrap="truncate-end">
            {`${index === selected ? '›' : ' '} ${row}`}
          </Text>
        );
      })}
      {switching ? (
        <Text color="yellow">connecting…</Text>
      ) : failed ? (
        <Text color="red" wrap="truncate-end">
          {`${escapeControl(entries[selected]!.name)}: ${escapeControl(failureText(failed.error))}`}
        </Text>
      ) : null}
    </Box>
  );
}
