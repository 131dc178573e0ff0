// Colour cues and the sparkline's floor, without Ink.
import { describe, expect, test } from 'vitest';
import type { Message, QueueStats } from '../../src/backends/types.js';
import { sparkline, SPARK_FLOOR } from '../../src/ui/model/history.js';
import { isStalled, messageTone, queueCellTone, STALLED_AFTER_SEC } from '../../src/ui/model/tones.js';
import type { QueueRow } from '../../src/ui/model/rows.js';

const row = (stats: Partial<QueueStats>, outPerSec: number | null = 0): QueueRow => ({
  key: 'q',
  rawName: 'q',
  name: 'q',
  tenant: undefined,
  backendTenant: undefined,
  stats: { name: 'q', ready: 0, inFlight: 0, delayed: 0, total: 0, oldestAgeSec: null, newestAgeSec: null, estimated: false, ...stats },
  rate: { inPerSec: 0, outPerSec, approximate: false },
  depth: [],
});

describe('tones', () => {
  test('a head is stalled when ready messages have waited a minute and nothing leaves', () => {
    expect(isStalled(row({ ready: 3, oldestAgeSec: STALLED_AFTER_SEC }))).toBe(true);
    expect(isStalled(row({ ready: 3, oldestAgeSec: STALLED_AFTER_SEC - 1 }))).toBe(false);
    expect(isStalled(row({ ready: 3, oldestAgeSec: 600 }, 2.5))).toBe(false); // consumed
    expect(isStalled(row({ ready: 3, oldestAgeSec: 600 }, null))).toBe(false); // not known yet
    expect(isStalled(row({ ready: 0, inFlight: 3, oldestAgeSec: 600 }))).toBe(false);
  });

  test('cells of the list and rows of the queue view are toned by state', () => {
    const r = row({ ready: 1, inFlight: 2, delayed: 0, failed: 1, oldestAgeSec: 900 });
    expect(queueCellTone(r, 'inFlight')).toBe('inflight');
    expect(queueCellTone(r, 'delayed')).toBeUndefined();
    expect(queueCellTone(r, 'failed')).toBe('failed');
    expect(queueCellTone(r, 'oldest')).toBe('stalled');
    expect(queueCellTone(r, 'ready')).toBeUndefined();
    const m = { state: 'ready' } as Message;
    expect(messageTone(m)).toBeUndefined();
    expect(messageTone({ ...m, state: 'delayed' })).toBe('delayed');
  });
});

describe('sparkline floor', () => {
  const now = 60_000;
  const samples = (depths: number[]) => depths.map((depth, i) => ({ at: now - 60_000 + (i + 1) * 4000, depth }));

  test(`a queue between 0 and 1 message stays low (scale at least ${SPARK_FLOOR})`, () => {
    expect(sparkline(samples([0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 1, 0, 1, 0]), 15, now).trim()).toMatch(/^[▁▂]+$/);
  });

  test('a real backlog still fills the column', () => {
    expect(sparkline(samples([0, 100, 1000]), 15, now).trim()).toBe('▁▂█');
  });
});
