// A text input: printable characters, Backspace, Ctrl-U to clear, Enter submits, Esc
// cancels. Small on purpose; a paste arrives as one chunk.
import { useState } from 'react';
import { Box, Text, useStdout } from 'ink';
import { LAYER_PROMPT, useKeyTarget, type KeyRouter } from '../hooks/useKeys.js';
import { INPUT_MARK, MIN_TEXT_CELLS, promptLines, type PromptText } from '../model/prompt-lines.js';
import { escapeControl } from '../../text/escape.js';
import { cellWidth, tailToCells } from '../../text/width.js';

export interface LineInputProps {
  readonly label: string | PromptText;
  /**
   * The prompt's cells (the terminal's when not given), and the lines it may take (1 when
   * not given: a prompt inside a screen); model/prompt-lines lays it out.
   */
  readonly width?: number;
  readonly maxLines?: number;
  readonly initial?: string;
  /** Shown after the input in grey (what Enter and Esc do). */
  readonly hint?: string;
  readonly onChange?: (value: string) => void;
  readonly onSubmit: (value: string) => void;
  readonly onCancel: () => void;
  readonly keys: KeyRouter;
}

export function LineInput(p: LineInputProps) {
  const { initial = '', hint, onChange, onSubmit, onCancel, keys } = p;
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
  // The label on one line with the text after it, or wrapped with the text on a line of its
  // own (model/prompt-lines). The typed text is one line, whatever is typed or pasted: its
  // end (where the cursor is) stays in view, the start gives way to "…", and the hint goes
  // when the line is too narrow.
  const text: PromptText = typeof p.label === 'string' ? { kind: 'input', before: p.label } : p.label;
  const columns = useStdout().stdout.columns || 80;
  const width = p.width ?? columns;
  const layout = promptLines(text, width, p.maxLines ?? 1);
  const own = layout.input === 'own';
  const lead = own ? INPUT_MARK : (layout.lines[0] ?? '');
  const hintText = hint ? `  ${hint}` : '';
  const room = Math.max(1, width - 1 - cellWidth(lead) - 1); // the cursor's cell, and one spare
  const withHint = room - cellWidth(hintText) >= MIN_TEXT_CELLS;
  const typed = tailToCells(escapeControl(value), withHint ? room - cellWidth(hintText) : room);
  const inputLine = (
    <Text wrap="truncate-end">
      <Text bold>{lead}</Text>
      {typed}
      <Text inverse> </Text>
      {withHint && hintText ? <Text dimColor>{hintText}</Text> : null}
    </Text>
  );
  if (!own) return inputLine;
  return (
    <Box flexDirection="column">
      {layout.lines.map((line, i) => (
        <Text key={i} bold wrap="truncate-end">
          {line}
        </Text>
      ))}
      {inputLine}
    </Box>
  );
}
