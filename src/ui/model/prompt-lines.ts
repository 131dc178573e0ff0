// How a prompt of top (a y/N question, or a label with a line to type) is laid out in the
// footer: on one line when it fits, else word-wrapped onto more lines, by terminal cells,
// so that the queue name and the question mark are never cut. A label that takes more than
// one line (or leaves too little room to type) puts the typed text on a line of its own,
// after "> ". The prompt never takes more than the lines it is given (the rest of the
// screen needs them); only then is something cut, the part that can give way first (the
// body of a send), else the end of the last line.
import { cellWidth, cutToCells } from '../../text/width.js';
import { wrapRows } from './body-view.js';
import { ACTION_WORDS, type Modal } from './navigation.js';
import { previewBody, sendQuestion } from './send-preview.js';

/** What a y/N question adds at its end. */
export const ANSWER = ' [y/N]';
/** The fewest cells of typed text a one-line prompt keeps in view (else the input gets its own line). */
export const MIN_TEXT_CELLS = 20;
/** What starts the line of typed text when it has a line of its own. */
export const INPUT_MARK = '> ';

export interface PromptText {
  readonly kind: 'confirm' | 'input';
  /** The question or the label, in three parts: `middle` is what gives way first when lines run short. */
  readonly before: string;
  readonly middle?: string;
  readonly after?: string;
}

export interface PromptLines {
  /** The lines of the question (a confirm's last line ends with ANSWER) or of the label. */
  readonly lines: readonly string[];
  /** An input's typed text: after the label on its one line, or on a line of its own. */
  readonly input: 'same' | 'own' | 'none';
  /** Lines taken in all. */
  readonly height: number;
}

/** `text` word-wrapped into lines of at most `width` cells (spaces at a break are dropped). */
export function wrapCells(text: string, width: number): string[] {
  const w = Math.max(1, width);
  const lines: string[] = [];
  let line = '';
  let used = 0;
  for (const word of text.split(' ')) {
    if (word === '') {
      // Runs of spaces inside a line are kept; at a break they go.
      if (used > 0 && used + 1 <= w) {
        line += ' ';
        used += 1;
      }
      continue;
    }
    const ww = cellWidth(word);
    const sep = used > 0 && !line.endsWith(' ') ? 1 : 0;
    if (used + sep + ww <= w) {
      line += (sep ? ' ' : '') + word;
      used += sep + ww;
      continue;
    }
    if (used > 0) lines.push(line.trimEnd());
    if (ww <= w) {
      line = word;
      used = ww;
      continue;
    }
    const parts = wrapRows(word, w);
    lines.push(...parts.slice(0, -1));
    line = parts.at(-1) ?? '';
    used = cellWidth(line);
  }
  if (line.trimEnd() !== '' || lines.length === 0) lines.push(line.trimEnd());
  return lines;
}

/** At most `max` lines: the last one kept ends with … when lines were left off. */
function keep(lines: readonly string[], max: number, width: number): string[] {
  if (lines.length <= max) return [...lines];
  const kept = lines.slice(0, Math.max(1, max));
  const last = kept.length - 1;
  kept[last] = cutToCells(`${kept[last]!}…`, width);
  if (!kept[last]!.endsWith('…')) kept[last] = `${cutToCells(kept[last]!, width - 1)}…`;
  return kept;
}

function whole(p: PromptText, middle: string = p.middle ?? ''): string {
  return `${p.before}${middle}${p.after ?? ''}`;
}

/** Lines of the text (with its answer, for a question), the middle cut until they fit in `max` lines. */
function fitted(p: PromptText, width: number, max: number, end: string): string[] {
  const wrap = (middle: string) => wrapCells(`${whole(p, middle)}${end}`.trimEnd(), width);
  // A long middle (a pasted body) is cut before it is wrapped: never more than the screen.
  let middle = cutToCells(p.middle ?? '', Math.max(1, width * (max + 1)));
  let lines = wrap(middle);
  if (lines.length > max && middle !== '') {
    // The longest cut of the middle that fits (fewer cells never take more lines).
    let lo = 0;
    let hi = cellWidth(middle);
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (wrap(cutToCells(middle, mid)).length <= max) lo = mid;
      else hi = mid - 1;
    }
    middle = lo === 0 ? '…' : cutToCells(middle, lo);
    lines = wrap(middle);
  }
  return keep(lines, max, width);
}

/**
 * The lines of prompt `p` in `width` cells, taking at most `maxLines` lines (at least 1).
 * A question ends with ANSWER; an input's label leaves its typed text on the same line
 * when label and MIN_TEXT_CELLS (and the cursor) fit, else the typed text gets a line.
 */
export function promptLines(p: PromptText, width: number, maxLines: number): PromptLines {
  const w = Math.max(1, width);
  const max = Math.max(1, maxLines);
  if (p.kind === 'confirm') {
    const lines = fitted(p, w, max, ANSWER);
    return { lines, input: 'none', height: lines.length };
  }
  const label = whole(p);
  // One line: the label, MIN_TEXT_CELLS to type, the cursor and one spare cell.
  if (cellWidth(label) + MIN_TEXT_CELLS + 2 <= w || max === 1) {
    return { lines: [cutToCells(label, Math.max(1, w - 2 - MIN_TEXT_CELLS))], input: 'same', height: 1 };
  }
  const lines = fitted(p, w, max - 1, '');
  return { lines, input: 'own', height: lines.length + 1 };
}

/** A status line (an answer, an error) takes at most this many lines; then it is cut. */
export const STATUS_MAX_LINES = 3;

/**
 * The lines of a status message in `width` cells: word-wrapped so that its end (often what
 * to do next: "press Ctrl-D again") is not lost, at most `maxLines` (the last cut with …).
 */
export function statusLines(text: string, width: number, maxLines = STATUS_MAX_LINES): string[] {
  const w = Math.max(1, width);
  // A long text (a server's error) is cut before it is wrapped: never more than the lines.
  return keep(wrapCells(cutToCells(text, w * (maxLines + 1)), w), Math.max(1, maxLines), w);
}

/** "Delete message 12 in orders?" */
export function confirmQuestion(ask: string, id: bigint, queueLabel: string): string {
  return `${ask} message ${id} in ${queueLabel}?`;
}

export const FILTER_LABEL = 'filter (regex): /';
export const JUMP_LABEL = 'jump to message id: ';
export const purgeLabel = (queueLabel: string) => `Purge deletes EVERY message of ${queueLabel}. Type the queue name to confirm: `;
export const sendLabel = (queueLabel: string) => `send to ${queueLabel}: `;

/** The text of the prompt of `modal` (components/Prompts draws it; TopApp makes room for it). */
export function modalPromptText(modal: Exclude<Modal, { kind: 'help' }>, jsonBodies: boolean): PromptText | undefined {
  switch (modal.kind) {
    case 'filter':
      return { kind: 'input', before: FILTER_LABEL };
    case 'jump':
      return { kind: 'input', before: JUMP_LABEL };
    case 'confirm':
      return { kind: 'confirm', before: confirmQuestion(ACTION_WORDS[modal.action].ask, modal.id, modal.queue.label) };
    case 'purge':
      return { kind: 'input', before: purgeLabel(modal.queue.label) };
    case 'send':
      return { kind: 'input', before: sendLabel(modal.queue.label) };
    case 'sendConfirm': {
      const preview = previewBody(modal.body, jsonBodies);
      return preview.ok ? sendQuestion(preview, modal.queue.label) : undefined;
    }
  }
}
