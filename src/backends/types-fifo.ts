// The Backend contract's pgmq 1.7+ capabilities: FIFO groups, topics and insert
// notifications (types.ts re-exports this file; Backend extends FifoTopicMethods).
import type { Message, MessageId, MessageState, ReceiveOptions, SendInput } from './types-message.js';

/** pgmq's grouped reads (Backend.receiveGrouped): read_grouped, read_grouped_rr, read_grouped_head. */
export const GROUPED_READS = ['grouped', 'grouped-rr', 'grouped-head'] as const;
export type GroupedRead = (typeof GROUPED_READS)[number];

/** One FIFO group of a queue (Backend.groups). */
export interface GroupStats {
  /** The `x-pgmq-group` header's value; null: the group-less lane (messages without it). */
  readonly group: string | null;
  readonly ready: number;
  readonly inFlight: number;
  readonly delayed: number;
  /** The group's oldest message: grouped reads hand out nothing of the group while it is in flight. */
  readonly headId: MessageId;
  readonly headState: MessageState;
  readonly headReadCount: number;
  /** The head message's enqueued_at, vt and (pgmq 1.10+) last_read_at. */
  readonly headEnqueuedAt?: Date | null;
  readonly headVisibleAt?: Date;
  readonly headLastReadAt?: Date | null;
}

/** A topic binding (pgmq 1.11+): messages sent with a routing key matching `pattern` go to `queue`. */
export interface TopicBinding {
  readonly pattern: string;
  readonly queue: string;
  readonly boundAt: Date | null;
}

/** A queue whose inserts send a NOTIFY (pgmq 1.7+, Backend.notifyInsertSettings). */
export interface NotifyInsertSetting {
  readonly queue: string;
  /** At most one notification per this many milliseconds (0: one per inserting statement). */
  readonly throttleMs: number;
  readonly lastNotifiedAt: Date | null;
  /** What to LISTEN on. */
  readonly channel: string;
}

/**
 * A LISTEN on a queue's insert notifications, on a connection of its own (Backend.listenInserts).
 * No lost wake-ups: take `epoch` before a read; wait(epoch) returns at once when a notification
 * came in since, even one that arrived before wait() was called.
 */
export interface InsertListener {
  /** The channel it listens on. */
  readonly channel: string;
  /**
   * Counts notifications, and reconnections (a LISTEN made anew may have missed some while
   * the connection was down: a waiter wakes and reads once more).
   */
  readonly epoch: number;
  /**
   * Resolves 'notified' as soon as epoch passes `since`, 'timeout' after timeoutMs without,
   * 'closed' once close() is called. Never rejects: a lost connection is reopened in the
   * background (and LISTENed again) while waiters run into their timeout.
   */
  wait(since: number, timeoutMs: number): Promise<'notified' | 'timeout' | 'closed'>;
  /** Reconnections so far (each one LISTENed again). */
  readonly reconnects: number;
  close(): Promise<void>;
}

/** A message stored by a topic send: which queue got it, under which id. */
export interface TopicDelivery {
  readonly queue: string;
  readonly id: MessageId;
}

/** The optional methods behind capabilities.groups, .topics and .notifyInsert. */
export interface FifoTopicMethods {
  /**
   * Optional (pgmq 1.9+, capabilities.groups): claims messages by FIFO group (x-pgmq-group):
   * 'grouped' fills the batch from the oldest available group first, 'grouped-rr' takes
   * round-robin across groups, 'grouped-head' (capabilities.groupedHead) the head of each of
   * up to qty groups. A group with a message in flight gives nothing.
   */
  receiveGrouped?(queue: string, mode: GroupedRead, options: Pick<ReceiveOptions, 'qty' | 'vtSec' | 'pollSec'>): Promise<Message[]>;
  /** Optional (capabilities.groups): a queue's FIFO groups, oldest head first; one query. */
  groups?(queue: string): Promise<GroupStats[]>;
  /**
   * Optional (capabilities.topics): sends each message to every queue bound to a pattern the
   * routing key matches, all in one transaction; returns what each queue got, in order.
   */
  sendTopic?(routingKey: string, messages: readonly SendInput[]): Promise<TopicDelivery[]>;
  /** Optional (capabilities.topics): every topic binding. */
  topicBindings?(): Promise<TopicBinding[]>;
  /**
   * Optional (capabilities.topics): the bindings a routing key matches (pgmq's test_routing),
   * so the queues a topic send would reach; sends nothing. A key pgmq refuses throws.
   */
  testRouting?(routingKey: string): Promise<TopicBinding[]>;
  /** Optional (capabilities.topics): binds a pattern to a queue; false when it was bound already. */
  bindTopic?(pattern: string, queue: string): Promise<boolean>;
  /** Optional (capabilities.topics): false when there was no such binding. */
  unbindTopic?(pattern: string, queue: string): Promise<boolean>;
  /**
   * Optional (capabilities.notifyInsert): NOTIFY on `pgmq.q_<name>.INSERT` after inserts,
   * at most one per throttleMs; null turns them off.
   */
  setNotifyInsert?(queue: string, throttleMs: number | null): Promise<void>;
  /** Optional (capabilities.notifyInsert): the queues with insert notifications on. */
  notifyInsertSettings?(): Promise<NotifyInsertSetting[]>;
  /**
   * Optional (capabilities.notifyInsert): opens a connection of its own (never one of the
   * backend's pool) and LISTENs on the queue's insert channel; resolves once the LISTEN is in
   * effect, so reads made after it miss no notification. Throws queue-not-found.
   */
  listenInserts?(queue: string): Promise<InsertListener>;
}
