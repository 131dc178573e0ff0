// smq top over several stores (contexts): TopApp on the current one, started over (a new
// TopApp, its screens, marks and searches with it) when the operator switches, on the same
// keyboard queue, so keys typed after the switch reach the new store's screen.
import { useRef } from 'react';
import { KeyRouter } from '../hooks/useKeys.js';
import { useContexts } from '../hooks/useContexts.js';
import type { ContextsSetup, ContextStore } from '../model/contexts.js';
import { TopApp, type TopAppProps } from './TopApp.js';

export interface ContextsTopProps extends Omit<TopAppProps, keyof ContextStore | 'contexts' | 'keyRouter'> {
  readonly setup: ContextsSetup;
  /** The store of setup.current, already open. */
  readonly first: ContextStore;
}

export function ContextsTop({ setup, first, ...rest }: ContextsTopProps) {
  const { store, control } = useContexts(setup, first);
  const router = useRef<KeyRouter | undefined>(undefined);
  router.current ??= new KeyRouter();
  return <TopApp key={control.current} {...rest} {...store} keyRouter={router.current} contexts={control} />;
}
