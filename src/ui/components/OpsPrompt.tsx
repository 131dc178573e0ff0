// The prompt of an operator's action (hooks/useOps): a yes/no question that states how many
// messages it takes, or a line to type (the target queue, N, the export file).
import { Confirm } from './Confirm.js';
import { LineInput } from './LineInput.js';
import type { KeyRouter } from '../hooks/useKeys.js';
import type { OpsModal } from '../hooks/useOps.js';
import { cutToCells } from '../../text/width.js';

export interface OpsPromptProps {
  readonly keys: KeyRouter;
  readonly modal: OpsModal;
  readonly width: number;
  /** Closes the prompt (before its answer is acted on). */
  readonly close: () => void;
  /** Closes the prompt and says "cancelled". */
  readonly cancel: () => void;
}

export function OpsPrompt({ keys, modal, width, close, cancel }: OpsPromptProps) {
  if (modal.kind === 'confirm') {
    const answer = (yes: boolean) => {
      if (!yes) return cancel();
      close();
      modal.onYes();
    };
    // One line: a long queue name is cut, the count (at the start) always shows.
    return <Confirm keys={keys} question={cutToCells(modal.question, Math.max(10, width - 8))} onAnswer={answer} />;
  }
  const submit = (text: string) => {
    close();
    modal.onSubmit(text);
  };
  // One line too: room is kept for what is typed (a long queue name in the label is cut).
  const label = cutToCells(modal.label, Math.max(10, width - 24));
  return <LineInput keys={keys} label={label} initial={modal.initial} hint={modal.hint} onSubmit={submit} onCancel={cancel} />;
}
