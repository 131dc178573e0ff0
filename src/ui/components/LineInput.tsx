// A one-line text input: printable characters, Backspace, Ctrl-U to clear, Enter submits,
// Esc cancels. Small on purpose; pastes arrive as one chunk and newlines become spaces.
import { useState } from 'react';
import { Text } from 'ink';
import { useKeys } from '../hooks/useKeys.js';
import { escapeControl } from '../../text/escape.js';

export interface LineInputProps {
  readonly label: string;
  readonly initial?: string;
  /** Shown after the input in grey (what Enter and Esc do). */
  readonly hint?: string;
  readonly onChange?: (value: string) => void;
  readonly onSubmit: (value: string) => void;
  readonly onCancel: () => void;
}

export function LineInput({ label, initial = '', hint, onChange, onSubmit, onCancel }: LineInputProps) {
  const [value, setValue] = useState(initial);
  const update = (v: string) => {
    setValue(v);
    onChange?.(v);
  };
  useKeys((input, key) => {
    if (key.return) return onSubmit(value);
    if (key.escape) return onCancel();
    if (key.backspace || key.delete) return update(Array.from(value).slice(0, -1).join(''));
    if (key.ctrl && input === 'u') return update('');
    if (key.ctrl || key.meta || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow || key.tab) return;
    if (key.pageUp || key.pageDown || key.home || key.end) return;
    if (input === '') return;
    // Newlines from a paste: spaces (the body is one line; JSON does not mind).
    // eslint-disable-next-line no-control-regex
    const text = input.replace(/\r\n|[\r\n]/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '');
    if (text !== '') update(value + text);
  });
  return (
    <Text>
      <Text bold>{label}</Text>
      {escapeControl(value)}
      <Text inverse> </Text>
      {hint ? <Text dimColor>{`  ${hint}`}</Text> : null}
    </Text>
  );
}
