// Owns the refresh loop of the queue list: one listQueues call at a time, the next one
// scheduled when the previous has finished (a slow database slows the loop down instead of
// piling up queries), retries with backoff while the database is away, and health()
// every HEALTH_EVERY_MS where the backend has it.
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import type { Backend, HealthInfo, QueueStats, ServerInfo } from '../../backends/types.js';
import { healthDue, retryDelay } from '../model/interval.js';
import {
  healthFailed,
  healthFetched,
  INITIAL_MONITOR,
  refreshFailed,
  refreshSucceeded,
  type MonitorState,
} from '../model/monitor.js';

type Event =
  | { readonly type: 'ok'; readonly queues: readonly QueueStats[]; readonly at: number }
  | { readonly type: 'failed'; readonly error: unknown; readonly at: number }
  | { readonly type: 'health'; readonly health: HealthInfo; readonly at: number }
  | { readonly type: 'healthFailed'; readonly error: unknown; readonly at: number };

function reducer(state: MonitorState, e: Event): MonitorState {
  switch (e.type) {
    case 'ok':
      return refreshSucceeded(state, e.queues, e.at);
    case 'failed':
      return refreshFailed(state, e.error, e.at);
    case 'health':
      return healthFetched(state, e.health, e.at);
    case 'healthFailed':
      return healthFailed(state, e.error, e.at);
  }
}

export interface QueueMonitorOptions {
  readonly intervalMs: number;
  readonly paused: boolean;
  readonly exactThreshold?: number | undefined;
}

export interface QueueMonitor {
  readonly state: MonitorState;
  readonly info: ServerInfo | undefined;
  /** Client clock when the refresh now running started; undefined when idle. */
  readonly refreshingSince: number | undefined;
  /** Refreshes now (also while paused); a no-op while one is running. */
  readonly refreshNow: () => void;
}

export function useQueueMonitor(backend: Backend, options: QueueMonitorOptions): QueueMonitor {
  const [state, dispatch] = useReducer(reducer, INITIAL_MONITOR);
  const [info, setInfo] = useState<ServerInfo | undefined>(undefined);
  const [refreshingSince, setRefreshingSince] = useState<number | undefined>(undefined);

  const opts = useRef(options);
  opts.current = options;
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const running = useRef(false);
  const mounted = useRef(true);
  const failures = useRef(0);
  const lastHealthAt = useRef<number | undefined>(undefined);
  const healthRunning = useRef(false);
  const infoLoaded = useRef(false);

  const clearTimer = () => {
    if (timer.current !== undefined) clearTimeout(timer.current);
    timer.current = undefined;
  };

  const schedule = useCallback((delayMs: number) => {
    clearTimer();
    if (!mounted.current || opts.current.paused) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      void refreshRef.current();
    }, delayMs);
  }, []);

  const loadHealth = useCallback(async () => {
    if (!backend.health || healthRunning.current || !healthDue(lastHealthAt.current, Date.now())) return;
    healthRunning.current = true;
    lastHealthAt.current = Date.now();
    try {
      const health = await backend.health();
      if (mounted.current) dispatch({ type: 'health', health, at: Date.now() });
    } catch (error) {
      if (mounted.current) dispatch({ type: 'healthFailed', error, at: Date.now() });
    } finally {
      healthRunning.current = false;
    }
  }, [backend]);

  const refresh = useCallback(async () => {
    if (running.current || !mounted.current) return;
    running.current = true;
    clearTimer();
    setRefreshingSince(Date.now());
    let ok = false;
    try {
      const threshold = opts.current.exactThreshold;
      const queues = await backend.listQueues(threshold === undefined ? {} : { exactThreshold: threshold });
      ok = true;
      failures.current = 0;
      if (mounted.current) dispatch({ type: 'ok', queues, at: Date.now() });
    } catch (error) {
      failures.current += 1;
      if (mounted.current) dispatch({ type: 'failed', error, at: Date.now() });
    } finally {
      running.current = false;
      if (mounted.current) setRefreshingSince(undefined);
    }
    if (!mounted.current) return;
    if (ok && !infoLoaded.current) {
      // info() is asked for once; after an outage that began at start-up, again.
      backend.info().then(
        (i) => {
          infoLoaded.current = true;
          if (mounted.current) setInfo(i);
        },
        () => undefined,
      );
    }
    if (ok) void loadHealth();
    schedule(ok ? opts.current.intervalMs : retryDelay(opts.current.intervalMs, failures.current));
  }, [backend, loadHealth, schedule]);

  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;

  useEffect(() => {
    mounted.current = true;
    void refreshRef.current();
    return () => {
      mounted.current = false;
      clearTimer();
    };
  }, [backend]);

  // Pausing stops the loop; resuming refreshes at once. A new interval counts from now.
  const firstPause = useRef(true);
  useEffect(() => {
    if (firstPause.current) {
      firstPause.current = false;
      return;
    }
    if (options.paused) clearTimer();
    else if (!running.current) void refreshRef.current();
  }, [options.paused]);

  const firstInterval = useRef(true);
  useEffect(() => {
    if (firstInterval.current) {
      firstInterval.current = false;
      return;
    }
    if (!running.current && failures.current === 0) schedule(options.intervalMs);
  }, [options.intervalMs, schedule]);

  const refreshNow = useCallback(() => {
    void refreshRef.current();
  }, []);

  return { state, info, refreshingSince, refreshNow };
}
