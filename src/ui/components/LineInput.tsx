// A one-line text input: printable characters, Backspace, Ctrl-U to clear, Enter submits,
// Esc cancels. Small on purpose; a paste arrives as one chunk.
import { useState } from 'react';
import { Text, useStdout } from 'ink';
import { LAYER_PROMPT, useKeyTarget, type KeyRouter } from '../hooks/useKeys.js';
import { escapeControl } from '../../text/escape.js';
import { cellWidth, cutToCells, tailToCells } from '../../text/width.js';

/** The fewest cells of typed text a prompt keeps in view before it drops its hint. */
const MIN_TEXT_CELLS = 20;

export interface LineInputProps {
  readonly label: string;
  readonly initial?: string;
  /** Shown after the input in grey (what Enter and Esc do). */
  readonly hint?: string;
  readonly onChange?: (value: string) => void;
  readonly onSubmit: (value: string) => void;
  readonly onCancel: () => void;
  readonly keys: KeyRouter;
}

export function LineInput({ label, initial = '', hint, onChange, onSubmit, onCancel, keys }: LineInputProps) {
  const [value, setValue] = useState(initial);
  const update = (v: string) => {
    setValue(v);
    onChange?.(v);
  };
  useKeyTarget(
    keys,
    (input, key) => {
      if (key.return) return onSubmit(value);
      if (key.escape) return onCancel();
      if (key.backspace || key.delete) return update(Array.from(value).slice(0, -1).join(''));
      if (key.ctrl && input === 'u') return update('');
      if (key.ctrl || key.meta || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow || key.tab) return;
      if (key.pageUp || key.pageDown || key.home || key.end) return;
      if (input === '') return;
      // A run of typed characters (a paste) comes in one call; Enter comes on its own. Line
      // feeds become spaces (the body is one line; JSON does not mind).
      const text = input.replace(/\n/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '');
      if (text !== '') update(value + text);
    },
    { layer: LAYER_PROMPT, text: true },
  );
  // One line, whatever is typed or pasted: the end of the text (where the cursor is) stays
  // in view, the start gives way to "…", and the hint goes when the line is too narrow.
  const columns = useStdout().stdout.columns || 80;
  const shownLabel = cutToCells(label, Math.max(1, columns - 2 - MIN_TEXT_CELLS));
  const hintText = hint ? `  ${hint}` : '';
  const room = columns - 1 - cellWidth(shownLabel) - 1; // the cursor's cell, and one spare
  const withHint = room - cellWidth(hintText) >= MIN_TEXT_CELLS;
  const text = tailToCells(escapeControl(value), withHint ? room - cellWidth(hintText) : room);
  return (
    <Text wrap="truncate-end">
      <Text bold>{shownLabel}</Text>
      {text}
      <Text inverse> </Text>
      {withHint && hintText ? <Text dimColor>{hintText}</Text> : null}
    </Text>
  );
}
