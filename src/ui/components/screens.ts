// What top shows: the stack of screens (list, queue, message) and the prompt on top of
// them, and the words of the message actions. Types only, shared by TopApp and its parts.
import type { MessageId } from '../../backends/types.js';
import type { PagingState } from '../model/paging.js';
import type { QueueRef } from './types.js';

export type ScreenEntry =
  | { readonly kind: 'list' }
  | { readonly kind: 'queue'; readonly queue: QueueRef; readonly paging: PagingState; readonly selected: number }
  | { readonly kind: 'message'; readonly queue: QueueRef; readonly id: MessageId };

export type Modal =
  | { readonly kind: 'help' }
  | { readonly kind: 'filter' }
  | { readonly kind: 'jump' }
  | { readonly kind: 'confirm'; readonly action: 'delete' | 'archive' | 'makeVisible'; readonly queue: QueueRef; readonly id: MessageId }
  | { readonly kind: 'purge'; readonly queue: QueueRef }
  | { readonly kind: 'send'; readonly queue: QueueRef };

export const ACTION_WORDS = {
  delete: { ask: 'Delete', done: 'deleted', gone: 'was not there any more (nothing deleted)' },
  archive: { ask: 'Archive', done: 'archived', gone: 'was not there any more (nothing archived)' },
  makeVisible: { ask: 'Make visible now', done: 'made visible', gone: 'was not there any more (nothing changed)' },
} as const;
