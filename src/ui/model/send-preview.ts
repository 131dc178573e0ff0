// What `s` is about to send, shown before it is sent: the body as the store will take it
// (parsed as JSON where the store keeps JSON), and one question on one line.
import { escapeControl } from '../../text/escape.js';
import { cellWidth, cutToCells } from '../../text/width.js';
import { counted } from './format.js';

export type SendPreview =
  | { readonly ok: true; readonly body: string; readonly what: string; readonly bytes: number }
  | { readonly ok: false; readonly problem: string };

/** What a parsed JSON value is, in words ("JSON object, 2 keys"). */
function describeJson(value: unknown): string {
  if (Array.isArray(value)) return `JSON array, ${counted(value.length, 'item')}`;
  if (value === null) return 'JSON null';
  if (typeof value === 'object') return `JSON object, ${counted(Object.keys(value).length, 'key')}`;
  return `JSON ${typeof value}`;
}

/**
 * The body typed at the send prompt, judged before anything is sent: empty, or not JSON
 * where the store takes only JSON (pgmq's jsonb), is refused here; otherwise what it is.
 * The text is shown as typed (escaped), not re-serialised: JSON.parse would round numbers
 * that the store keeps exactly.
 */
export function previewBody(body: string, jsonBodies: boolean): SendPreview {
  if (body.trim() === '') return { ok: false, problem: 'nothing sent: the body was empty' };
  let what: string;
  try {
    what = describeJson(JSON.parse(body));
  } catch (e) {
    if (jsonBodies) {
      const reason = e instanceof Error ? e.message : String(e);
      return { ok: false, problem: `nothing sent: the body is not valid JSON (${escapeControl(reason)}); pgmq stores jsonb` };
    }
    what = 'text';
  }
  return { ok: true, body: escapeControl(body), what, bytes: Buffer.byteLength(body, 'utf8') };
}

const ANSWER_CELLS = ' [y/N] '.length;

/** "Send to orders: {"a": 1} (JSON object, 1 key, 8 bytes)?" in `width` cells: the body is cut first. */
export function sendQuestion(preview: Extract<SendPreview, { ok: true }>, queueLabel: string, width: number): string {
  const head = `Send to ${cutToCells(queueLabel, Math.max(8, Math.floor(width / 4)))}: `;
  const tail = ` (${preview.what}, ${counted(preview.bytes, 'byte')})?`;
  const room = Math.max(1, width - cellWidth(head) - cellWidth(tail) - ANSWER_CELLS);
  return `${head}${cutToCells(preview.body, room)}${tail}`;
}
