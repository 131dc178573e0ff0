// pgmq 1.7–1.13's features a store may lack (Capabilities): one line each saying what the
// store lacks and what has it. Backends refuse with it; the commands check before they call.
import { invalidInput, type SmqError } from '../errors.js';
import type { Capabilities } from './types.js';

export const LACKS = {
  groups: ['the store has no FIFO groups', "they need pgmq 1.9+ or smq's compat schema (smq init)"],
  groupedHead: ['the store has no grouped head reads (read_grouped_head)', "they need pgmq 1.12+ or smq's compat schema (smq init)"],
  topics: ['the store has no topic routing', "it needs pgmq 1.11+ or smq's compat schema (smq init)"],
  notifyInsert: ['the store has no insert notifications', "they need pgmq 1.7+ or smq's compat schema (smq init)"],
} as const satisfies Record<string, readonly [string, string]>;

export type Feature = keyof typeof LACKS;

/** The feature's one line (invalid input, exit 2). */
export function lacking(feature: Feature): SmqError {
  const [what, hint] = LACKS[feature];
  return invalidInput(what, hint);
}

/** Throws lacking(feature) when the store lacks it. */
export function need(caps: Capabilities, feature: Feature): void {
  if (!caps[feature]) throw lacking(feature);
}
