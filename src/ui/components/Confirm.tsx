// A yes/no question: y confirms; n, Esc or anything else says no.
import { Text } from 'ink';
import { LAYER_PROMPT, useKeyTarget, type KeyRouter } from '../hooks/useKeys.js';

export interface ConfirmProps {
  /** Already escaped. */
  readonly question: string;
  readonly onAnswer: (yes: boolean) => void;
  readonly keys: KeyRouter;
}

export function Confirm({ question, onAnswer, keys }: ConfirmProps) {
  useKeyTarget(
    keys,
    (input, key) => {
    if (input === 'y' || input === 'Y') onAnswer(true);
    else if (input !== '' || key.escape || key.return) onAnswer(false);
    },
    { layer: LAYER_PROMPT },
  );
  return (
    <Text>
      <Text color="yellow" bold>
        {question}
      </Text>
      <Text> [y/N] </Text>
    </Text>
  );
}
