// A quick look at a body that says whether PostgreSQL's jsonb input certainly takes it,
// so only the doubtful ones need the server's own check (a second trip for their bytes).
// "Certainly" is kept far from every limit: anything near one is left to the server.

/**
 * Nesting the jsonb parser takes at any max_stack_depth: at its minimum (100kB) PostgreSQL 15
 * still took 600 levels of arrays and of objects; 2MB (the default) takes about 13,000.
 */
export const SURE_DEPTH = 256;
/** numeric takes 131,072 digits before the point and 16,383 after; a number without exponent under this is safe. */
const SURE_DIGITS = 1_000;
/** jsonb's containers stop at 256 MB; far below that (in UTF-16 units, up to 3 bytes each in UTF-8). */
const SURE_LENGTH = 32 * 1024 * 1024;

export interface Screen {
  /** jsonb takes it on a UTF8 database, whatever the server's settings. */
  readonly sure: boolean;
  /** Only ASCII, also in its \u escapes: any database encoding holds it. */
  readonly ascii: boolean;
}

// \u0000 (jsonb cannot hold it) and surrogate escapes (paired or not: left to the server).
const DOUBTFUL_ESCAPE = /\\u(0000|[dD][89a-fA-F])/;
const NON_ASCII = /[^\u0000-\u007f]/;
// An escape of a character beyond U+007F: it must be converted to the database encoding.
const NON_ASCII_ESCAPE = /\\u(?!00[0-7])/;

export function screenBody(text: string): Screen {
  const ascii = !NON_ASCII.test(text) && !NON_ASCII_ESCAPE.test(text);
  if (text.length > SURE_LENGTH || DOUBTFUL_ESCAPE.test(text)) return { sure: false, ascii };
  try {
    JSON.parse(text);
  } catch {
    return { sure: false, ascii };
  }
  // Valid JSON: walk it outside strings for nesting depth and the size and form of numbers.
  let depth = 0;
  let digits = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
      continue;
    }
    if ((c >= 0x30 && c <= 0x39) || c === 0x2e) {
      if (++digits > SURE_DIGITS) return { sure: false, ascii };
      continue;
    }
    // An exponent: e or E right after a digit (true/false have theirs after a letter).
    if ((c === 0x65 || c === 0x45) && digits > 0) return { sure: false, ascii };
    digits = 0;
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > SURE_DEPTH) return { sure: false, ascii };
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return { sure: true, ascii };
}
