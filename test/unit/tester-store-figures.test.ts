// The report's lines on what the run cost the database (store-figures.ts): bytes read as people write them.
import { describe, expect, test } from 'vitest';
import type { Backend, StoreActivity } from '../../src/backends/index.js';
import { databaseLines, readActivityAfter, type DatabaseFigures } from '../../src/tester/store-figures.js';

const figures = (walBytesPerMessage: number | null, walBytes: number): DatabaseFigures =>
  ({ walBytes, walBytesPerMessage, settings: {}, tables: [] }) as unknown as DatabaseFigures;

describe('databaseLines', () => {
  test('WAL per message under 1 kB is whole bytes, not a long fraction', () => {
    expect(databaseLines(figures(1000.3666666666667, 1_200_440))[0]).toMatch(/^1,000 B of WAL per message \(1\.1 MB in all/);
    expect(databaseLines(figures(512.5, 600))[0]).toMatch(/^513 B of WAL per message \(600 B in all/);
    expect(databaseLines(figures(1945.6, 2_000_000))[0]).toMatch(/^1\.9 kB of WAL per message/);
  });
});

describe('readActivityAfter', () => {
  const table = (inserted: number, updated: number, deleted: number) => ({
    table: 'q_t',
    inserted,
    updated,
    deleted,
    deadTuples: 0,
    autovacuums: 0,
    autoanalyzes: 0,
    tableBytes: 0,
    indexBytes: 0,
  });
  const activity = (inserted: number, updated: number, deleted: number): StoreActivity => ({
    walBytes: 0,
    settings: {},
    tables: [table(inserted, updated, deleted)],
  });
  /** The counters as the server shows them read after read: the senders' connections report first, the receivers' a moment later. */
  const arriving = (...reads: StoreActivity[]) => {
    let i = 0;
    return { storeActivity: async () => reads[Math.min(i++, reads.length - 1)]! } as unknown as Backend;
  };

  test("waits for the receivers' counts too, not only the senders' inserts", async () => {
    const backend = arriving(activity(600, 305, 300), activity(600, 600, 600));
    const after = await readActivityAfter(backend, ['t'], activity(0, 0, 0), { inserted: 600, deleted: 600 });
    expect(after?.tables[0]).toMatchObject({ inserted: 600, updated: 600, deleted: 600 });
  });

  test('gives up waiting after its deadline and returns what it has', async () => {
    const backend = arriving(activity(600, 305, 300));
    const started = Date.now();
    const after = await readActivityAfter(backend, ['t'], activity(0, 0, 0), { inserted: 600, deleted: 600 });
    expect(after?.tables[0]).toMatchObject({ deleted: 300 });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
