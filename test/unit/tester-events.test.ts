import { describe, expect, test } from 'vitest';
import { EVENT_STRIDE, EventBuffer, EventKind, OrderedEventMerger } from '../../src/tester/events.js';
import { decodeBody, encodeBody } from '../../src/tester/body.js';
import { validateConfig, type TesterConfig } from '../../src/tester/config.js';
import { parseDuration } from '../../src/text/duration.js';
import { SeriesAggregator, SecondCounter } from '../../src/tester/series.js';

const batch = (keys: number[], watermarkUs: number) => {
  const b = new EventBuffer();
  for (const k of keys) b.push(EventKind.delivery, 0, k, 0, 0, k, BigInt(k));
  return { ...b.take(), watermarkUs };
};

describe('OrderedEventMerger', () => {
  test('releases events in key order, only below every source’s watermark', () => {
    const seen: number[] = [];
    const m = new OrderedEventMerger(2, (_k, _s, seq) => seen.push(seq));
    m.push(0, batch([1, 4, 9], 10));
    m.push(1, batch([2, 3], 3));
    expect(m.release()).toBe(2);
    expect(seen).toEqual([1, 2]);
    m.push(1, batch([5], 20));
    m.release();
    expect(seen).toEqual([1, 2, 3, 4, 5, 9]);
    expect(m.pending).toBe(0);
  });

  test('a finished source no longer holds the others back', () => {
    const seen: number[] = [];
    const m = new OrderedEventMerger(2, (_k, _s, seq) => seen.push(seq));
    m.push(0, batch([7, 8], 100));
    m.release();
    expect(seen).toEqual([]);
    m.finish(1);
    m.release();
    expect(seen).toEqual([7, 8]);
  });

  test('the buffer grows and hands out exact-size arrays', () => {
    const b = new EventBuffer();
    for (let i = 0; i < 5000; i++) b.push(EventKind.ackOk, 1, i, 0, 0, i, 0n);
    const { events, ids } = b.take();
    expect(events.length).toBe(5000 * EVENT_STRIDE);
    expect(ids.length).toBe(5000);
    expect(b.length).toBe(0);
  });
});

describe('bodies', () => {
  test('round trip, padded to the size, also through jsonb-style reformatting', () => {
    const text = encodeBody({ runId: 'run1', sender: 3, seq: 42, sendStartUs: 123456.7, intendedUs: 120000 }, 256);
    expect(Buffer.byteLength(text)).toBe(256);
    const reformatted = JSON.stringify(JSON.parse(text), null, 1); // keys kept, spaces added
    expect(decodeBody(reformatted, 'run1')).toEqual({ kind: 'ours', sender: 3, seq: 42, sendStartUs: 123457, intendedUs: 120000 });
  });

  test('small sizes give the bare fields; other runs are foreign; our id with bad fields is malformed', () => {
    const text = encodeBody({ runId: 'run1', sender: 0, seq: 0, sendStartUs: 1 }, 1);
    expect(JSON.parse(text)).toEqual({ r: 'run1', s: 0, q: 0, t: 1 });
    expect(decodeBody(text, 'run2').kind).toBe('foreign');
    expect(decodeBody('not json run1', 'run1').kind).toBe('foreign');
    expect(decodeBody('{"r":"run1","s":-1,"q":0}', 'run1').kind).toBe('malformed');
  });
});

describe('series', () => {
  test('a second counts once every worker has reported past it', () => {
    const agg = new SeriesAggregator(2);
    agg.add(0, [{ second: 0, sent: 5, sendFailed: 0, received: 0, acknowledged: 0, emptyReceives: 0, errors: 0 }], 1);
    expect(agg.complete).toBe(0);
    agg.add(1, [{ second: 0, sent: 0, sendFailed: 0, received: 4, acknowledged: 4, emptyReceives: 1, errors: 0 }], 1);
    expect(agg.points()).toEqual([{ second: 0, sent: 5, sendFailed: 0, received: 4, acknowledged: 4, emptyReceives: 1, errors: 0 }]);
    const counter = new SecondCounter();
    counter.at(0).sent += 1;
    counter.at(2).sent += 1;
    expect(counter.takeBefore(1).map((p) => p.second)).toEqual([0]);
    expect(counter.takeBefore().map((p) => p.second)).toEqual([2]);
  });

  test('seconds in which nothing happened (a frozen server) are complete zeros, not missing: the live rate drops to 0', () => {
    const agg = new SeriesAggregator(1);
    const zero = { sendFailed: 0, received: 0, acknowledged: 0, emptyReceives: 0, errors: 0 };
    agg.add(0, [{ second: 0, sent: 37, ...zero }], 1);
    // Seconds 1..4: the worker reported them, with nothing in them.
    agg.add(0, [], 5);
    expect(agg.complete).toBe(5);
    const points = agg.points();
    expect(points.map((p) => p.sent)).toEqual([37, 0, 0, 0, 0]);
    // Once every worker has ended, the series ends with the last second that had anything.
    agg.finish(0);
    expect(agg.points().length).toBe(1);
  });
});

describe('config', () => {
  const base: TesterConfig = {
    target: { kind: 'sqlite', path: '/tmp/x' },
    senders: 1,
    receivers: 1,
    messagesPerSender: 10,
    sizeBytes: 256,
    batch: 1,
    vtSec: 30,
    ratePerSec: 0,
    warmupMs: 0,
    keep: false,
    ack: 'delete',
    drainTimeoutMs: 1000,
    dequeue: 'safe',
  };
  test.each([
    [{ messagesPerSender: undefined }, /either --messages or --duration/],
    [{ senders: 0, receivers: 0 }, /both 0/],
    [{ senders: 0 }, /drains an existing queue/],
    [{ isolation: 'serializable' as const }, /PostgreSQL/],
    [{ ack: 'archive' as const }, /pgmq/],
    [{ batch: 0 }, /--batch/],
    [{ naivePauseMs: 5 }, /naive/],
    // 1e20 ran, and its report claimed 100,000,000,000,000,000,000 sends due and never made.
    [{ ratePerSec: 1e20 }, /^--rate is at most 10,000,000 messages per second$/],
  ])('rejects %o', (patch, message) => {
    expect(() => validateConfig({ ...base, ...patch })).toThrow(message);
  });
  test('durations', () => {
    expect(parseDuration('d', '30s')).toBe(30_000);
    expect(parseDuration('d', '500ms')).toBe(500);
    expect(parseDuration('d', '1.5m')).toBe(90_000);
    expect(parseDuration('d', '2')).toBe(2000);
    expect(() => parseDuration('d', '3 days')).toThrow(/--d/);
  });
});
