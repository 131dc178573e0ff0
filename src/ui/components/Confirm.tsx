// A yes/no question: y confirms; n, Esc or anything else says no.
import { Text } from 'ink';
import { useKeys } from '../hooks/useKeys.js';

export interface ConfirmProps {
  /** Already escaped. */
  readonly question: string;
  readonly onAnswer: (yes: boolean) => void;
}

export function Confirm({ question, onAnswer }: ConfirmProps) {
  useKeys((input, key) => {
    if (input === 'y' || input === 'Y') onAnswer(true);
    else if (input !== '' || key.escape || key.return) onAnswer(false);
  });
  return (
    <Text>
      <Text color="yellow" bold>
        {question}
      </Text>
      <Text> [y/N] </Text>
    </Text>
  );
}
