// The operator's keys of the queue view, the archive view and the message detail (issue 18):
// marks, bulk actions on them, moves, restore, export and the archive. Pure, like keys.ts
// (which routes to these first and lists them in the help); no import of keys.ts, so the
// two never form a circle.

export type OpsCommand =
  | { readonly type: 'mark' }
  | { readonly type: 'markAll' }
  | { readonly type: 'markReads' }
  | { readonly type: 'clearMarks' }
  | { readonly type: 'moveTo' }
  | { readonly type: 'export' }
  | { readonly type: 'restore' }
  | { readonly type: 'archiveView' };

type OpsScreen = 'list' | 'queue' | 'message';

export function opsCommandFor(screen: OpsScreen, input: string): OpsCommand | undefined {
  if (screen === 'message') {
    if (input === 'm') return { type: 'moveTo' };
    if (input === 'e') return { type: 'export' };
    return undefined;
  }
  if (screen !== 'queue') return undefined;
  switch (input) {
    case ' ':
      return { type: 'mark' };
    case '*':
      return { type: 'markAll' };
    case 'N':
      return { type: 'markReads' };
    case 'c':
      return { type: 'clearMarks' };
    case 'm':
      return { type: 'moveTo' };
    case 'e':
      return { type: 'export' };
    case 'u':
      return { type: 'restore' };
    case 'A':
      return { type: 'archiveView' };
    default:
      return undefined;
  }
}

export interface OpsHelpOptions {
  readonly readOnly: boolean;
  readonly archive: boolean;
  readonly failedState: boolean;
  /** The queue view is showing the archive (pgmq) or the failed messages (SmoothMQ). */
  readonly archiveView?: boolean | undefined;
}

/** What these keys do, for the help (only those that do something here). */
export function opsHelp(screen: OpsScreen, o: OpsHelpOptions): { keys: string; what: string }[] {
  const act = !o.readOnly;
  if (screen === 'message') {
    return [
      ...(act ? [{ keys: 'm', what: 'move the message to another queue' }] : []),
      { keys: 'e', what: 'export the message to an NDJSON file' },
    ];
  }
  if (screen !== 'queue') return [];
  const archiveWord = o.archive ? 'archive' : 'failed messages';
  const entries = [
    { keys: 'Space', what: 'mark / unmark the message' },
    { keys: '*', what: 'mark every message the view shows now (also off screen; not those arriving later)' },
    { keys: 'N', what: 'mark every message read at least N times' },
    { keys: 'c', what: 'clear the marks' },
  ];
  if (act) {
    entries.push({ keys: 'm', what: 'move the marked (or this) message to another queue' });
    if (o.archiveView) entries.push({ keys: 'u', what: `restore the marked (or this) message to the queue` });
  }
  entries.push({ keys: 'e', what: 'export the marked (or this) message to an NDJSON file' });
  if (!o.archiveView) entries.push({ keys: 'A', what: `the queue's ${archiveWord}` });
  return entries;
}
