// The refresh loop of the queue list (usePolling with LIST_POLICY): one listQueues call at
// a time, the next one scheduled when the previous has finished (a slow database slows the
// loop down instead of piling up queries), retries with backoff while the database is away,
// and health() every HEALTH_EVERY_MS where the backend has it.
import { useEffect, useReducer, useRef, useState } from 'react';
import type { Backend, HealthInfo, QueueStats, ServerInfo } from '../../backends/types.js';
import { healthDue } from '../model/interval.js';
import { LIST_POLICY } from '../model/poller.js';
import { usePolling } from './usePolling.js';
import { healthFailed, healthFetched, INITIAL_MONITOR, refreshFailed, refreshSucceeded, type MonitorState } from '../model/monitor.js';

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

  const mounted = useRef(true);
  const lastHealthAt = useRef<number | undefined>(undefined);
  const healthRunning = useRef(false);
  const infoLoaded = useRef(false);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const loadHealth = async () => {
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
  };

  const threshold = options.exactThreshold;
  const { pollNow } = usePolling<readonly QueueStats[]>({
    load: () => backend.listQueues(threshold === undefined ? {} : { exactThreshold: threshold }),
    intervalMs: options.intervalMs,
    paused: options.paused,
    policy: LIST_POLICY,
    reloadOn: [backend],
    onStart: () => setRefreshingSince(Date.now()),
    onResult: (r) => {
      if (r.ok) dispatch({ type: 'ok', queues: r.value, at: Date.now() });
      else dispatch({ type: 'failed', error: r.error, at: Date.now() });
      setRefreshingSince(undefined);
      if (!r.ok) return;
      if (!infoLoaded.current) {
        // info() is asked for once; after an outage that began at start-up, again.
        backend.info().then(
          (i) => {
            infoLoaded.current = true;
            if (mounted.current) setInfo(i);
          },
          () => undefined,
        );
      }
      void loadHealth();
    },
  });

  return { state, info, refreshingSince, refreshNow: pollNow };
}
