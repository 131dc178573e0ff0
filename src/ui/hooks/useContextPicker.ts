// TopApp's side of the contexts: `:` opens the picker (or says how to have more than one
// store), Enter in it switches (a store that cannot connect is said in the footer and the
// picker stays), and the notice of a switch or of a failure on the way is said once when
// top starts on a context. The contexts themselves are hooks/useContexts'.
import { useEffect, useState } from 'react';
import type { Status } from '../components/Footer.js';
import { failureText } from '../model/contexts.js';
import { errorText } from '../model/monitor.js';
import { escapeControl } from '../../text/escape.js';
import type { ContextsControl } from './useContexts.js';

export const ONE_STORE = 'one store: give --url or --sqlite more than once, or name stores in ~/.config/smq/contexts.ini (smq top --help)';

export interface ContextPicker {
  readonly isOpen: boolean;
  /** A switch is under way: keys wait for it. */
  readonly switching: boolean;
  readonly open: () => void;
  readonly close: () => void;
  readonly pick: (name: string) => void;
}

export function useContextPicker(contexts: ContextsControl | undefined, say: (text: string, tone?: Status['tone']) => void): ContextPicker {
  const [isOpen, setOpen] = useState(false);
  const [switching, setSwitching] = useState(false);
  const notice = contexts?.notice;
  useEffect(() => {
    if (notice) say(notice.text, notice.tone);
  }, [notice, say]);
  const pick = (name: string) => {
    if (!contexts || switching) return;
    if (name === contexts.current) return setOpen(false);
    setSwitching(true);
    // On success top starts over on the other store (this one goes away): nothing more to do here.
    contexts.switchTo(name).catch((e: unknown) => {
      setSwitching(false);
      say(`context ${escapeControl(name)}: ${failureText(errorText(e))}`, 'error');
    });
  };
  return {
    isOpen: isOpen && contexts !== undefined,
    switching,
    open: () => (contexts ? setOpen(true) : say(ONE_STORE, 'error')),
    close: () => setOpen(false),
    pick,
  };
}
