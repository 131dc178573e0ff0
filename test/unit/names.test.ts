import { describe, expect, test } from 'vitest';
import { validateQueueName } from '../../src/backends/names.js';
import type { SmqError } from '../../src/errors.js';

describe('validateQueueName', () => {
  // What pgmq accepts: any text without $ ; -- ' of at most 47 characters.
  test.each([
    'orders',
    'Orders_v2',
    'ünïcode_名前',
    'a'.repeat(47),
    'नमस्ते',
    'คิว',
    'e\u0301',
    'a b',
    'a"b',
    'tab\t',
    'box_📦',
    '名'.repeat(16),
  ])('pgmq accepts %j', (name) => {
    expect(validateQueueName('pgmq', name)).toBe(name);
  });
  test.each(['', 'a'.repeat(48), 'é'.repeat(48), 'x; drop table y', "it's", 'a$b', 'a--b', 'nul\u0000'])('pgmq rejects %j', (name) => {
    expect(() => validateQueueName('pgmq', name)).toThrow(/invalid queue name/);
  });
  test('pgmq: smq creates names of at most 47 bytes, its own and lower-cased', () => {
    expect(validateQueueName('pgmq', `${'é'.repeat(23)}a`, 'create')).toBe(`${'é'.repeat(23)}a`);
    expect(() => validateQueueName('pgmq', 'é'.repeat(24), 'create')).toThrow(/48 bytes/);
    expect(() => validateQueueName('pgmq', '名'.repeat(16), 'create')).toThrow(/48 bytes/);
    // U+0130 is 2 bytes; lower-cased it becomes i + U+0307, 3 bytes.
    expect(() => validateQueueName('pgmq', `${'a'.repeat(45)}\u0130`, 'create')).toThrow(/48 bytes/);
    // Used when another client made them, never made by smq.
    expect(validateQueueName('pgmq', 'esc\u001b[2J')).toBe('esc\u001b[2J');
    expect(() => validateQueueName('pgmq', 'esc\u001b[2J', 'create')).toThrow(/control characters/);
  });
  test.each(['orders', 'with space', 'dash-ok', "quote'ok"])('SmoothMQ accepts %j (names are bound, never spliced)', (name) => {
    expect(validateQueueName('sqlite', name)).toBe(name);
  });
  test.each(['', 'x'.repeat(256), 'nul\u0000'])('SmoothMQ rejects %j', (name) => {
    expect(() => validateQueueName('sqlite', name)).toThrow(/invalid queue name/);
  });
  // SmoothMQ's own server takes any name: top listed such a queue (escaped) and then could
  // neither open nor drop it ("invalid queue name … control characters").
  test('SmoothMQ: a queue another client named with control characters is used, never made by smq', () => {
    expect(validateQueueName('sqlite', 'esc\u001b[2J')).toBe('esc\u001b[2J');
    expect(validateQueueName('sqlite', 'nl\nx')).toBe('nl\nx');
    expect(() => validateQueueName('sqlite', 'esc\u001b[2J', 'create')).toThrow(/control characters/);
  });
});

describe('a long name is shown by its beginning', () => {
  test.each(['pgmq', 'sqlite'] as const)('%s: 5,000 characters make a line of less than 200', (kind) => {
    const name = `${'é'.repeat(2500)}${'a'.repeat(2500)}`;
    let line = '';
    try {
      validateQueueName(kind, name);
    } catch (e) {
      line = (e as SmqError).line();
    }
    expect(line).toMatch(/^invalid queue name "é{40}"…: it is 5000 characters long: /);
    expect(line.length).toBeLessThan(200);
  });

  test('the length is said once: after the beginning when the reason does not say it', () => {
    expect(() => validateQueueName('pgmq', `${'c'.repeat(70)};`, 'use')).toThrow(
      `invalid queue name "${'c'.repeat(40)}"… (71 characters): it contains ";"`,
    );
  });

  test('sqlite: characters are counted as a reader counts them (an emoji is one), in the limit and in the line', () => {
    expect(validateQueueName('sqlite', '😀'.repeat(255))).toBe('😀'.repeat(255));
    expect(() => validateQueueName('sqlite', '😀'.repeat(256))).toThrow(
      `invalid queue name "${'😀'.repeat(40)}"…: it is 256 characters long`,
    );
  });

  test('a name of 64 characters is shown whole', () => {
    expect(() => validateQueueName('pgmq', 'b'.repeat(64))).toThrow(`invalid queue name "${'b'.repeat(64)}": it is 64 characters long`);
  });
});
