// useInput with a handler that always sees the latest render. Ink re-subscribes whenever
// the handler changes, which happens in an effect after the render; keys that arrive in
// between (fast typing, key repeat, a paste of several keys) would otherwise reach the
// previous render's handler and act on stale state.
import { useCallback, useRef } from 'react';
import { useInput, type Key } from 'ink';

export function useKeys(handler: (input: string, key: Key) => void, isActive = true): void {
  const latest = useRef(handler);
  latest.current = handler;
  const stable = useCallback((input: string, key: Key) => latest.current(input, key), []);
  useInput(stable, { isActive });
}
