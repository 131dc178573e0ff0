// Where top is: the stack of screens (list, queue, message) and the prompt open on top of
// them. A pure reducer, so every move between screens is tested without Ink.
import type { MessageId, MessageSource } from '../../backends/types.js';
import { initialPaging, jumpTo, type PagingState } from './paging.js';
import type { QueueRef } from './queue-ref.js';

export type ScreenEntry =
  | { readonly kind: 'list' }
  | {
      readonly kind: 'queue';
      readonly queue: QueueRef;
      readonly paging: PagingState;
      readonly selected: number;
      /** 'archive': the queue's archive (pgmq) or failed messages (SmoothMQ); default the queue. */
      readonly source?: MessageSource;
    }
  | { readonly kind: 'message'; readonly queue: QueueRef; readonly id: MessageId; readonly source?: MessageSource }
  /** A queue's FIFO groups (views/GroupsScreen). */
  | { readonly kind: 'groups'; readonly queue: QueueRef }
  /** Every topic binding (views/TopicsScreen). */
  | { readonly kind: 'topics' };

export type MessageAction = 'delete' | 'archive' | 'makeVisible';

export type Modal =
  | { readonly kind: 'help' }
  | { readonly kind: 'filter' }
  | { readonly kind: 'jump' }
  | { readonly kind: 'confirm'; readonly action: MessageAction; readonly queue: QueueRef; readonly id: MessageId }
  | { readonly kind: 'purge'; readonly queue: QueueRef }
  | { readonly kind: 'send'; readonly queue: QueueRef }
  /** The body typed at `send`, shown parsed, asked about before it is sent. */
  | { readonly kind: 'sendConfirm'; readonly queue: QueueRef; readonly body: string };

export interface Navigation {
  /** Never empty: the list is at the bottom. */
  readonly stack: readonly ScreenEntry[];
  readonly modal: Modal | undefined;
}

export const INITIAL_NAVIGATION: Navigation = { stack: [{ kind: 'list' }], modal: undefined };

export type NavigationEvent =
  /** The queue view of `queue`, on its first page of `pageSize` messages (of one FIFO group, if given). */
  | { readonly type: 'openQueue'; readonly queue: QueueRef; readonly pageSize: number; readonly group?: string | null }
  /** The FIFO groups of the queue on top. */
  | { readonly type: 'openGroups' }
  /** The topic bindings (from the list). */
  | { readonly type: 'openTopics' }
  /** The archive (or failed messages) of the queue on top, in a queue view of its own. */
  | { readonly type: 'openArchive'; readonly pageSize: number }
  /** The detail of a message of the queue on top. */
  | { readonly type: 'openMessage'; readonly id: MessageId }
  /** Esc: one screen back; the list stays. */
  | { readonly type: 'back' }
  /** The queue on top moved to another page or row. */
  | { readonly type: 'paged'; readonly paging: PagingState; readonly selected: number }
  /** The queue on top starts at this id. */
  | { readonly type: 'jump'; readonly id: MessageId }
  /** This message was deleted or archived: its detail, if on top, has nothing to show. */
  | { readonly type: 'messageGone'; readonly id: MessageId }
  | { readonly type: 'openModal'; readonly modal: Modal }
  | { readonly type: 'closeModal' };

export function topScreen(n: Navigation): ScreenEntry {
  return n.stack[n.stack.length - 1]!;
}

function replaceQueueOnTop(n: Navigation, change: (e: Extract<ScreenEntry, { kind: 'queue' }>) => ScreenEntry): Navigation {
  const top = topScreen(n);
  if (top.kind !== 'queue') return n;
  return { ...n, stack: [...n.stack.slice(0, -1), change(top)] };
}

export function navigate(n: Navigation, e: NavigationEvent): Navigation {
  switch (e.type) {
    case 'openQueue': {
      const paging = initialPaging(e.pageSize, 'oldest', e.group);
      return { ...n, stack: [...n.stack, { kind: 'queue', queue: e.queue, paging, selected: 0 }] };
    }
    case 'openGroups': {
      const top = topScreen(n);
      if (top.kind !== 'queue') return n;
      return { ...n, stack: [...n.stack, { kind: 'groups', queue: top.queue }] };
    }
    case 'openTopics':
      return topScreen(n).kind === 'list' ? { ...n, stack: [...n.stack, { kind: 'topics' }] } : n;
    case 'openArchive': {
      const top = topScreen(n);
      if (top.kind !== 'queue' || top.source === 'archive') return n;
      const entry: ScreenEntry = { kind: 'queue', queue: top.queue, paging: initialPaging(e.pageSize), selected: 0, source: 'archive' };
      return { ...n, stack: [...n.stack, entry] };
    }
    case 'openMessage': {
      const top = topScreen(n);
      if (top.kind !== 'queue') return n;
      const source = top.source === 'archive' ? { source: top.source } : {};
      return { ...n, stack: [...n.stack, { kind: 'message', queue: top.queue, id: e.id, ...source }] };
    }
    case 'back':
      return n.stack.length > 1 ? { ...n, stack: n.stack.slice(0, -1) } : n;
    case 'paged':
      return replaceQueueOnTop(n, (q) => ({ ...q, paging: e.paging, selected: e.selected }));
    case 'jump':
      return replaceQueueOnTop(n, (q) => ({ ...q, paging: jumpTo(q.paging, e.id), selected: 0 }));
    case 'messageGone': {
      const top = topScreen(n);
      return top.kind === 'message' && top.id === e.id ? { ...n, stack: n.stack.slice(0, -1) } : n;
    }
    case 'openModal':
      return { ...n, modal: e.modal };
    case 'closeModal':
      return n.modal === undefined ? n : { ...n, modal: undefined };
  }
}

/** How the message actions are asked about and reported. */
export const ACTION_WORDS = {
  delete: { ask: 'Delete', done: 'deleted', gone: 'was not there any more (nothing deleted)' },
  archive: { ask: 'Archive', done: 'archived', gone: 'was not there any more (nothing archived)' },
  makeVisible: { ask: 'Make visible now', done: 'made visible', gone: 'was not there any more (nothing changed)' },
} as const satisfies Record<MessageAction, { ask: string; done: string; gone: string }>;
