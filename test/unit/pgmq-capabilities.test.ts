// pgmqCapabilities: the probe's answers to the capability table (pure).
import { expect, test } from 'vitest';
import { pgmqCapabilities, type FeatureProbe } from '../../src/backends/pgmq/capabilities.js';

const none: FeatureProbe = {
  cols: ['msg_id', 'read_ct', 'enqueued_at', 'vt', 'message'],
  conditional: false,
  groups: false,
  grouped_head: false,
  topics: false,
  notify_insert: false,
  notify_capitals: false,
  set_vt_at: false,
  pop_qty: false,
};

test('pgmq 1.4 (no headers column, none of the newer functions)', () => {
  expect(pgmqCapabilities(none)).toMatchObject({
    archive: true,
    headers: false,
    receiveByRunId: false,
    lastReadAt: false,
    groups: false,
    groupedHead: false,
    topics: false,
    notifyInsert: false,
    notifyCapitals: false,
    setVtAt: false,
    popQty: false,
  });
});

test('everything present', () => {
  const all: FeatureProbe = {
    cols: [...none.cols!, 'headers', 'last_read_at'],
    conditional: true,
    groups: true,
    grouped_head: true,
    topics: true,
    notify_insert: true,
    notify_capitals: true,
    set_vt_at: true,
    pop_qty: true,
  };
  const caps = pgmqCapabilities(all);
  expect(
    Object.entries(caps).filter(([k, v]) => v === false && !['attributes', 'tenants', 'maxRetries', 'failedState'].includes(k)),
  ).toEqual([]);
});

test('grouped reads need the headers column the group lives in', () => {
  expect(pgmqCapabilities({ ...none, groups: true, grouped_head: true })).toMatchObject({ groups: false, groupedHead: false });
});

test('a probe without message_record columns (null) offers no optional column', () => {
  expect(pgmqCapabilities({ ...none, cols: null })).toMatchObject({ headers: false, lastReadAt: false });
});

test("real pgmq's insert notifications never fire for a queue named with capitals; the compat schema's do", () => {
  expect(pgmqCapabilities({ ...none, notify_insert: true })).toMatchObject({ notifyInsert: true, notifyCapitals: false });
  expect(pgmqCapabilities({ ...none, notify_insert: true, notify_capitals: true })).toMatchObject({ notifyCapitals: true });
  expect(pgmqCapabilities({ ...none, notify_capitals: true })).toMatchObject({ notifyCapitals: false });
});
