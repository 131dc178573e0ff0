// Keyboard input for smq top. Ink's useInput subscribes in a passive effect, so a key
// that arrives right after a render (fast typing, key repeat, several keys in one read)
// can reach a handler of the previous render, or miss a prompt that has just opened.
// Here one stable subscription routes every key to the handlers registered by the latest
// commit (layout effects run inside the commit, before the next key is read): the
// highest active layer wins, so a prompt takes the keys from the screen below it.
import { useCallback, useLayoutEffect, useRef } from 'react';
import { useInput, type Key } from 'ink';
import { splitTyped } from '../model/keys.js';

export type KeyHandler = (input: string, key: Key) => void;

interface Target {
  readonly handler: KeyHandler;
  readonly active: boolean;
  readonly layer: number;
}

export interface KeyRouter {
  readonly targets: Map<symbol, Target>;
}

export const LAYER_SCREEN = 0;
export const LAYER_PROMPT = 1;

export function createKeyRouter(): KeyRouter {
  return { targets: new Map() };
}

function topTarget(router: KeyRouter): Target | undefined {
  let best: Target | undefined;
  for (const t of router.targets.values()) {
    if (t.active && (best === undefined || t.layer >= best.layer)) best = t;
  }
  return best;
}

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/**
 * Hands a key to the top-most active target. A chunk of several typed characters is a
 * paste for a prompt, but for a screen it is that many key presses: the first is handled
 * now and each next one a millisecond later, after the screen has rendered
 * what the previous one did (so "jj" moves twice, and "/ord" opens the filter and types).
 */
export function routeKey(router: KeyRouter, input: string, key: Key, typedText = false): void {
  const target = topTarget(router);
  if (!target) return;
  // Ink has parsed a single key already; typed text left over from a chunk has not been.
  if ((input.length <= 1 && !(typedText && target.layer === LAYER_SCREEN)) || key.ctrl || key.meta) {
    target.handler(input, key);
    return;
  }
  if (target.layer !== LAYER_SCREEN) {
    // A prompt takes the chunk as typed text up to its Enter; what follows the Enter is
    // for whatever is on top once the prompt has closed.
    const cr = input.indexOf('\r');
    if (cr < 0 || cr === input.length - 1) {
      target.handler(input, key);
      return;
    }
    target.handler(input.slice(0, cr + 1), key);
    const rest = input.slice(cr + 1);
    setTimeout(() => routeKey(router, rest, NO_KEY, true), 1);
    return;
  }
  const presses = splitTyped(input).map((p) => ({ input: p.input, key: { ...NO_KEY, ...p.key } }));
  const next = () => {
    const press = presses.shift();
    if (!press) return;
    topTarget(router)?.handler(press.input, press.key);
    // A timer, not setImmediate: the next press must come after the render of this one,
    // also under act() in tests (which runs every immediate of a tick in one batch).
    if (presses.length > 0) setTimeout(next, 1);
  };
  next();
}

/** useInput whose handler always sees the latest render (for the owner of a router). */
export function useKeys(handler: KeyHandler, isActive = true): void {
  const latest = useRef(handler);
  latest.current = handler;
  const stable = useCallback((input: string, key: Key) => latest.current(input, key), []);
  useInput(stable, { isActive });
}

/**
 * Registers a key handler with the router, refreshed at every commit. Without a router
 * (a component rendered on its own) it listens directly.
 */
export function useKeyTarget(
  router: KeyRouter | undefined,
  handler: KeyHandler,
  options: { readonly active?: boolean; readonly layer?: number } = {},
): void {
  const id = useRef(Symbol('key target')).current;
  const active = options.active ?? true;
  const layer = options.layer ?? LAYER_SCREEN;
  useLayoutEffect(() => {
    router?.targets.set(id, { handler, active, layer });
  });
  useLayoutEffect(
    () => () => {
      router?.targets.delete(id);
    },
    [router, id],
  );
  useKeys(handler, router === undefined && active);
}
