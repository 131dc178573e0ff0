// The one polling hook of top: a Poller (../model/poller) for the component's lifetime, fed
// the current interval and pause, loading again whenever `reloadOn` changes. The callbacks
// are always the latest render's, so they see current props without restarting the loop.
import { useCallback, useEffect, useRef } from 'react';
import { Poller, type PollPolicy, type PollResult } from '../model/poller.js';

export interface PollingOptions<T> {
  readonly load: () => Promise<T>;
  readonly intervalMs: number;
  readonly paused: boolean;
  readonly policy: PollPolicy;
  readonly onStart?: () => void;
  readonly onResult: (result: PollResult<T>) => void;
  /** A change of any of these loads again at once (what is loaded changed). */
  readonly reloadOn: readonly unknown[];
}

export interface Polling {
  /** Loads now (also while paused), as the policy allows while a load is running. */
  readonly pollNow: () => void;
  /** Consecutive failed loads. */
  readonly failures: () => number;
}

export function usePolling<T>(options: PollingOptions<T>): Polling {
  const latest = useRef(options);
  latest.current = options;
  const poller = useRef<Poller<T> | undefined>(undefined);

  useEffect(() => {
    const o = latest.current;
    const p = new Poller<T>({
      load: () => latest.current.load(),
      intervalMs: o.intervalMs,
      paused: o.paused,
      policy: o.policy,
      onStart: () => latest.current.onStart?.(),
      onResult: (r) => latest.current.onResult(r),
    });
    poller.current = p;
    p.pollNow();
    return () => {
      p.stop();
      poller.current = undefined;
    };
  }, []);

  // The first load is the mount's; later changes of what is loaded load again.
  const seenReloadOn = useRef(options.reloadOn);
  useEffect(() => {
    const before = seenReloadOn.current;
    seenReloadOn.current = options.reloadOn;
    const same = before.length === options.reloadOn.length && before.every((d, i) => Object.is(d, options.reloadOn[i]));
    if (!same) poller.current?.pollNow();
    // The caller's reloadOn is this effect's dependency list, as useEffect's own would be.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, options.reloadOn);

  useEffect(() => {
    poller.current?.setPaused(options.paused);
  }, [options.paused]);

  useEffect(() => {
    poller.current?.setIntervalMs(options.intervalMs);
  }, [options.intervalMs]);

  const pollNow = useCallback(() => poller.current?.pollNow(), []);
  const failures = useCallback(() => poller.current?.failures ?? 0, []);
  return { pollNow, failures };
}
