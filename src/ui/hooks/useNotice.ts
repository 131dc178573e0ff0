// The footer's notice ("deleted message 12", "read-only: actions are disabled"): the last
// one said, until it expires, so that an old notice never describes a screen that moved on.
import { useCallback, useEffect, useState } from 'react';
import type { Status } from '../components/Footer.js';

/** How long a notice stays: long enough to read, short enough not to mislead later. */
export const NOTICE_MS = 5000;
/** Errors stay twice as long. */
export const ERROR_NOTICE_MS = 10_000;

/** How long a notice of this tone stays (undefined: an action's progress stays until its answer). */
export function noticeLifetime(tone: Status['tone']): number | undefined {
  if (tone === 'working') return undefined;
  return tone === 'error' ? ERROR_NOTICE_MS : NOTICE_MS;
}

/** What a key that starts an action says while another of the same kind runs. */
export const stillRunning = (label: string) => `${label}… still running: try again when it is done`;

export function useNotice(): [Status | undefined, (text: string, tone?: Status['tone']) => void] {
  const [status, setStatus] = useState<Status | undefined>(undefined);
  const say = useCallback((text: string, tone: Status['tone'] = 'info') => setStatus({ text, tone }), []);
  useEffect(() => {
    const lifetime = status && noticeLifetime(status.tone);
    if (!status || lifetime === undefined) return;
    const timer = setTimeout(() => setStatus((s) => (s === status ? undefined : s)), lifetime);
    return () => clearTimeout(timer);
  }, [status]);
  return [status, say];
}
