// The arguments of the Backend contract, checked the same way by both backends before any
// SQL runs (queue names: names.ts). The commands check their flags first; these rules hold
// for every other caller too (top, the tester, tests). Each refusal is one invalid-input
// line that says what to give instead.
//
// Seconds are whole: pgmq's functions take integer seconds and SmoothMQ stores whole Unix
// seconds. A fraction is refused on both (SQLite used to round it up, pgmq refused it).
import { invalidInput } from '../errors.js';
import { MAX_MESSAGE_ID } from '../text/ids.js';
import { MESSAGE_STATES, type MessageId, type MessageState, type PeekOptions, type ReceiveOptions, type SendInput } from './types.js';

/** The visibility timeout a receive uses when none is given and the queue has none of its own (pgmq). */
export const DEFAULT_VT_SEC = 30;

/**
 * The most any count or number of seconds may be: pgmq's functions take a 32-bit integer, and
 * SmoothMQ is held to the same (it took any number: a lease until the year 5195).
 */
export const MAX_WHOLE = 2_147_483_647;

const tooLarge = (value: number, what: string, unit: string, note = '') =>
  invalidInput(`invalid ${what} ${String(value)}`, `give a whole number${unit} up to ${MAX_WHOLE}${note}`);

/** A whole number of seconds, 0 or more (a visibility timeout, a delay). */
export function wholeSeconds(value: number, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw invalidInput(`invalid ${what} ${String(value)}`, 'give a whole number of seconds, 0 or more');
  }
  if (value > MAX_WHOLE) throw tooLarge(value, what, ' of seconds', ' (about 68 years)');
  return value;
}

/** A whole number of 1 or more (a quantity, a page size). */
export function positiveWhole(value: number, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw invalidInput(`invalid ${what} ${String(value)}`, 'give a whole number of 1 or more');
  }
  if (value > MAX_WHOLE) throw tooLarge(value, what, '');
  return value;
}

/** Message ids: pgmq's bigint identity and SmoothMQ's snowflakes both fit a signed 64-bit integer. */
export function messageIds(ids: readonly MessageId[]): bigint[] {
  if (!Array.isArray(ids)) throw invalidInput('message ids must be a list');
  return ids.map((id) => {
    if (typeof id !== 'bigint' || id < 0n || id > MAX_MESSAGE_ID) {
      throw invalidInput(`invalid message id ${String(id)}`, 'ids are whole numbers, as shown by smq peek');
    }
    return id;
  });
}

/** Every message has a text body and a valid delay; returns each one's delay in seconds. */
export function sendInputs(messages: readonly SendInput[]): number[] {
  if (!Array.isArray(messages)) throw invalidInput('messages must be a list');
  return messages.map((m, i) => {
    if (m === null || typeof m !== 'object' || typeof m.body !== 'string') {
      throw invalidInput(`message ${i + 1} has no text body`);
    }
    return m.delaySec === undefined ? 0 : wholeSeconds(m.delaySec, 'delay');
  });
}

export interface CheckedReceive {
  readonly qty: number;
  /** Undefined: the queue's own (SmoothMQ) or DEFAULT_VT_SEC (pgmq). */
  readonly vtSec: number | undefined;
  readonly dequeue: 'safe' | 'naive';
  readonly naivePauseMs: number;
  /** Undefined: no polling. */
  readonly pollSec: number | undefined;
}

export function receiveOptions(options: ReceiveOptions): CheckedReceive {
  const qty = positiveWhole(options.qty, 'quantity');
  const vtSec = options.vtSec === undefined ? undefined : wholeSeconds(options.vtSec, 'visibility timeout');
  const dequeue = options.dequeue ?? 'safe';
  if (dequeue !== 'safe' && dequeue !== 'naive') throw invalidInput(`unknown dequeue mode ${JSON.stringify(dequeue)}`, 'use safe or naive');
  const naivePauseMs = options.naivePauseMs ?? 0;
  if (typeof naivePauseMs !== 'number' || !Number.isFinite(naivePauseMs) || naivePauseMs < 0) {
    throw invalidInput(`invalid naive pause ${String(naivePauseMs)} ms`, 'give a number of milliseconds, 0 or more');
  }
  const pollSec = options.pollSec === undefined ? undefined : wholeSeconds(options.pollSec, 'poll time');
  if (pollSec !== undefined && dequeue === 'naive') throw invalidInput('the naive dequeue does not poll', 'drop the poll time');
  return { qty, vtSec, dequeue, naivePauseMs, pollSec };
}

export interface CheckedPeek {
  readonly limit: number;
  readonly state: MessageState | 'all';
  readonly order: 'oldest' | 'newest';
  readonly afterId: bigint | undefined;
  readonly id: bigint | undefined;
}

/** `states`: the states this store has (pgmq has no failed state). */
export function peekOptions(options: PeekOptions, states: readonly MessageState[] = MESSAGE_STATES): CheckedPeek {
  const limit = positiveWhole(options.limit, 'limit');
  const state = options.state ?? 'all';
  if (state !== 'all' && !(states as readonly string[]).includes(state)) {
    const known = (MESSAGE_STATES as readonly string[]).includes(state);
    throw invalidInput(
      known ? `this store has no ${state} state` : `unknown state ${JSON.stringify(state)}`,
      `use ${states.join(', ')} or all`,
    );
  }
  const order = options.order ?? 'oldest';
  if (order !== 'oldest' && order !== 'newest') throw invalidInput(`unknown order ${JSON.stringify(order)}`, 'use oldest or newest');
  const [afterId] = options.afterId === undefined ? [undefined] : messageIds([options.afterId]);
  const [id] = options.id === undefined ? [undefined] : messageIds([options.id]);
  return { limit, state, order, afterId, id };
}
