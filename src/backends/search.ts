// Searching inside a queue's messages (Backend.searchMessages), the part both stores share:
// what the typed text means and its LIKE pattern. The stores scan in bounded steps by id.
import { invalidInput } from '../errors.js';

/** What a search looks for: a JSON object (pgmq: containment) or text (case-insensitive). */
export type SearchMode = { readonly kind: 'json'; readonly json: string } | { readonly kind: 'text'; readonly pattern: string };

/** `%text%` for LIKE / ILIKE with `\` as the escape character: %, _ and \ match themselves. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A JSON object is matched by containment where the store can (jsonObject); anything else as text. */
export function searchMode(text: string, jsonObject: boolean): SearchMode {
  if (jsonObject) {
    try {
      const v: unknown = JSON.parse(text);
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) return { kind: 'json', json: text };
    } catch {
      // not JSON: a text search
    }
  }
  return { kind: 'text', pattern: likePattern(text) };
}

/** Where the next step starts: after the last match when the step was cut by the limit, else after the rows read. */
export function nextAfter(
  matchIds: readonly bigint[],
  limit: number,
  scanned: number,
  scan: number,
  lastScanned: bigint | null,
): bigint | null {
  if (matchIds.length >= limit && matchIds.length > 0) return matchIds[matchIds.length - 1]!;
  if (scanned < scan || lastScanned === null) return null;
  return lastScanned;
}

/** Bounds of one step: whole numbers from 1 (an empty text is refused: it would match everything). */
export function checkSearch(options: { text: string; scan: number; limit: number }): { scan: number; limit: number } {
  if (options.text === '') throw invalidInput('the search text is empty', 'type what to look for');
  for (const [name, v] of [
    ['scan', options.scan],
    ['limit', options.limit],
  ] as const) {
    if (!Number.isSafeInteger(v) || v < 1) throw invalidInput(`search ${name} must be a whole number from 1, not ${String(v)}`);
  }
  return { scan: options.scan, limit: options.limit };
}
