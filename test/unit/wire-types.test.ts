// The lean path's timestamptz parser gives the very Date node-postgres's own parser gives.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseTimestamptz, typeParser } from '../../src/backends/pgmq/wire-types.js';

const pgParse = pg.types.getTypeParser(1184, 'text') as (t: string) => unknown;

const same = (text: string) => {
  const ours = parseTimestamptz(text);
  const theirs = pgParse(text);
  if (theirs instanceof Date) {
    expect(ours, text).toBeInstanceOf(Date);
    expect((ours as Date).getTime(), text).toEqual(theirs.getTime());
  } else {
    expect(ours, text).toEqual(theirs);
  }
};

describe('wire timestamptz parser', () => {
  it('reads the forms a server sends as node-postgres does', () => {
    for (const text of [
      '2026-12-06 03:03:21.123456+00',
      '2026-12-06 03:03:21+00',
      '2026-12-06 03:03:21.1+00',
      '2026-12-06 03:03:21.57+00',
      '2026-12-06 03:03:21.999999+00',
      '2026-12-06 23:59:59.9999+05:30',
      '2026-12-06 00:00:00.5-08',
      '2026-12-06 00:00:00.5-03:30',
      '1999-02-28 12:00:00+14',
      '2024-02-29 12:00:00.000001-12',
      '0099-01-01 00:00:00+00',
      '0100-01-01 00:00:00+00',
      '12026-12-06 03:03:21+00',
      '2026-12-06 03:03:21+00 BC',
      '2026-12-06 03:03:21.5+05:30:15',
      '1883-11-18 11:59:59-04:56:02',
      'infinity',
      '-infinity',
      '2026-12-06',
      '2026-12-06 03:03:21.+00',
      '2026-12-06 03:03:21Z',
      '2026-12-06T03:03:21+00',
      '2026-13-40 25:61:61+00',
      'garbage',
    ]) {
      same(text);
    }
  });

  it('agrees on many random instants and offsets', () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    for (let k = 0; k < 5000; k++) {
      const frac = rnd(3) === 0 ? '' : `.${pad(rnd(1_000_000), 6).slice(0, 1 + rnd(6))}`;
      const off = rnd(3) === 0 ? '+00' : `${rnd(2) ? '+' : '-'}${pad(rnd(15), 2)}${rnd(2) ? `:${pad(rnd(60), 2)}` : ''}`;
      const text = `${pad(100 + rnd(9900), 4)}-${pad(1 + rnd(12), 2)}-${pad(1 + rnd(28), 2)} ${pad(rnd(24), 2)}:${pad(rnd(60), 2)}:${pad(rnd(60), 2)}${frac}${off}`;
      same(text);
    }
  });

  it('leaves a parser the user set for timestamptz in place, and other types to node-postgres', () => {
    expect(typeParser(1184)).toBe(parseTimestamptz);
    expect(typeParser(23)).toBe(pg.types.getTypeParser(23, 'text'));
    // int8: node-postgres returns the text itself in every case; so does ours.
    for (const t of ['0', '9223372036854775807', '-5', '', 'x1']) expect(typeParser(20)(t)).toBe(pg.types.getTypeParser(20, 'text')(t));
    const mine = (t: string) => `mine:${t}`;
    pg.types.setTypeParser(1184, mine);
    try {
      expect(typeParser(1184)).toBe(mine);
    } finally {
      pg.types.setTypeParser(1184, pgParse);
    }
  });
});
