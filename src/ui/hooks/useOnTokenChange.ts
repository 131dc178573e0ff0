import { useEffect, useRef } from 'react';

/** Calls `run` whenever `token` changes, but not on the first render (the hook loads by itself then). */
export function useOnTokenChange(token: unknown, run: () => void): void {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    run();
    // Only the token decides; `run` is a fresh closure on every render.
  }, [token]);
}
