// A yes/no question: y confirms; n, Esc or anything else says no.
import { Text } from 'ink';
import { LAYER_PROMPT, useKeyTarget, type KeyRouter } from '../hooks/useKeys.js';
import { cellWidth, cutToCells } from '../../text/width.js';

const ANSWER = ' [y/N] ';

/**
 * "Delete message 12 in orders?" on one line of `width` cells: the id is always shown
 * whole, a long queue name is cut (a wrapped prompt would push the header off the screen).
 */
export function confirmQuestion(ask: string, id: bigint, queueLabel: string, width: number): string {
  const head = `${ask} message ${id} in `;
  const room = Math.max(1, width - cellWidth(head) - cellWidth(`?${ANSWER}`));
  return `${head}${cutToCells(queueLabel, room)}?`;
}

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
      <Text>{ANSWER}</Text>
    </Text>
  );
}
