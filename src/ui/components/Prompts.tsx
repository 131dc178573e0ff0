// The prompts of top, one component each: they show the question and hand the answer to
// their callbacks; what an answer does is useQueueActions' (or, for jump, useCommandDispatch's
// and, for filter, the list's).
import { Confirm, confirmQuestion } from './Confirm.js';
import { previewBody, sendQuestion } from '../model/send-preview.js';
import { LineInput } from './LineInput.js';
import type { KeyRouter } from '../hooks/useKeys.js';
import type { QueueActions } from '../hooks/useQueueActions.js';
import { ACTION_WORDS, type Modal } from '../model/navigation.js';
import type { QueueRef } from '../model/queue-ref.js';

interface PromptBase {
  readonly keys: KeyRouter;
}

/** The list filter: applied as it is typed; Enter keeps it, Esc clears it. */
export function FilterPrompt(
  p: PromptBase & { initial: string; onChange: (text: string) => void; onKeep: () => void; onClear: () => void },
) {
  return (
    <LineInput
      keys={p.keys}
      label="filter (regex): /"
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
    <LineInput keys={p.keys} label="jump to message id: " hint="Enter jumps · Esc cancels" onSubmit={p.onJump} onCancel={p.onCancel} />
  );
}

/** "Delete message 12 in orders? [y/N]", cut to the width. */
export function ConfirmPrompt(
  p: PromptBase & { modal: Extract<Modal, { kind: 'confirm' }>; width: number; onAnswer: (yes: boolean) => void },
) {
  const { modal } = p;
  return (
    <Confirm
      keys={p.keys}
      question={confirmQuestion(ACTION_WORDS[modal.action].ask, modal.id, modal.queue.label, p.width)}
      onAnswer={p.onAnswer}
    />
  );
}

/** Purge asks for the queue's name to be typed, not for a y. */
export function PurgePrompt(p: PromptBase & { queue: QueueRef; onSubmit: (typed: string) => void; onCancel: () => void }) {
  return (
    <LineInput
      keys={p.keys}
      label={`Purge deletes EVERY message of ${p.queue.label}. Type the queue name to confirm: `}
      hint="Esc cancels"
      onSubmit={p.onSubmit}
      onCancel={p.onCancel}
    />
  );
}

export function SendPrompt(
  p: PromptBase & { queue: QueueRef; jsonBodies: boolean; onSubmit: (body: string) => void; onCancel: () => void },
) {
  return (
    <LineInput
      keys={p.keys}
      label={`send to ${p.queue.label}: `}
      hint={p.jsonBodies ? 'a JSON body · Enter shows it before sending · Esc cancels' : 'Enter shows it before sending · Esc cancels'}
      onSubmit={p.onSubmit}
      onCancel={p.onCancel}
    />
  );
}

export interface ModalPromptProps extends PromptBase {
  /** The prompt open (not help: help is a screen). */
  readonly modal: Exclude<Modal, { kind: 'help' }>;
  readonly width: number;
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
  const { modal, keys, close } = p;
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
      return <FilterPrompt keys={keys} initial={p.filterText} onChange={p.onFilterChange} onKeep={close} onClear={clear} />;
    }
    case 'jump':
      return <JumpPrompt keys={keys} onJump={then(p.onJump)} onCancel={close} />;
    case 'confirm':
      return <ConfirmPrompt keys={keys} modal={modal} width={p.width} onAnswer={then((yes: boolean) => p.actions.answer(modal, yes))} />;
    case 'purge':
      return (
        <PurgePrompt
          keys={keys}
          queue={modal.queue}
          onSubmit={then((typed: string) => p.actions.purge(modal.queue, typed))}
          onCancel={p.cancel}
        />
      );
    case 'send': {
      const submit = then((body: string) => p.actions.send(modal.queue, body));
      return <SendPrompt keys={keys} queue={modal.queue} jsonBodies={p.jsonBodies} onSubmit={submit} onCancel={p.cancel} />;
    }
    case 'sendConfirm': {
      const preview = previewBody(modal.body, p.jsonBodies);
      // The prompt refused what it cannot send; a body that got here always previews.
      if (!preview.ok) return null;
      const answer = then((yes: boolean) => p.actions.confirmSend(modal.queue, modal.body, yes));
      return <Confirm keys={keys} question={sendQuestion(preview, modal.queue.label, p.width)} onAnswer={answer} />;
    }
  }
}
