// One exit path for q, Ctrl-C and -n: the first call tells the caller (onExit) and ends the
// Ink app, later ones do nothing; -n (maxRefreshes) calls it once the list was refreshed that
// many times.
import { useCallback, useEffect, useRef } from 'react';
import { useApp } from 'ink';

export function useTopExit(onExit: (() => void) | undefined, refreshes: number, maxRefreshes: number | undefined): () => void {
  const { exit } = useApp();
  const exited = useRef(false);
  const quit = useCallback(() => {
    if (exited.current) return;
    exited.current = true;
    onExit?.();
    exit();
  }, [exit, onExit]);

  useEffect(() => {
    if (maxRefreshes !== undefined && refreshes >= maxRefreshes) quit();
  }, [refreshes, maxRefreshes, quit]);
  return quit;
}
