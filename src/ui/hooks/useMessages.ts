// One page of a queue's messages through peek (never a read that changes them), fetched
// again when the page changes and every refresh interval while the view is open.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Backend, Message, MessageId } from '../../backends/types.js';
import { pageRequest, toPage, type Page, type PagingState } from '../model/paging.js';
import { errorText } from '../model/monitor.js';
import { retryDelay } from '../model/interval.js';

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
 * finished; failed loads are retried with backoff. Results of superseded loads are dropped.
 */
function useLiveLoad<T>(
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
  const seq = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const failures = useRef(0);
  const liveRef = useRef(live);
  liveRef.current = live;
  const mounted = useRef(true);

  const run = useCallback(() => {
    if (timer.current !== undefined) clearTimeout(timer.current);
    timer.current = undefined;
    const mine = ++seq.current;
    const forDeps = deps;
    setLoading(true);
    load().then(
      (v) => {
        if (!mounted.current || mine !== seq.current) return;
        failures.current = 0;
        setValue({ v, deps: forDeps });
        setError(undefined);
        setLoading(false);
        if (!liveRef.current.paused) timer.current = setTimeout(run, liveRef.current.intervalMs);
      },
      (e: unknown) => {
        if (!mounted.current || mine !== seq.current) return;
        failures.current += 1;
        setError(errorText(e));
        setLoading(false);
        timer.current = setTimeout(run, retryDelay(liveRef.current.intervalMs, failures.current));
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);

  useEffect(() => {
    mounted.current = true;
    run();
    return () => {
      seq.current++;
      if (timer.current !== undefined) clearTimeout(timer.current);
      timer.current = undefined;
    };
  }, [run]);

  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );

  // Resuming from pause reloads at once.
  const wasPaused = useRef(live.paused);
  useEffect(() => {
    if (wasPaused.current && !live.paused) run();
    if (live.paused && timer.current !== undefined && failures.current === 0) {
      clearTimeout(timer.current);
      timer.current = undefined;
    }
    wasPaused.current = live.paused;
  }, [live.paused, run]);

  const current = value !== undefined && deps.every((d, i) => Object.is(d, value.deps[i]));
  return { value: value?.v, valueDeps: value?.deps, loading, error, reload: run, current };
}

/** A new `reloadToken` loads again (after an action changed the queue). */
export function useMessages(backend: Backend, queue: string, paging: PagingState, live: LiveOptions, reloadToken = 0): MessagesView {
  const { value, valueDeps, loading, error, reload, current } = useLiveLoad(
    async () => toPage(paging, await backend.peek(queue, pageRequest(paging))),
    [backend, queue, paging, reloadToken],
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

export function useMessage(backend: Backend, queue: string, id: MessageId, live: LiveOptions, reloadToken = 0): MessageView {
  const { value, loading, error, reload, current } = useLiveLoad(
    async () => (await backend.peek(queue, { id, limit: 1, state: 'all' }))[0] ?? null,
    [backend, queue, id, reloadToken],
    live,
  );
  return { message: value, loading, error, reload, current };
}
