import { describe, expect, test } from 'vitest';
import { validateQueueName } from '../../src/backends/names.js';

describe('validateQueueName', () => {
  test.each(['orders', 'Orders_v2', 'ünïcode_名前', 'a'.repeat(47)])('pgmq accepts %j', (name) => {
    expect(validateQueueName('pgmq', name)).toBe(name);
  });
  test.each(['', 'a'.repeat(48), 'x; drop table y', "it's", 'a$b', 'a--b', 'a b', 'a"b', 'tab\t', '名'.repeat(16)])(
    'pgmq rejects %j',
    (name) => {
      expect(() => validateQueueName('pgmq', name)).toThrow(/invalid queue name/);
    },
  );
  test.each(['orders', 'with space', 'dash-ok', "quote'ok"])('SmoothMQ accepts %j (names are bound, never spliced)', (name) => {
    expect(validateQueueName('sqlite', name)).toBe(name);
  });
  test.each(['', 'esc\u001b[2J', 'x'.repeat(256)])('SmoothMQ rejects %j', (name) => {
    expect(() => validateQueueName('sqlite', name)).toThrow(/invalid queue name/);
  });
});
