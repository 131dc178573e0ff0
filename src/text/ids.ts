// The one parser of message ids, for the commands' arguments and top's "jump to id".
import type { MessageId } from '../backends/types.js';

/** The largest id either store can hold: both keep ids in signed 64-bit columns. */
export const MAX_MESSAGE_ID = 9223372036854775807n;

export type MessageIdParse =
  | { readonly ok: true; readonly id: MessageId }
  /** digits: not plain decimal digits; range: larger than a 64-bit id. */
  | { readonly ok: false; readonly problem: 'digits' | 'range' };

/**
 * Message ids are bigint (SmoothMQ's snowflakes exceed 2^53), written in plain decimal
 * digits: no sign, no spaces (callers that take typed text trim it first).
 */
export function parseMessageId(text: string): MessageIdParse {
  if (!/^\d{1,20}$/.test(text)) return { ok: false, problem: 'digits' };
  const id = BigInt(text);
  return id > MAX_MESSAGE_ID ? { ok: false, problem: 'range' } : { ok: true, id };
}
