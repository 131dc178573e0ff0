// A one-line text input: printable characters, Backspace, Ctrl-U to clear, Enter submits,
// Esc cancels. Small on purpose; a paste arrives as one chunk.
import { useState } from 'react';
import { Text } from 'ink';
import { LAYER_PROMPT, useKeyTarget, type KeyRouter } from '../hooks/useKeys.js';
import { escapeControl } from '../../text/escape.js';

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
  return (
    <Text>
      <Text bold>{label}</Text>
      {escapeControl(value)}
      <Text inverse> </Text>
      {hint ? <Text dimColor>{`  ${hint}`}</Text> : null}
    </Text>
  );
}
