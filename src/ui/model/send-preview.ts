// What `s` is about to send, shown before it is sent: the body as the store will take it
// (parsed as JSON where the store keeps JSON), and the question that asks before it goes.
import { escapeControl } from '../../text/escape.js';
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

/**
 * "Send to orders: {"a": 1} (JSON object, 1 key, 8 bytes)?": the body is the part that gives
 * way when the question has too few lines (model/prompt-lines); the queue and the rest stay.
 */
export function sendQuestion(preview: Extract<SendPreview, { ok: true }>, queueLabel: string) {
  return {
    kind: 'confirm' as const,
    before: `Send to ${queueLabel}: `,
    middle: preview.body,
    after: ` (${preview.what}, ${counted(preview.bytes, 'byte')})?`,
  };
}
