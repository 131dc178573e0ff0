// The footer's notice ("deleted message 12", "read-only: actions are disabled"): the last
// one said, until it expires, so that an old notice never describes a screen that moved on.
import { useCallback, useEffect, useState } from 'react';
import type { Status } from '../components/Footer.js';

/** How long a notice stays: long enough to read, short enough not to mislead later. */
export const NOTICE_MS = 5000;
/** Errors stay twice as long. */
export const ERROR_NOTICE_MS = 10_000;

export function noticeLifetime(tone: Status['tone']): number {
  return tone === 'error' ? ERROR_NOTICE_MS : NOTICE_MS;
}

export function useNotice(): [Status | undefined, (text: string, tone?: Status['tone']) => void] {
  const [status, setStatus] = useState<Status | undefined>(undefined);
  const say = useCallback((text: string, tone: Status['tone'] = 'info') => setStatus({ text, tone }), []);
  useEffect(() => {
    if (!status) return;
    const timer = setTimeout(() => setStatus((s) => (s === status ? undefined : s)), noticeLifetime(status.tone));
    return () => clearTimeout(timer);
  }, [status]);
  return [status, say];
}
