// A search inside one queue's messages (`/` in the queue view): it reads the queue in bounded
// steps by id (Backend.searchMessages, SEARCH_STEP rows each), keeps only the matches (at most
// MAX_MATCHES), says how far it got, and stops between two steps when cancelled. It lives in
// TopApp, so that the results are still there after a match's detail is closed.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Backend, Message, MessageId } from '../../backends/types.js';
import { errorText } from '../model/monitor.js';
import type { QueueRef } from '../model/queue-ref.js';

/** Rows read per query. */
export const SEARCH_STEP = 5000;
/** Matches kept at most; the search stops there (the results stay bounded). */
export const MAX_MATCHES = 1000;

export type SearchPhase = 'typing' | 'scanning' | 'cancelling' | 'done' | 'cancelled' | 'full' | 'failed';

export interface SearchState {
  /** The queue searched (QueueRef.key). */
  readonly queueKey: string;
  readonly text: string;
  readonly phase: SearchPhase;
  readonly mode: 'json' | 'text' | undefined;
  readonly matches: readonly Message[];
  readonly scanned: number;
  /** The last id read so far (where a cancelled search stopped). */
  readonly lastId: MessageId | undefined;
  readonly error: string | undefined;
  readonly selected: number;
  /** When the scan started and, once it ended, how long it took. */
  readonly startedAt: number;
  readonly tookMs: number | undefined;
}

export interface Search {
  readonly state: SearchState | undefined;
  /** `/`: the prompt, with the text searched last in this queue. */
  readonly open: (queueKey: string) => void;
  readonly start: (backend: Backend, queue: QueueRef, text: string) => void;
  /** Esc while scanning: stops after the step under way. */
  readonly cancel: () => void;
  readonly close: () => void;
  readonly select: (index: number) => void;
  /** After an action (a delete, archive or move from a match's detail): matches no longer in the queue leave the results. */
  readonly prune: (backend: Backend, queue: QueueRef) => void;
}

export function useSearch(): Search {
  const [state, setState] = useState<SearchState | undefined>(undefined);
  const run = useRef(0);
  const cancelled = useRef(false);
  const lastText = useRef(new Map<string, string>());
  // Top quit or switched context: a scan under way stops after its step, as after Esc.
  useEffect(
    () => () => {
      cancelled.current = true;
    },
    [],
  );

  const open = useCallback((queueKey: string) => {
    run.current++;
    setState({
      queueKey,
      text: lastText.current.get(queueKey) ?? '',
      phase: 'typing',
      mode: undefined,
      matches: [],
      scanned: 0,
      lastId: undefined,
      error: undefined,
      selected: 0,
      startedAt: Date.now(),
      tookMs: undefined,
    });
  }, []);

  const start = useCallback((backend: Backend, queue: QueueRef, text: string) => {
    const id = ++run.current;
    cancelled.current = false;
    lastText.current.set(queue.key, text);
    const startedAt = Date.now();
    const base: SearchState = {
      queueKey: queue.key,
      text,
      phase: 'scanning',
      mode: undefined,
      matches: [],
      scanned: 0,
      lastId: undefined,
      error: undefined,
      selected: 0,
      startedAt,
      tookMs: undefined,
    };
    setState(base);
    const update = (fn: (s: SearchState) => SearchState) => setState((s) => (s && run.current === id ? fn(s) : s));
    void (async () => {
      let after: MessageId | undefined;
      let found = 0;
      for (;;) {
        if (cancelled.current) return update((s) => ({ ...s, phase: 'cancelled', tookMs: Date.now() - startedAt }));
        try {
          if (!backend.searchMessages) throw new Error('this store cannot search messages');
          const step = await backend.searchMessages(queue.rawName, {
            text,
            scan: SEARCH_STEP,
            limit: MAX_MATCHES - found,
            ...(after === undefined ? {} : { afterId: after }),
          });
          if (run.current !== id) return;
          found += step.matches.length;
          const next = step.nextAfterId;
          const phase: SearchPhase | undefined = found >= MAX_MATCHES ? 'full' : next === null ? 'done' : undefined;
          update((s) => ({
            ...s,
            mode: step.mode,
            matches: [...s.matches, ...step.matches],
            scanned: s.scanned + step.scanned,
            lastId: next ?? s.lastId,
            ...(phase ? { phase, tookMs: Date.now() - startedAt } : {}),
          }));
          if (phase || next === null) return;
          after = next;
        } catch (e) {
          return update((s) => ({ ...s, phase: 'failed', error: errorText(e), tookMs: Date.now() - startedAt }));
        }
      }
    })();
  }, []);

  const cancel = useCallback(() => {
    cancelled.current = true;
    setState((s) => (s && s.phase === 'scanning' ? { ...s, phase: 'cancelling' } : s));
  }, []);
  const close = useCallback(() => {
    run.current++;
    cancelled.current = true;
    setState(undefined);
  }, []);
  const select = useCallback((index: number) => setState((s) => (s ? { ...s, selected: index } : s)), []);
  const latest = useRef(state);
  latest.current = state;
  const prune = useCallback((backend: Backend, queue: QueueRef) => {
    const s = latest.current;
    if (!s || s.queueKey !== queue.key || s.matches.length === 0 || !backend.selectedIds) return;
    const ids = s.matches.map((m) => m.id);
    void backend
      .selectedIds(queue.rawName, { kind: 'ids', ids }, 'queue', ids.length)
      .then((present) => {
        const there = new Set(present);
        setState((now) => {
          if (!now || now.queueKey !== queue.key) return now;
          const matches = now.matches.filter((m) => there.has(m.id) || !ids.includes(m.id));
          if (matches.length === now.matches.length) return now;
          return { ...now, matches, selected: Math.min(now.selected, Math.max(0, matches.length - 1)) };
        });
      })
      .catch(() => undefined); // the results stay as they were; opening a gone match says so
  }, []);

  return { state, open, start, cancel, close, select, prune };
}
