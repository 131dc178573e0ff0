// The lean path's type parsers: node-postgres's own, except two that give the same values
// for less work. timestamptz: a message row carries two or three, and postgres-date's
// regular expressions were the largest single cost of a tester receiver's CPU profile (about
// 7% of the thread). The server's usual text form (DateStyle ISO: `2026-12-06
// 03:03:21.123456+00`) is read here with the same arithmetic postgres-date uses, so the Date
// is the same to the millisecond; any other form (BC, infinity, a five-digit year, an offset
// with seconds) goes to postgres-date. int8 (every message id): node-postgres returns the
// text as it came, after testing it against a regular expression; here without the test.
import pg from 'pg';

const TIMESTAMPTZ = 1184;
const INT8 = 20;

type Parser = (text: string) => unknown;

/** node-postgres's parser for timestamptz as this module found it. */
const pgTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ, 'text') as Parser;
/** Its int8 parser: the text itself, whatever it is, after a regular expression. */
const pgInt8 = pg.types.getTypeParser(INT8, 'text') as Parser;
const asText: Parser = (text) => text;

/** The parser of a column of type `oid`, as node-postgres would pick it. */
export function typeParser(oid: number): Parser {
  const parser = pg.types.getTypeParser(oid, 'text') as Parser;
  // Someone set their own parser: theirs is used, as through a pg.Pool.
  if (oid === TIMESTAMPTZ && parser === pgTimestamptz) return parseTimestamptz;
  if (oid === INT8 && parser === pgInt8) return asText;
  return parser;
}

/** The number written by s[from..to) in decimal digits, or -1 if one is not a digit. */
function digits(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/** `YYYY-MM-DD HH:MM:SS[.f…](+|-)HH[:MM]` as a Date; anything else as postgres-date reads it. */
export function parseTimestamptz(s: string): unknown {
  const n = s.length;
  if (
    n < 22 ||
    s.charCodeAt(4) !== 45 || // -
    s.charCodeAt(7) !== 45 ||
    s.charCodeAt(10) !== 32 || // space
    s.charCodeAt(13) !== 58 || // :
    s.charCodeAt(16) !== 58
  ) {
    return pgTimestamptz(s);
  }
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 7);
  const day = digits(s, 8, 10);
  const hour = digits(s, 11, 13);
  const minute = digits(s, 14, 16);
  const second = digits(s, 17, 19);
  // Years below 100 need postgres-date's correction (Date.UTC reads them as 19xx).
  if (year < 100 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return pgTimestamptz(s);
  let i = 19;
  let ms = 0;
  if (s.charCodeAt(i) === 46) {
    let j = i + 1;
    while (j < n && isDigit(s.charCodeAt(j))) j++;
    if (j === i + 1) return pgTimestamptz(s);
    ms = 1000 * parseFloat(s.slice(i, j)); // as postgres-date computes it
    i = j;
  }
  const sign = s.charCodeAt(i);
  if (sign !== 43 && sign !== 45) return pgTimestamptz(s); // + or -
  const offsetHours = digits(s, i + 1, i + 3);
  let offsetMinutes = 0;
  let end = i + 3;
  if (end < n) {
    if (s.charCodeAt(end) !== 58 || n !== end + 3) return pgTimestamptz(s);
    offsetMinutes = digits(s, end + 1, end + 3);
    end = n;
  }
  if (end !== n || offsetHours < 0 || offsetMinutes < 0) return pgTimestamptz(s);
  const offsetMs = (sign === 45 ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60) * 1000;
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMs);
}
