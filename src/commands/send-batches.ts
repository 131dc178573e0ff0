// smq send's lines go out in batches, each stored in its own transaction (or, with
// --atomic, all of them in one). When a batch fails, the error says how many were stored,
// up to which line of stdin, and what to pass as --skip to go on from there.
import type { Backend, MessageId, SendInput } from '../backends/types.js';
import { SmqError } from '../errors.js';

/** Messages per batch: one transaction (one round trip on pgmq) each. */
export const BATCH_SIZE = 500;

/** A message with the line of stdin it came from (1-based, blank lines counted). */
export interface LineMessage {
  readonly line: number;
  readonly message: SendInput;
}

export interface BatchOptions {
  /** One transaction for all: every message is stored or none. */
  readonly atomic: boolean;
  /** The lines skipped before the first message (--skip), so the resume point is right when nothing was stored. */
  readonly skipped: number;
  /** Called with each batch's ids as soon as it is stored, before the next batch goes out. */
  readonly onStored: (ids: readonly MessageId[]) => void;
  readonly batchSize?: number;
}

/**
 * Whether a failed batch may still have been stored: when the connection breaks or the
 * call's deadline passes, the server may have committed it without smq hearing back. An
 * error the server reported for the statement means it was rolled back.
 */
export function outcomeUnknown(e: unknown): boolean {
  return !(e instanceof SmqError) || e.kind === 'connection' || e.kind === 'timeout';
}

export interface Progress {
  /** Messages stored. */
  readonly sent: number;
  readonly total: number;
  /** Where to go on from: the last line stored (or the --skip given when none was). */
  readonly resumeAfter: number;
  /** Lines of the batch that failed. */
  readonly failedFirst: number;
  readonly failedLast: number;
  readonly atomic: boolean;
}

/** The failure as one line: the cause, what was stored, and how to go on. Keeps the cause's exit code. */
export function partialSendError(cause: unknown, p: Progress): SmqError {
  const base = cause instanceof SmqError ? cause : undefined;
  const message = base?.message ?? (cause instanceof Error ? cause.message : String(cause));
  const kind = base?.kind ?? 'database';
  const unknown = outcomeUnknown(cause);
  // The server's hints end with a period ("Check free disk space."); ours go on after it.
  const then = (advice: string) => (base?.hint ? `${base.hint.replace(/\.$/, '')}, then ${advice}` : advice);
  const failed = p.failedFirst === p.failedLast ? `line ${p.failedFirst}` : `lines ${p.failedFirst}-${p.failedLast}`;
  if (p.atomic) {
    if (!unknown) {
      return new SmqError(kind, `${message}; nothing was sent (--atomic: one transaction for all ${p.total} messages, rolled back)`, {
        hint: then('send the same input again'),
        cause,
      });
    }
    return new SmqError(
      kind,
      `${message}; --atomic: no answer came for the transaction of all ${p.total} messages, so all of them or none are stored`,
      {
        hint: then("look with 'smq peek' before sending again"),
        cause,
      },
    );
  }
  const stored =
    p.sent === 0
      ? 'nothing was sent'
      : `sent ${p.sent} of ${p.total} messages, up to line ${p.resumeAfter} of stdin (their ids are on stdout)`;
  const maybe = unknown ? `; ${failed} got no answer and may be stored too` : '';
  const resume = p.resumeAfter === 0 ? 'send the same input again' : `resume with --skip ${p.resumeAfter}`;
  return new SmqError(kind, `${message}; ${stored}${maybe}`, {
    hint: then(
      unknown ? `${resume}, or with --skip ${p.failedLast} if 'smq peek' shows ${failed} stored (one transaction: all or none)` : resume,
    ),
    cause,
  });
}

/** Sends the messages in batches (or all in one transaction), reporting each batch's ids as it is stored. */
export async function sendInBatches(
  backend: Pick<Backend, 'sendBatch'>,
  queue: string,
  messages: readonly LineMessage[],
  options: BatchOptions,
): Promise<void> {
  const size = options.atomic ? Math.max(messages.length, 1) : (options.batchSize ?? BATCH_SIZE);
  let sent = 0;
  let resumeAfter = options.skipped;
  for (let i = 0; i < messages.length; i += size) {
    const batch = messages.slice(i, i + size);
    let ids: MessageId[];
    try {
      ids = await backend.sendBatch(
        queue,
        batch.map((m) => m.message),
      );
    } catch (e) {
      throw partialSendError(e, {
        sent,
        total: messages.length,
        resumeAfter,
        failedFirst: batch[0]!.line,
        failedLast: batch[batch.length - 1]!.line,
        atomic: options.atomic,
      });
    }
    options.onStored(ids);
    sent += ids.length;
    resumeAfter = batch[batch.length - 1]!.line;
  }
}
