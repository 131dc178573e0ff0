import { describe, expect, test } from 'vitest';
import { horizonWords, type HorizonRow } from '../../src/backends/pgmq/health-words.js';

const none: HorizonRow = {
  pid: null,
  state: null,
  app: null,
  client: null,
  xids: null,
  secs: null,
  slot: null,
  slot_active: null,
  slot_xids: null,
};

describe("top's health line: what holds back vacuum", () => {
  test('nothing held: no words at all', () => {
    expect(horizonWords(none)).toEqual({ parts: [], warnings: [] });
  });

  test('a query running 20 s: named in the line, not highlighted; past 60 s highlighted', () => {
    const row = { ...none, pid: 42, state: 'active', app: 'report', client: '10.0.0.5', xids: 3, secs: 20 };
    expect(horizonWords(row)).toEqual({ parts: ['vacuum held by pid 42 (report, 10.0.0.5), active for 20s (3 xids)'], warnings: [] });
    expect(horizonWords({ ...row, secs: 725 }).warnings).toEqual(['vacuum held by pid 42 (report, 10.0.0.5), active for 12m05s (3 xids)']);
  });

  test('idle in transaction is highlighted at once; a Unix socket and no application name said so', () => {
    const w = horizonWords({ ...none, pid: 7, state: 'idle in transaction (aborted)', xids: 1, secs: 6 });
    expect(w.parts).toEqual([]);
    expect(w.warnings).toEqual(['vacuum held by pid 7 (no application name, local socket), idle in transaction (aborted) for 6s (1 xid)']);
  });

  test('a slot nothing uses is highlighted; an active one only far behind', () => {
    expect(horizonWords({ ...none, slot: 'standby_b', slot_active: false, slot_xids: 12 }).warnings).toEqual([
      'vacuum held by replication slot standby_b, which nothing uses (12 xids)',
    ]);
    expect(horizonWords({ ...none, slot: 'standby_a', slot_active: true, slot_xids: 12 })).toEqual({ parts: [], warnings: [] });
    // Counts are grouped as everywhere in top: 2,000,000, not 2000000.
    expect(horizonWords({ ...none, slot: 'standby_a', slot_active: true, slot_xids: 2_000_000 }).warnings).toEqual([
      'vacuum held by replication slot standby_a (2,000,000 xids)',
    ]);
  });
});
