// The report's lines on what the run cost the database (store-figures.ts): bytes read as people write them.
import { describe, expect, test } from 'vitest';
import { databaseLines, type DatabaseFigures } from '../../src/tester/store-figures.js';

const figures = (walBytesPerMessage: number | null, walBytes: number): DatabaseFigures =>
  ({ walBytes, walBytesPerMessage, settings: {}, tables: [] }) as unknown as DatabaseFigures;

describe('databaseLines', () => {
  test('WAL per message under 1 kB is whole bytes, not a long fraction', () => {
    expect(databaseLines(figures(1000.3666666666667, 1_200_440))[0]).toMatch(/^1,000 B of WAL per message \(1\.1 MB in all/);
    expect(databaseLines(figures(512.5, 600))[0]).toMatch(/^513 B of WAL per message \(600 B in all/);
    expect(databaseLines(figures(1945.6, 2_000_000))[0]).toMatch(/^1\.9 kB of WAL per message/);
  });
});
