// The Backend contract's messages: ids, states, a message as read, what is sent and how a
// receive claims (types.ts re-exports this file).

/** Message ids: pgmq's bigint identity, SmoothMQ's snowflakes (> 2^53), so always bigint. */
export type MessageId = bigint;

export const MESSAGE_STATES = ['ready', 'inflight', 'delayed', 'failed'] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];

export interface Message {
  readonly id: MessageId;
  readonly state: MessageState;
  /** pgmq read_ct / SmoothMQ tries. */
  readonly readCount: number;
  /** SmoothMQ max_tries (-1 unlimited). */
  readonly maxTries?: number;
  readonly enqueuedAt: Date | null;
  /** When the message is (or becomes again) visible: pgmq vt / SmoothMQ deliver_at. */
  readonly visibleAt: Date;
  /** When it was last handed out, by the queue's clock (pgmq last_read_at / SmoothMQ delivered_at). */
  readonly lastReadAt: Date | null;
  /** The body as text: pgmq's jsonb rendered as JSON text, SmoothMQ's text column as is. */
  readonly body: string;
  /**
   * The stored body's size in bytes, where its text is not those bytes: a SmoothMQ body
   * written by another client that is not UTF-8 (its text has U+FFFD). Else undefined: the
   * size is the text's UTF-8 length.
   */
  readonly bodyBytes?: number;
  /** pgmq headers (jsonb object) or SmoothMQ attributes (name -> value). */
  readonly headers: Record<string, unknown> | null;
  /** pgmq, read from the archive (Backend.peekArchive): when it was archived. */
  readonly archivedAt?: Date | null;
}

export interface SendInput {
  readonly body: string;
  readonly headers?: Record<string, string>;
  /** Seconds before the message becomes visible. */
  readonly delaySec?: number;
}

/** A body the store refuses (Backend.checkBodies). */
export interface RefusedBody {
  /** Its position in the list given. */
  readonly index: number;
  /** The store's words, e.g. "unsupported Unicode escape sequence (\u0000 cannot be converted to text.)". */
  readonly reason: string;
}

export interface ReceiveOptions {
  /** How many messages at most (>= 1). */
  readonly qty: number;
  /** Visibility timeout in seconds; default: the queue's own (SmoothMQ) or 30. */
  readonly vtSec?: number;
  /**
   * 'safe' (default) claims atomically. 'naive' is the deliberately racy select-then-update,
   * used only by the tester to prove its checker catches double-dequeues.
   */
  readonly dequeue?: 'safe' | 'naive';
  /** naive only: pause between the select and the update, to widen the race window. */
  readonly naivePauseMs?: number;
  /**
   * Only messages whose body is a JSON object with "r" equal to this (the tester's run id);
   * others are not claimed, their read counts / tries untouched. Needs capabilities.receiveByRunId.
   */
  readonly runId?: string;
  /**
   * pgmq: wait up to this many whole seconds for messages when none is visible (read_with_poll;
   * receiveGrouped: the _with_poll forms). Undefined: answer at once. SmoothMQ: refused.
   */
  readonly pollSec?: number;
}
