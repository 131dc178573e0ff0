// The prompts of top, one component each: they show the question and hand the answer to
// their callbacks; what an answer does is useQueueActions' (or, for jump, useCommandDispatch's
// and, for filter, the list's).
import { Confirm } from './Confirm.js';
import { LineInput } from './LineInput.js';
import type { KeyRouter } from '../hooks/useKeys.js';
import type { QueueActions } from '../hooks/useQueueActions.js';
import type { Modal } from '../model/navigation.js';
import { modalPromptText, type PromptText } from '../model/prompt-lines.js';

interface PromptBase {
  readonly keys: KeyRouter;
  /** The footer's cells, and the lines the prompt may take (a longer question wraps onto them). */
  readonly width: number;
  readonly maxLines: number;
  /** The question or label (model/prompt-lines: modalPromptText). */
  readonly text: PromptText;
}

/** The list filter: applied as it is typed; Enter keeps it, Esc clears it. */
export function FilterPrompt(
  p: PromptBase & { initial: string; onChange: (text: string) => void; onKeep: () => void; onClear: () => void },
) {
  return (
    <LineInput
      keys={p.keys}
      label={p.text}
      width={p.width}
      maxLines={p.maxLines}
      initial={p.initial}
      hint="Enter keeps · Esc clears"
      onChange={p.onChange}
      onSubmit={p.onKeep}
      onCancel={p.onClear}
    />
  );
}

export function JumpPrompt(p: PromptBase & { onJump: (text: string) => void; onCancel: () => void }) {
  return (
    <LineInput
      keys={p.keys}
      label={p.text}
      width={p.width}
      maxLines={p.maxLines}
      hint="Enter jumps · Esc cancels"
      onSubmit={p.onJump}
      onCancel={p.onCancel}
    />
  );
}

/** "Delete message 12 in orders? [y/N]", wrapped when it does not fit. */
export function ConfirmPrompt(p: PromptBase & { onAnswer: (yes: boolean) => void }) {
  return <Confirm keys={p.keys} question={p.text} width={p.width} maxLines={p.maxLines} onAnswer={p.onAnswer} />;
}

/** Purge asks for the queue's name to be typed, not for a y. */
export function PurgePrompt(p: PromptBase & { onSubmit: (typed: string) => void; onCancel: () => void }) {
  return (
    <LineInput
      keys={p.keys}
      label={p.text}
      width={p.width}
      maxLines={p.maxLines}
      hint="Esc cancels"
      onSubmit={p.onSubmit}
      onCancel={p.onCancel}
    />
  );
}

export function SendPrompt(p: PromptBase & { jsonBodies: boolean; onSubmit: (body: string) => void; onCancel: () => void }) {
  return (
    <LineInput
      keys={p.keys}
      label={p.text}
      width={p.width}
      maxLines={p.maxLines}
      hint={p.jsonBodies ? 'a JSON body · Enter shows it before sending · Esc cancels' : 'Enter shows it before sending · Esc cancels'}
      onSubmit={p.onSubmit}
      onCancel={p.onCancel}
    />
  );
}

export interface ModalPromptProps {
  readonly keys: KeyRouter;
  /** The prompt open (not help: help is a screen). */
  readonly modal: Exclude<Modal, { kind: 'help' }>;
  readonly width: number;
  /** The lines the prompt may take (TopApp's layout). */
  readonly maxLines: number;
  readonly jsonBodies: boolean;
  readonly filterText: string;
  readonly onFilterChange: (text: string) => void;
  readonly onJump: (text: string) => void;
  readonly actions: Pick<QueueActions, 'answer' | 'purge' | 'send' | 'confirmSend'>;
  /** Closes the prompt (before its answer is acted on). */
  readonly close: () => void;
  /** Closes the prompt and says "cancelled". */
  readonly cancel: () => void;
}

/** The prompt of `modal`, wired to what its answer does. */
export function ModalPrompt(p: ModalPromptProps) {
  const { modal, close } = p;
  const text = modalPromptText(modal, p.jsonBodies);
  // A body to send that does not preview was refused by the prompt: it never gets here.
  if (!text) return null;
  const base = { keys: p.keys, width: p.width, maxLines: p.maxLines, text };
  const then =
    <A,>(act: (a: A) => void) =>
    (a: A) => {
      close();
      act(a);
    };
  switch (modal.kind) {
    case 'filter': {
      const clear = () => {
        p.onFilterChange('');
        close();
      };
      return <FilterPrompt {...base} initial={p.filterText} onChange={p.onFilterChange} onKeep={close} onClear={clear} />;
    }
    case 'jump':
      return <JumpPrompt {...base} onJump={then(p.onJump)} onCancel={close} />;
    case 'confirm':
      return <ConfirmPrompt {...base} onAnswer={then((yes: boolean) => p.actions.answer(modal, yes))} />;
    case 'purge':
      return <PurgePrompt {...base} onSubmit={then((typed: string) => p.actions.purge(modal.queue, typed))} onCancel={p.cancel} />;
    case 'send': {
      const submit = then((body: string) => p.actions.send(modal.queue, body));
      return <SendPrompt {...base} jsonBodies={p.jsonBodies} onSubmit={submit} onCancel={p.cancel} />;
    }
    case 'sendConfirm': {
      const answer = then((yes: boolean) => p.actions.confirmSend(modal.queue, modal.body, yes));
      return <ConfirmPrompt {...base} onAnswer={answer} />;
    }
  }
}
