// The report's lines on what the run cost the database (store-figures.ts): bytes read as people write them.
import { describe, expect, test } from 'vitest';
import type { Backend, StoreActivity } from '../../src/backends/index.js';
import { countersMoved, databaseFigures, databaseLines, readActivityAfter, type DatabaseFigures } from '../../src/tester/store-figures.js';

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
  const activity = (
    inserted: number,
    updated: number,
    deleted: number,
    server = '127.0.0.1:5432, up since 2026-12-07 10:00:00.000000Z',
  ): StoreActivity => ({
    server,
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

  // A failover: the counters before came from the old primary, those after from the new one.
  // Subtracted, they gave "786 inserted" for 1,198 messages sent.
  test('counters read on two servers (a failover, a restart) give no figures, and say why, at once', async () => {
    const before = activity(5000, 5000, 5000);
    const other = activity(786, 786, 786, '127.0.0.1:5433, up since 2026-12-07 10:00:05.000000Z');
    const started = Date.now();
    const after = await readActivityAfter(arriving(other), ['t'], before, { inserted: 1198, deleted: 1198 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(databaseFigures(before, after, 1198)).toBeNull();
    expect(countersMoved(before, after)).toBe(
      'no database figures: the counters were read on 127.0.0.1:5432, up since 2026-12-07 10:00:00.000000Z before the run ' +
        'and on 127.0.0.1:5433, up since 2026-12-07 10:00:05.000000Z after it (a failover or a restart), and counters of two servers do not subtract',
    );
    // Same server: figures, no warning.
    const same = activity(6198, 6198, 6198);
    expect(databaseFigures(before, same, 1198)?.tables[0]).toMatchObject({ inserted: 1198 });
    expect(countersMoved(before, same)).toBeUndefined();
  });
});
