// The lines of a message body for the detail view, bounded whatever the body is: a 40 KB
// body of 20,000 nested `[` once became 400 million characters of indentation, and a 50 MB
// body a million strings. One pass over the text, no recursion and no parse tree: JSON is
// re-indented as written (ids above 2^53 and escapes stay as stored), indentation stops
// growing at maxIndentDepth levels, each line stops at maxLineChars (a terminal shows less),
// and output stops at maxLines lines or maxChars characters, saying how much is left out.
import { escapeControl } from '../../text/escape.js';

export interface PrettyLimits {
  readonly maxLines: number;
  readonly maxChars: number;
  readonly maxLineChars: number;
  readonly maxIndentDepth: number;
}

export const PRETTY_LIMITS: PrettyLimits = {
  maxLines: 20_000,
  maxChars: 2_000_000,
  maxLineChars: 1_000,
  maxIndentDepth: 16,
};

export interface BodyLines {
  /** Escaped lines, ready for the screen. */
  readonly lines: string[];
  /** The body is valid JSON and was re-indented. */
  readonly json: boolean;
  /** Output stopped at maxLines / maxChars: the body goes on after the last line. */
  readonly cut: boolean;
}

const WS = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Index after the JSON string starting at i (a quote), or -1 when it is not a valid one. */
function skipString(t: string, i: number): number {
  for (let j = i + 1; j < t.length; j++) {
    const c = t.charCodeAt(j);
    if (c === 0x22) return j + 1;
    if (c < 0x20) return -1;
    if (c === 0x5c) {
      const e = t[j + 1];
      if (e === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(t.slice(j + 2, j + 6))) return -1;
        j += 5;
      } else if (e !== undefined && '"\\/bfnrt'.includes(e)) j += 1;
      else return -1;
    }
  }
  return -1;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Index after the number or literal at i, or -1. */
function skipScalar(t: string, i: number): number {
  for (const lit of ['true', 'false', 'null']) if (t.startsWith(lit, i)) return i + lit.length;
  NUMBER.lastIndex = i;
  return NUMBER.test(t) ? NUMBER.lastIndex : -1;
}

/**
 * Whether `t` is one JSON value (RFC 8259), checked in one pass with an explicit stack, so
 * depth costs a byte per level and never the call stack.
 */
export function isJson(t: string): boolean {
  // Per open container: 0x7b object or 0x5b array. `expect` says what may come next.
  const stack: number[] = [];
  let expect: 'value' | 'valueOrClose' | 'key' | 'keyOrClose' | 'colon' | 'commaOrClose' | 'end' = 'value';
  let i = 0;
  while (i < t.length) {
    const c = t.charCodeAt(i);
    if (WS(c)) {
      i++;
      continue;
    }
    switch (expect) {
      case 'end':
        return false;
      case 'colon':
        if (c !== 0x3a) return false;
        expect = 'value';
        i++;
        continue;
      case 'key':
      case 'keyOrClose':
        if (c === 0x7d && expect === 'keyOrClose') break;
        if (c !== 0x22) return false;
        i = skipString(t, i);
        if (i < 0) return false;
        expect = 'colon';
        continue;
      case 'commaOrClose':
        if (c === 0x2c) {
          expect = stack[stack.length - 1] === 0x7b ? 'key' : 'value';
          i++;
          continue;
        }
        break;
      case 'value':
      case 'valueOrClose':
        if (c === 0x5d && expect === 'valueOrClose') break;
        if (c === 0x7b || c === 0x5b) {
          stack.push(c);
          expect = c === 0x7b ? 'keyOrClose' : 'valueOrClose';
          i++;
          continue;
        }
        i = c === 0x22 ? skipString(t, i) : skipScalar(t, i);
        if (i < 0) return false;
        expect = stack.length === 0 ? 'end' : 'commaOrClose';
        continue;
    }
    // A closing bracket, where one may come.
    const open = stack.pop();
    if ((c === 0x7d && open !== 0x7b) || (c === 0x5d && open !== 0x5b)) return false;
    expect = stack.length === 0 ? 'end' : 'commaOrClose';
    i++;
  }
  return expect === 'end';
}

/** Collects lines under the limits; `full` once no more may be added. */
class LineSink {
  readonly lines: string[] = [];
  private chars = 0;
  full = false;
  private current = '';
  private currentCut = false;

  constructor(private readonly limits: PrettyLimits) {}

  /** Appends to the current line, up to maxLineChars. */
  add(text: string): void {
    if (this.full || this.currentCut) return;
    const room = this.limits.maxLineChars - this.current.length;
    if (text.length <= room) this.current += text;
    else {
      this.current += text.slice(0, Math.max(0, room));
      this.currentCut = true;
    }
  }

  /** Room left on the current line (so a long string token is never copied whole). */
  get room(): number {
    return this.currentCut ? 0 : Math.max(0, this.limits.maxLineChars - this.current.length);
  }

  endLine(): void {
    if (this.full) return;
    const line = escapeControl(this.current) + (this.currentCut ? '…' : '');
    this.lines.push(line);
    this.chars += line.length + 1;
    this.current = '';
    this.currentCut = false;
    if (this.lines.length >= this.limits.maxLines || this.chars >= this.limits.maxChars) this.full = true;
  }
}

/** Re-indents valid JSON (check with isJson first) into bounded lines. */
function jsonLines(t: string, limits: PrettyLimits): { lines: string[]; cut: boolean } {
  const sink = new LineSink(limits);
  let depth = 0;
  const newline = () => {
    sink.endLine();
    sink.add('  '.repeat(Math.min(depth, limits.maxIndentDepth)));
  };
  let i = 0;
  while (i < t.length && !sink.full) {
    const c = t.charCodeAt(i);
    if (c === 0x22) {
      const end = skipString(t, i);
      // Only what fits on the line is copied: a 50 MB string value costs one line.
      sink.add(t.slice(i, Math.min(end, i + sink.room + 1)));
      i = end;
      continue;
    }
    if (WS(c)) {
      i++;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      // Empty containers stay on one line.
      let j = i + 1;
      while (j < t.length && WS(t.charCodeAt(j))) j++;
      const close = c === 0x7b ? '}' : ']';
      if (t[j] === close) {
        sink.add(t[i]! + close);
        i = j + 1;
        continue;
      }
      depth++;
      sink.add(t[i]!);
      newline();
      i++;
      continue;
    }
    if (c === 0x7d || c === 0x5d) {
      depth = Math.max(0, depth - 1);
      newline();
      sink.add(t[i]!);
      i++;
      continue;
    }
    if (c === 0x2c) {
      sink.add(',');
      newline();
      i++;
      continue;
    }
    if (c === 0x3a) {
      sink.add(': ');
      i++;
      continue;
    }
    // A number or literal: copy it up to the next delimiter.
    let j = i + 1;
    while (j < t.length && !'{}[],:" \n\r\t'.includes(t[j]!)) j++;
    sink.add(t.slice(i, Math.min(j, i + sink.room + 1)));
    i = j;
  }
  const cut = sink.full && i < t.length;
  if (!sink.full) sink.endLine();
  return { lines: sink.lines, cut };
}

/** Text as it is, line by line (CRLF as one break), escaped and bounded. */
function rawLines(t: string, limits: PrettyLimits): { lines: string[]; cut: boolean } {
  const sink = new LineSink(limits);
  let i = 0;
  while (i <= t.length && !sink.full) {
    let end = t.indexOf('\n', i);
    if (end < 0) end = t.length;
    const lineEnd = end > i && t.charCodeAt(end - 1) === 0x0d ? end - 1 : end;
    sink.add(t.slice(i, Math.min(lineEnd, i + sink.room + 1)));
    sink.endLine();
    i = end + 1;
  }
  return { lines: sink.lines, cut: i < t.length };
}

/** The body's lines: JSON re-indented when it is JSON, else the text as it is; always bounded. */
export function bodyLines(body: string, limits: PrettyLimits = PRETTY_LIMITS): BodyLines {
  let k = 0;
  while (k < body.length && WS(body.charCodeAt(k))) k++;
  const first = body[k];
  if ((first === '{' || first === '[') && isJson(body)) return { ...jsonLines(body, limits), json: true };
  return { ...rawLines(body, limits), json: false };
}
