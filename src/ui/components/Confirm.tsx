// A yes/no question: y confirms; n, Esc or anything else says no.
import { Text, useInput } from 'ink';

export interface ConfirmProps {
  /** Already escaped. */
  readonly question: string;
  readonly onAnswer: (yes: boolean) => void;
}

export function Confirm({ question, onAnswer }: ConfirmProps) {
  useInput((input, key) => {
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
