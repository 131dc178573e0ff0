// One page of a queue's messages through peek (never a read that changes them), fetched
// again when the page changes and every refresh interval while the view is open.
import { useRef, useState } from 'react';
import type { Backend, Message, MessageId, MessageSource, PeekOptions } from '../../backends/types.js';
import { loadPage, type Page, type PageSource, type PagingState } from '../model/paging.js';
import { errorText } from '../model/monitor.js';
import { PAGE_POLICY } from '../model/poller.js';
import { usePolling } from './usePolling.js';

export interface MessagesView {
  readonly page: Page | undefined;
  /** The paging state the page belongs to (it lags behind while the next one loads). */
  readonly pageOf: PagingState | undefined;
  readonly loading: boolean;
  readonly error: string | undefined;
  readonly reload: () => void;
  /** The page shown was loaded for this paging state and this reload token (not an older one). */
  readonly current: boolean;
}

export interface LiveOptions {
  readonly intervalMs: number;
  readonly paused: boolean;
}

/**
 * Runs `load` now, whenever `deps` change, and every interval after the previous load
 * finished; failed loads are retried with backoff (usePolling with PAGE_POLICY). Results of
 * superseded loads are dropped.
 */
export function useLiveLoad<T>(
  load: () => Promise<T>,
  deps: readonly unknown[],
  live: LiveOptions,
): {
  value: T | undefined;
  loading: boolean;
  error: string | undefined;
  reload: () => void;
  valueDeps: readonly unknown[] | undefined;
  current: boolean;
} {
  const [value, setValue] = useState<{ v: T; deps: readonly unknown[] } | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | undefined>(undefined);

  const { pollNow } = usePolling<{ v: T; deps: readonly unknown[] }>({
    load: async () => {
      const forDeps = deps;
      return { v: await load(), deps: forDeps };
    },
    intervalMs: live.intervalMs,
    paused: live.paused,
    policy: PAGE_POLICY,
    reloadOn: deps,
    onStart: () => setLoading(true),
    onResult: (r) => {
      if (r.ok) {
        setValue(r.value);
        setError(undefined);
      } else {
        setError(errorText(r.error));
      }
      setLoading(false);
    },
  });

  const current = value !== undefined && deps.every((d, i) => Object.is(d, value.deps[i]));
  return { value: value?.v, valueDeps: value?.deps, loading, error, reload: pollNow, current };
}

/** Peek into the queue or its archive (Backend.peekArchive; the archive has no row count). */
function peekOf(backend: Backend, queue: string, source: MessageSource): (o: PeekOptions) => Promise<Message[]> {
  if (source === 'archive') {
    return (o) => (backend.peekArchive ? backend.peekArchive(queue, o) : Promise.reject(new Error('this store has no archive')));
  }
  return (o) => backend.peek(queue, o);
}

/** A new `reloadToken` loads again (after an action changed the queue). */
export function useMessages(
  backend: Backend,
  queue: string,
  paging: PagingState,
  live: LiveOptions,
  reloadToken = 0,
  source: MessageSource = 'queue',
): MessagesView {
  // A row number counted once for a page stays with it through its refreshes (the end of
  // the queue moves, so that one is counted again).
  const counted = useRef(new WeakMap<PagingState, number>());
  const { value, valueDeps, loading, error, reload, current } = useLiveLoad(
    async () => {
      const pages: PageSource = {
        peek: peekOf(backend, queue, source),
        countBefore: backend.countBefore && source === 'queue' ? (o) => backend.countBefore!(queue, o) : undefined,
      };
      const known = counted.current.get(paging);
      const page = await loadPage(known === undefined ? paging : { ...paging, firstRow: known }, pages);
      if (paging.firstRow === undefined && paging.anchor.kind !== 'end' && page.firstRow !== undefined) {
        counted.current.set(paging, page.firstRow);
      }
      return page;
    },
    [backend, queue, paging, reloadToken, source],
    live,
  );
  return { page: value, pageOf: valueDeps?.[2] as PagingState | undefined, loading, error, reload, current };
}

export interface MessageView {
  /** undefined while loading; null when the message is gone (deleted, or never existed). */
  readonly message: Message | null | undefined;
  readonly loading: boolean;
  readonly error: string | undefined;
  readonly reload: () => void;
  /** The message shown was loaded for this id and this reload token. */
  readonly current: boolean;
}

export function useMessage(
  backend: Backend,
  queue: string,
  id: MessageId,
  live: LiveOptions,
  reloadToken = 0,
  source: MessageSource = 'queue',
): MessageView {
  const { value, loading, error, reload, current } = useLiveLoad(
    async () => (await peekOf(backend, queue, source)({ id, limit: 1, state: 'all' }))[0] ?? null,
    [backend, queue, id, reloadToken, source],
    live,
  );
  return { message: value, loading, error, reload, current };
}
