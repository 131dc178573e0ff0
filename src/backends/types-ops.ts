// What the Backend contract's optional operator actions take (types.ts declares the
// methods): a selection of messages (marked ids, or every message matching a filter, counted
// and acted on by query, never loaded), and where they are taken from (the live queue, or its
// archive: pgmq's a_<queue>, SmoothMQ's failed messages).
// No import from types.ts (it re-exports this file): ids are bigint, states spelled out.
type MessageId = bigint;
type MessageState = 'ready' | 'inflight' | 'delayed' | 'failed';

/** Which messages an action takes. */
export type MessageSelection =
  /**
   * These messages (top's marked rows); ids no longer there are skipped, and so are those no
   * longer in `state` when one is given (marks caught under a state filter: a consumer may
   * have taken some since).
   */
  | { readonly kind: 'ids'; readonly ids: readonly MessageId[]; readonly state?: MessageState | 'all' }
  /**
   * Every message in `state` (the archive: 'all' only) read at least `minReadCount` times,
   * and, when given, with an id at most `maxId` (what existed when the user asked).
   */
  | { readonly kind: 'filter'; readonly state: MessageState | 'all'; readonly minReadCount?: number; readonly maxId?: MessageId };

/** Where a selection's messages are: the live queue, or its archive (Capabilities.archive) or failed messages (failedState). */
export type MessageSource = 'queue' | 'archive';

/** What Backend.actOn does to a selection of the live queue. */
export type BulkAction = 'delete' | 'archive' | 'makeVisible';
