// What top does to queues and messages: it asks first (opens a prompt), then calls the
// backend, says how it went, and reloads what is on screen. One action at a time.
import { useRef, useState } from 'react';
import { stillRunning } from './useNotice.js';
import type { Backend, Capabilities, Message } from '../../backends/types.js';
import type { Action } from '../model/keys.js';
import { counted } from '../model/format.js';
import { previewBody } from '../model/send-preview.js';
import { errorText } from '../model/monitor.js';
import { ACTION_WORDS, type Modal, type NavigationEvent } from '../model/navigation.js';
import { typedNameIs, type QueueRef } from '../model/queue-ref.js';
import type { Status } from '../components/Footer.js';

export type Say = (text: string, tone?: Status['tone']) => void;

export interface QueueActionsOptions {
  readonly readOnly: boolean;
  readonly readOnlyReason?: string | undefined;
  readonly capabilities: Capabilities;
  readonly resolveBackend: (queue: QueueRef) => Promise<Backend>;
  readonly navigate: (event: NavigationEvent) => void;
  readonly say: Say;
  /** Refreshes the queue list now (counts change after an action). */
  readonly refreshList: () => void;
}

export interface QueueActions {
  /** An action is running: keys wait for it. */
  readonly busy: boolean;
  /** Grows after every action: the open screen loads its messages again. */
  readonly reloadToken: number;
  /** A key asked for an action: opens its prompt, or says why not. */
  readonly request: (action: Action, queue: QueueRef | undefined, message: Message | undefined) => void;
  /** The answer to "Delete message 12 in orders?". */
  readonly answer: (modal: Extract<Modal, { kind: 'confirm' }>, yes: boolean) => void;
  /** What was typed at the purge prompt (the queue's name, to go ahead). */
  readonly purge: (queue: QueueRef, typed: string) => void;
  /** The body typed at the send prompt: refused at once, or shown and asked about. */
  readonly send: (queue: QueueRef, body: string) => void;
  /** The answer to "Send to orders: {…}?". */
  readonly confirmSend: (queue: QueueRef, body: string, yes: boolean) => void;
}

export function useQueueActions(o: QueueActionsOptions): QueueActions {
  const [busy, setBusy] = useState(false);
  /** What the action in progress is called (its notice). */
  const running = useRef('an action');
  const [reloadToken, setReloadToken] = useState(0);
  const { say } = o;

  const run = async (label: string, queue: QueueRef, fn: (b: Backend) => Promise<string>) => {
    setBusy(true);
    running.current = label;
    say(`${label}…`, 'working');
    try {
      const b = await o.resolveBackend(queue);
      say(await fn(b), 'ok');
    } catch (e) {
      say(`${label} failed: ${errorText(e)}`, 'error');
    } finally {
      // The reload first: keys typed after the answer wait for the page without the message.
      setReloadToken((t) => t + 1);
      setBusy(false);
      o.refreshList();
    }
  };

  const request: QueueActions['request'] = (action, queue, message) => {
    if (o.readOnly) {
      say(`read-only: actions are disabled (${o.readOnlyReason ?? 'top was started with --read-only'})`, 'error');
      return;
    }
    if (busy) return say(stillRunning(running.current), 'working');
    if (!queue) return;
    if (action === 'purge') return o.navigate({ type: 'openModal', modal: { kind: 'purge', queue } });
    if (action === 'send') return o.navigate({ type: 'openModal', modal: { kind: 'send', queue } });
    if (action === 'archive' && !o.capabilities.archive) {
      say('this backend has no archive', 'error');
      return;
    }
    if (!message) {
      say('no message selected');
      return;
    }
    o.navigate({ type: 'openModal', modal: { kind: 'confirm', action, queue, id: message.id } });
  };

  const answer: QueueActions['answer'] = (m, yes) => {
    if (!yes) return say('cancelled');
    const words = ACTION_WORDS[m.action];
    const id = m.id;
    void run(`${words.ask.toLowerCase()} message ${id}`, m.queue, async (b) => {
      const changed =
        m.action === 'delete'
          ? await b.delete(m.queue.rawName, [id])
          : m.action === 'archive'
            ? await b.archive(m.queue.rawName, [id])
            : await b.setVisibility(m.queue.rawName, [id], 0);
      if (changed.length === 0) return `message ${id} ${words.gone}`;
      // A deleted or archived message has no detail to show any more.
      if (m.action !== 'makeVisible') o.navigate({ type: 'messageGone', id });
      return `${words.done} message ${id} in ${m.queue.label}`;
    });
  };

  const purge: QueueActions['purge'] = (q, typed) => {
    // The name as shown (escaped, decoded) or as the backend knows it, never the label.
    if (!typedNameIs(typed, q)) return say('purge cancelled: the name did not match', 'error');
    void run(`purge ${q.label}`, q, async (b) => `purged ${counted(await b.purgeQueue(q.rawName), 'message')} from ${q.label}`);
  };

  const send: QueueActions['send'] = (q, body) => {
    const preview = previewBody(body, o.capabilities.jsonBodies);
    if (!preview.ok) return say(preview.problem, 'error');
    o.navigate({ type: 'openModal', modal: { kind: 'sendConfirm', queue: q, body } });
  };

  const confirmSend: QueueActions['confirmSend'] = (q, body, yes) => {
    if (!yes) return say('cancelled: nothing sent');
    void run(`send to ${q.label}`, q, async (b) => `sent message ${await b.send(q.rawName, { body })} to ${q.label}`);
  };

  return { busy, reloadToken, request, answer, purge, send, confirmSend };
}
