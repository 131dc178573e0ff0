// The prompt of an operator's action (hooks/useOps): a yes/no question that states how many
// messages it takes, or a line to type (the target queue, N, the export file).
import { Confirm } from './Confirm.js';
import { LineInput } from './LineInput.js';
import type { KeyRouter } from '../hooks/useKeys.js';
import type { OpsModal } from '../hooks/useOps.js';
import type { PromptText } from '../model/prompt-lines.js';

export interface OpsPromptProps {
  readonly keys: KeyRouter;
  readonly modal: OpsModal;
  readonly width: number;
  /** The lines the prompt may take (TopApp's layout); a longer question wraps onto them. */
  readonly maxLines: number;
  /** Closes the prompt (before its answer is acted on). */
  readonly close: () => void;
  /** Closes the prompt and says "cancelled". */
  readonly cancel: () => void;
}

/** The text of an operator's prompt (TopApp makes room for it). */
export function opsPromptText(modal: OpsModal): PromptText {
  return modal.kind === 'confirm' ? { kind: 'confirm', before: modal.question } : { kind: 'input', before: modal.label };
}

export function OpsPrompt({ keys, modal, width, maxLines, close, cancel }: OpsPromptProps) {
  const text = opsPromptText(modal);
  if (modal.kind === 'confirm') {
    const answer = (yes: boolean) => {
      if (!yes) return cancel();
      close();
      modal.onYes();
    };
    // Wrapped when it does not fit: the queue name and the count always show whole.
    return <Confirm keys={keys} question={text} width={width} maxLines={maxLines} onAnswer={answer} />;
  }
  const submit = (typed: string) => {
    close();
    modal.onSubmit(typed);
  };
  return (
    <LineInput
      keys={keys}
      label={text}
      width={width}
      maxLines={maxLines}
      initial={modal.initial}
      hint={modal.hint}
      onSubmit={submit}
      onCancel={cancel}
    />
  );
}
