// Commands of top whose logic lives outside TopApp (issue 18): `p` (the message in $PAGER)
// and, on the list, `n` and Ctrl-D (create and drop a queue). useCommandDispatch hands every
// command here first; the prompt they open is shown like an operation's (OpsPrompt).
import type { Backend, Message } from '../../backends/types.js';
import type { Command } from '../model/keys.js';
import type { QueueRef } from '../model/queue-ref.js';
import type { OpsModal } from './useOps.js';
import { usePager } from './usePager.js';
import { useQueueAdmin, type QueueAdminOptions } from './useQueueAdmin.js';

/** A prompt for OpsPrompt: what it asks, how it closes, how it is cancelled ("cancelled"). */
export interface OpenPrompt {
  /** Remounts the prompt when the question changes. */
  readonly id: string;
  readonly modal: OpsModal;
  readonly close: () => void;
  readonly cancel: () => void;
}

export interface TopCommands {
  readonly busy: boolean;
  /** The prompt to show: create / drop's, else the operation's given (one at a time). */
  readonly promptOr: (opsModal: OpsModal | undefined, closeOps: () => void) => OpenPrompt | undefined;
  /** True when the command was one of these (and was acted on). */
  readonly handle: (cmd: Command, queue: QueueRef | undefined, message: Message | undefined, onList: boolean) => boolean;
}

export function useTopCommands(o: QueueAdminOptions & { readonly backend: Backend }): TopCommands {
  const pager = usePager(o.backend.capabilities, o.say);
  const admin = useQueueAdmin(o);
  const handle: TopCommands['handle'] = (cmd, queue, message, onList) => {
    if (cmd.type === 'pager') {
      if (queue) pager(queue, message);
      return true;
    }
    if (cmd.type !== 'createQueue' && cmd.type !== 'dropQueue') return false;
    if (onList) {
      if (cmd.type === 'createQueue') admin.create();
      else admin.drop(queue);
    }
    return true;
  };
  const promptOr: TopCommands['promptOr'] = (opsModal, closeOps) => {
    const [modal, close] = admin.modal ? [admin.modal, admin.closeModal] : [opsModal, closeOps];
    if (!modal) return undefined;
    const cancel = () => {
      close();
      o.say('cancelled');
    };
    return { id: modal.kind === 'input' ? modal.label : modal.question, modal, close, cancel };
  };
  return { busy: admin.busy, promptOr, handle };
}
