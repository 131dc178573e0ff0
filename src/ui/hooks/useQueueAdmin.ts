// `n` and Ctrl-D on top's list (issue 18): create a queue (the name checked as `smq create`
// checks it: pgmq a plain queue, SmoothMQ the defaults `smq create` gives) and drop the
// highlighted one through the Backend contract. Drop states the queue and its messages,
// counted at that moment; a queue with messages is dropped only after its name is typed. The
// drop goes ahead only if the queue holds at most the count the question stated (checked in
// the drop's own transaction): messages sent before the y or the Enter keep it, and one line
// says so.
// Both are refused in read-only mode with one line. The prompts are OpsPrompt's.
import { useRef, useState } from 'react';
import { stillRunning } from './useNotice.js';
import type { Backend } from '../../backends/types.js';
import { QueueNotEmptyError } from '../../errors.js';
import { escapeName } from '../../text/escape.js';
import { errorText } from '../model/monitor.js';
import { createProblem, dropLimit, dropNeedsName, dropQuestion, notDroppedLine } from '../model/queue-admin.js';
import { typedNameIs, type QueueRef } from '../model/queue-ref.js';
import type { OpsModal } from './useOps.js';
import type { Say } from './useQueueActions.js';

export interface QueueAdminOptions {
  readonly readOnly: boolean;
  readonly readOnlyReason?: string | undefined;
  /** The backend top was opened with: new queues go there (SmoothMQ: its tenant). */
  readonly backend: Backend;
  readonly resolveBackend: (queue: QueueRef) => Promise<Backend>;
  readonly say: Say;
  readonly refreshList: () => void;
}

export interface QueueAdmin {
  readonly busy: boolean;
  readonly modal: OpsModal | undefined;
  readonly closeModal: () => void;
  readonly create: () => void;
  readonly drop: (queue: QueueRef | undefined) => void;
}

export function useQueueAdmin(o: QueueAdminOptions): QueueAdmin {
  const [modal, setModal] = useState<OpsModal | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  /** What the action in progress is called (its notice). */
  const running = useRef('an action');
  const { say } = o;

  const refused = () => {
    if (!o.readOnly) return false;
    say(`read-only: actions are disabled (${o.readOnlyReason ?? 'top was started with --read-only'})`, 'error');
    return true;
  };
  const run = async (label: string, fn: () => Promise<string>, failed?: (e: QueueNotEmptyError) => string) => {
    setBusy(true);
    running.current = label;
    say(`${label}…`, 'working');
    try {
      say(await fn(), 'ok');
    } catch (e) {
      say(e instanceof QueueNotEmptyError && failed ? failed(e) : `${label} failed: ${errorText(e)}`, 'error');
    } finally {
      setBusy(false);
      o.refreshList();
    }
  };

  const create = () => {
    if (refused()) return;
    if (busy) return say(stillRunning(running.current), 'working');
    setModal({
      kind: 'input',
      label: 'create queue: ',
      initial: '',
      hint: 'Enter creates · Esc cancels',
      onSubmit: (name) => {
        const problem = createProblem(o.backend.kind, name);
        if (problem) return say(problem, 'error');
        // As the list will write it (JSON.stringify would double its backslashes again).
        const shown = `"${escapeName(name)}"`;
        void run(`create ${shown}`, async () =>
          (await o.backend.createQueue(name)) ? `created queue ${shown}` : `queue ${shown} already exists`,
        );
      },
    });
  };

  const drop = (queue: QueueRef | undefined) => {
    if (refused()) return;
    if (busy) return say(stillRunning(running.current), 'working');
    if (!queue) return say('no queue selected');
    setBusy(true);
    void (async () => {
      try {
        // Counted now, not from the last refresh: the question states what will go.
        const b = await o.resolveBackend(queue);
        // Counted, not estimated: the drop is guarded by the count the question states (dropLimit).
        const s = await b.queueStats(queue.rawName, { exact: true });
        const count = { total: s.total, estimated: s.estimated, archived: s.archived };
        // Dropped only if the queue holds at most what the question stated, counted in the
        // drop's own transaction: messages sent meanwhile keep it, and one line says so.
        const atMost = dropLimit(count);
        const act = () =>
          void run(
            `drop ${queue.label}`,
            async () => (await b.dropQueue(queue.rawName, { atMost }), `dropped queue ${queue.label}`),
            (e) => notDroppedLine(queue.label, e.messages, count),
          );
        const question = dropQuestion(queue.label, count);
        if (!dropNeedsName(count)) return setModal({ kind: 'confirm', question, onYes: act });
        setModal({
          kind: 'input',
          label: question,
          initial: '',
          hint: 'Esc cancels',
          // The name as shown (escaped) or as the backend knows it: never the label with its tenant.
          onSubmit: (typed) => (typedNameIs(typed, queue) ? act() : say('drop cancelled: the name did not match', 'error')),
        });
      } catch (e) {
        say(`cannot drop ${queue.label}: ${errorText(e)}`, 'error');
      } finally {
        setBusy(false);
      }
    })();
  };

  return { busy, modal, closeModal: () => setModal(undefined), create, drop };
}
