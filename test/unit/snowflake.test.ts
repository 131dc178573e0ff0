import { describe, expect, it } from 'vitest';
import {
  MAX_NODE,
  MAX_STEP,
  SNOWFLAKE_EPOCH_MS,
  SnowflakeGenerator,
  composeSnowflake,
  decomposeSnowflake,
  snowflakeTime,
} from '../../src/backends/sqlite/snowflake.js';

function strictlyIncreasing(ids: readonly bigint[]): boolean {
  for (let i = 1; i < ids.length; i++) if (ids[i]! <= ids[i - 1]!) return false;
  return true;
}

describe('snowflake layout', () => {
  it('packs (ms since 1288834974657) << 22 | node << 12 | step', () => {
    expect(composeSnowflake({ timeMs: SNOWFLAKE_EPOCH_MS + 1, node: 0, step: 0 })).toBe(1n << 22n);
    expect(composeSnowflake({ timeMs: SNOWFLAKE_EPOCH_MS, node: 1, step: 0 })).toBe(1n << 12n);
    expect(composeSnowflake({ timeMs: SNOWFLAKE_EPOCH_MS, node: 0, step: 1 })).toBe(1n);
    const t = Date.UTC(2024, 5, 1, 12, 0, 0, 123);
    const id = composeSnowflake({ timeMs: t, node: 517, step: 42 });
    expect(id).toBe((BigInt(t - SNOWFLAKE_EPOCH_MS) << 22n) | (517n << 12n) | 42n);
    expect(decomposeSnowflake(id)).toEqual({ timeMs: t, node: 517, step: 42 });
    expect(snowflakeTime(id).getTime()).toBe(t);
  });

  it('makes ids above 2^53 today, with the generator node and the current time', () => {
    const before = Date.now();
    const gen = new SnowflakeGenerator({ node: 1023 });
    const id = gen.next();
    expect(id).toBeGreaterThan(2n ** 53n);
    const parts = decomposeSnowflake(id);
    expect(parts.node).toBe(1023);
    expect(parts.timeMs).toBeGreaterThanOrEqual(before);
    expect(parts.timeMs).toBeLessThanOrEqual(Date.now());
  });

  it('picks a random node 0..1023 when none is given, and rejects bad nodes', () => {
    const nodes = new Set(Array.from({ length: 50 }, () => new SnowflakeGenerator().node));
    for (const n of nodes) expect(n >= 0 && n <= MAX_NODE).toBe(true);
    expect(nodes.size).toBeGreaterThan(1);
    expect(() => new SnowflakeGenerator({ node: 1024 })).toThrow(RangeError);
    expect(() => new SnowflakeGenerator({ node: -1 })).toThrow(RangeError);
  });
});

describe('snowflake generator', () => {
  it('counts steps within one millisecond, then borrows the next one instead of repeating', () => {
    const frozen = SNOWFLAKE_EPOCH_MS + 10_000;
    const gen = new SnowflakeGenerator({ node: 3, now: () => frozen });
    const ids = Array.from({ length: MAX_STEP + 3 }, () => gen.next());
    expect(strictlyIncreasing(ids)).toBe(true);
    expect(decomposeSnowflake(ids[0]!)).toEqual({ timeMs: frozen, node: 3, step: 0 });
    expect(decomposeSnowflake(ids[MAX_STEP]!)).toEqual({ timeMs: frozen, node: 3, step: MAX_STEP });
    expect(decomposeSnowflake(ids[MAX_STEP + 1]!)).toEqual({ timeMs: frozen + 1, node: 3, step: 0 });
  });

  it('never goes backwards when the clock does', () => {
    let clock = SNOWFLAKE_EPOCH_MS + 50_000;
    const gen = new SnowflakeGenerator({ node: 7, now: () => clock });
    const ids: bigint[] = [];
    for (let i = 0; i < 100; i++) {
      ids.push(gen.next());
      clock += i % 3 === 0 ? -5 : 1; // jitter back and forth
    }
    expect(strictlyIncreasing(ids)).toBe(true);
  });

  it('stays increasing across reseed, on a new node', () => {
    const frozen = SNOWFLAKE_EPOCH_MS + 99_000;
    const gen = new SnowflakeGenerator({ node: 1000, now: () => frozen });
    const a = gen.next();
    gen.reseed();
    expect(gen.node).not.toBe(1000);
    const b = gen.next();
    expect(b).toBeGreaterThan(a);
    expect(decomposeSnowflake(b).node).toBe(gen.node);
  });

  it('gives 200,000 unique increasing ids in a burst on the real clock', () => {
    const gen = new SnowflakeGenerator();
    const ids = Array.from({ length: 200_000 }, () => gen.next());
    expect(new Set(ids).size).toBe(ids.length);
    expect(strictlyIncreasing(ids)).toBe(true);
  });

  it('gives ids unique across generators with different nodes in the same millisecond', () => {
    const frozen = SNOWFLAKE_EPOCH_MS + 123_456;
    const gens = Array.from({ length: 8 }, (_, node) => new SnowflakeGenerator({ node, now: () => frozen }));
    const all: bigint[] = [];
    for (let i = 0; i < 1000; i++) for (const g of gens) all.push(g.next());
    expect(new Set(all).size).toBe(all.length);
  });
});
