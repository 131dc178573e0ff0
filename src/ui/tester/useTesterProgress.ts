// Subscribes to a tester run's progress events; the component only displays the snapshot.
import { useEffect, useState } from 'react';
import type { ProgressSnapshot } from '../../tester/index.js';

/** What the live view needs from a run: its progress events (TesterRun is one). */
export interface ProgressSource {
  on(event: 'progress', listener: (s: ProgressSnapshot) => void): unknown;
  off(event: 'progress', listener: (s: ProgressSnapshot) => void): unknown;
}

export function useTesterProgress(source: ProgressSource): ProgressSnapshot | undefined {
  const [snapshot, setSnapshot] = useState<ProgressSnapshot | undefined>(undefined);
  useEffect(() => {
    const listener = (s: ProgressSnapshot) => setSnapshot(s);
    source.on('progress', listener);
    return () => {
      source.off('progress', listener);
    };
  }, [source]);
  return snapshot;
}
