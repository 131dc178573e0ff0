// The contexts of smq top: which store is current, and switching to another. A switch opens
// the other store (once; the command keeps it open until top quits), and only once it is
// open does top change over to it; a store that cannot connect leaves top where it was, and
// its one line shows in the picker and the footer. Used by components/ContextsTop.
import { useCallback, useRef, useState } from 'react';
import type { Status } from '../components/Footer.js';
import { contextEvent, contextsModel, failureText, type ContextsModel, type ContextsSetup, type ContextStore } from '../model/contexts.js';
import { errorText } from '../model/monitor.js';
import { escapeControl } from '../../text/escape.js';

/** What TopApp gets: the picker's data and the switch. */
export interface ContextsControl {
  readonly entries: ContextsSetup['entries'];
  readonly model: ContextsModel;
  readonly current: string;
  /** Said in the footer when top (re)starts on a context: a failure on the way, or the switch. */
  readonly notice: Status | undefined;
  /** Resolves once top is on `name`; rejects with the error when it cannot connect. */
  readonly switchTo: (name: string) => Promise<void>;
}

export function useContexts(
  setup: ContextsSetup,
  first: ContextStore,
): { readonly store: ContextStore; readonly control: ContextsControl } {
  const failures = setup.failures.map((f) => ({ name: f.name, error: errorText(f.error) }));
  const [model, setModel] = useState(() => contextsModel(setup.current, failures));
  const [store, setStore] = useState(first);
  const [notice, setNotice] = useState<Status | undefined>(() =>
    failures.length === 0
      ? undefined
      : {
          // Where top is first: the reasons may be long and are cut to the width.
          text: `started on ${escapeControl(setup.current)} · ${failures.map((f) => `context ${escapeControl(f.name)}: ${failureText(f.error)}`).join(' · ')}`,
          tone: 'error',
        },
  );
  // The model as of the last event, for a switch asked for before the next render.
  const latest = useRef(model);
  latest.current = model;
  const { open } = setup;
  const switchTo = useCallback(
    async (name: string) => {
      if (name === latest.current.current) return;
      setModel((m) => contextEvent(m, { type: 'connecting', name }));
      let next: ContextStore;
      try {
        next = await open(name);
      } catch (e) {
        setModel((m) => contextEvent(m, { type: 'failed', name, error: errorText(e) }));
        throw e;
      }
      setModel((m) => contextEvent(m, { type: 'switched', name }));
      setStore(next);
      setNotice({ text: `context ${escapeControl(name)}: ${escapeControl(next.connection)}`, tone: 'info' });
    },
    [open],
  );
  return { store, control: { entries: setup.entries, model, current: model.current, notice, switchTo } };
}
