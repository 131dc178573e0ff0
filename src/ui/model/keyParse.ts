// Turns what the terminal sent into key presses, one by one. A terminal delivers several
// keys in one read when they come fast (key repeat, a fast typist, SSH): "\e[B\e[B\r",
// "dy", "\ej". Each must become its own press, so that each acts on the state the one
// before it left. Pure: no terminal, no React.
import type { KeyPress } from './keys.js';

export interface KeyEvent {
  /** The character typed ('' for keys that type nothing: arrows, Enter, Esc…). */
  readonly input: string;
  readonly key: KeyPress & { readonly shift?: boolean };
}

const ESC = '\u001b';

/** CSI final byte (no parameter, or the ~ form's number) -> key. */
const CSI_LETTER: Record<string, keyof KeyPress> = {
  A: 'upArrow',
  B: 'downArrow',
  C: 'rightArrow',
  D: 'leftArrow',
  H: 'home',
  F: 'end',
};
const CSI_TILDE: Record<string, keyof KeyPress | undefined> = {
  '1': 'home',
  '7': 'home',
  '4': 'end',
  '8': 'end',
  '3': 'delete',
  '5': 'pageUp',
  '6': 'pageDown',
};

/** xterm's modifier parameter (1 + shift·1 + alt·2 + ctrl·4) as flags. */
function modifiers(param: string | undefined): { shift?: boolean; meta?: boolean; ctrl?: boolean } {
  const m = Number(param ?? '1') - 1;
  if (!Number.isInteger(m) || m <= 0) return {};
  return { ...(m & 1 ? { shift: true } : {}), ...(m & 2 ? { meta: true } : {}), ...(m & 4 ? { ctrl: true } : {}) };
}

/** Parses one CSI sequence starting at `start` (the ESC); returns the key and where it ends. */
function parseCsi(text: string, start: number): { event: KeyEvent | undefined; end: number } {
  let i = start + 2;
  // putty's ESC [ [ 5 ~ form
  if (text[i] === '[') i++;
  const paramsStart = i;
  while (i < text.length && /[\u0020-\u003f]/.test(text[i]!)) i++;
  if (i >= text.length) return { event: undefined, end: text.length }; // cut short: drop it
  const final = text[i]!;
  const params = text.slice(paramsStart, i).split(';');
  const end = i + 1;
  let name: keyof KeyPress | undefined;
  if (final === '~') name = CSI_TILDE[params[0] ?? ''];
  else if (final === 'Z') return { event: { input: '', key: { tab: true, shift: true } }, end };
  else name = CSI_LETTER[final];
  if (!name) return { event: undefined, end }; // a key top does not use (F-keys, Insert…)
  return { event: { input: '', key: { [name]: true, ...modifiers(params[1]) } }, end };
}

/**
 * Every key press in `text`, in order. Rules a terminal program has to pick:
 * - ESC followed by anything that does not make an escape sequence is Escape, then that
 *   key: top binds nothing to Alt/Meta, and "Esc j" typed fast arrives as "\ej", exactly
 *   like Alt-j would; reading it as Escape-then-j does what the user pressed.
 * - Backspace (DEL or ^H) is backspace; the Delete key (ESC [ 3 ~) is delete.
 * - Other control characters are Ctrl+letter; NUL and ^\ ^] ^^ ^_ are ignored.
 * - A line feed stays a typed character (prompts make it a space; screens ignore it).
 */
export function parseKeys(text: string): KeyEvent[] {
  const out: KeyEvent[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === ESC) {
      const next = text[i + 1];
      if (next === '[') {
        const { event, end } = parseCsi(text, i);
        if (event) out.push(event);
        i = end;
        continue;
      }
      if (next === 'O' && i + 2 < text.length) {
        const name = CSI_LETTER[text[i + 2]!];
        if (name) {
          out.push({ input: '', key: { [name]: true } });
          i += 3;
          continue;
        }
      }
      out.push({ input: '', key: { escape: true } });
      i += 1;
      continue;
    }
    if (ch === '\r') out.push({ input: '', key: { return: true } });
    else if (ch === '\t') out.push({ input: '', key: { tab: true } });
    else if (ch === '\u007f' || ch === '\b') out.push({ input: '', key: { backspace: true } });
    else if (ch === '\n') out.push({ input: '\n', key: {} });
    else if (ch >= '\u0001' && ch <= '\u001a') {
      out.push({ input: String.fromCharCode(ch.charCodeAt(0) + 96), key: { ctrl: true } });
    } else if (ch < ' ') {
      // NUL and ^\ ^] ^^ ^_: nothing top uses
    } else {
      const cp = text.codePointAt(i)!;
      const char = String.fromCodePoint(cp);
      out.push({ input: char, key: typedKey(char) });
      i += char.length;
      continue;
    }
    i += 1;
  }
  return out;
}

/** The key flags of a typed character: Shift for a capital letter, as terminals send it. */
export function typedKey(char: string): KeyEvent['key'] {
  return /^[A-Z]$/.test(char) ? { shift: true } : {};
}

/** A press that types text (no key flags): a prompt may take a run of these at once. */
export function isTyped(event: KeyEvent): boolean {
  if (event.input === '') return false;
  const k = event.key;
  return !(k.ctrl || k.meta || k.return || k.escape || k.tab || k.backspace || k.delete);
}

/**
 * Where `text` ends with the start of an escape sequence that has not arrived whole (a
 * read can end between the bytes of one key: "\e[" now, "B" a moment later), or -1. A
 * lone ESC at the end counts too: it may be the start of the next arrow key.
 */
export function incompleteTail(text: string): number {
  const at = text.lastIndexOf(ESC);
  if (at < 0) return -1;
  const tail = text.slice(at);
  return /^\u001b(?:\[\[?[\u0020-\u003f]*|O)?$/.test(tail) ? at : -1;
}
