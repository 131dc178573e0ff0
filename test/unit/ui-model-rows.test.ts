// Finding a queue's row by the name a topic binding gives, without Ink.
import { describe, expect, test } from 'vitest';
import type { QueueStats } from '../../src/backends/types.js';
import { encodeDriverName } from '../../src/ui/model/names.js';
import { applyQueueStats, EMPTY_ROWS, rowNamed } from '../../src/ui/model/rows.js';

const stats = (name: string): QueueStats => ({
  name,
  ready: 0,
  inFlight: 0,
  delayed: 0,
  total: 0,
  oldestAgeSec: null,
  newestAgeSec: null,
  estimated: false,
});
const rows = (...names: string[]) =>
  applyQueueStats(
    EMPTY_ROWS,
    names.map((n) => stats(n)),
    0,
  ).rows;

describe('rowNamed', () => {
  test('the exact name wins over one that differs only in case', () => {
    const list = rows('orders', 'Orders', 'payments');
    expect(rowNamed(list, 'Orders')?.rawName).toBe('Orders');
    expect(rowNamed(list, 'orders')?.rawName).toBe('orders');
  });

  test('without an exact match, the first name that differs only in case', () => {
    const list = rows('payments', 'Order_Events', 'ORDER_EVENTS');
    expect(rowNamed(list, 'order_events')?.rawName).toBe('Order_Events');
  });

  test('a name the list does not have finds nothing', () => {
    expect(rowNamed(rows('orders'), 'order')).toBeUndefined();
    expect(rowNamed(rows('orders'), '')).toBeUndefined();
    expect(rowNamed([], 'orders')).toBeUndefined();
  });

  test('the raw name counts, not the name shown', () => {
    const raw = encodeDriverName(7, 'orders');
    const list = rows(raw);
    expect(list[0]!.name).toBe('orders');
    expect(rowNamed(list, raw)?.key).toBe(list[0]!.key);
    expect(rowNamed(list, 'orders')).toBeUndefined();
  });
});
