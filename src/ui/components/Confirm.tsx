// A yes/no question: y confirms; n, Esc or anything else says no.
import { Box, Text } from 'ink';
import { LAYER_PROMPT, useKeyTarget, type KeyRouter } from '../hooks/useKeys.js';
import { ANSWER, promptLines, type PromptText } from '../model/prompt-lines.js';

export interface ConfirmProps {
  /** Already escaped. */
  readonly question: string | PromptText;
  /** The question is word-wrapped to this many cells, onto at most `maxLines` lines (model/prompt-lines). */
  readonly width: number;
  readonly maxLines: number;
  readonly onAnswer: (yes: boolean) => void;
  readonly keys: KeyRouter;
}

export function Confirm({ question, width, maxLines, onAnswer, keys }: ConfirmProps) {
  useKeyTarget(
    keys,
    (input, key) => {
      if (input === 'y' || input === 'Y') onAnswer(true);
      else if (input !== '' || key.escape || key.return) onAnswer(false);
    },
    { layer: LAYER_PROMPT },
  );
  const text: PromptText = typeof question === 'string' ? { kind: 'confirm', before: question } : question;
  const { lines } = promptLines(text, width, maxLines);
  const answer = ANSWER.trim();
  return (
    <Box flexDirection="column">
      {lines.map((line, i) => {
        const last = i === lines.length - 1 && line.endsWith(answer);
        return (
          <Text key={i} wrap="truncate-end">
            <Text color="yellow" bold>
              {last ? line.slice(0, line.length - answer.length) : line}
            </Text>
            {last ? <Text>{answer}</Text> : null}
          </Text>
        );
      })}
    </Box>
  );
}
