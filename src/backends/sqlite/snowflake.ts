// Snowflake ids in the layout SmoothMQ uses for queues and messages:
//   (milliseconds since SNOWFLAKE_EPOCH_MS) << 22 | node << 12 | step
// 41 bits of time, 10 bits of node, 12 bits of step. Current values exceed 2^53, so they
// are bigint end to end.
import { randomInt } from 'node:crypto';

/** 2010-11-04T01:42:54.657Z, the epoch SmoothMQ's snowflake library uses. */
export const SNOWFLAKE_EPOCH_MS = 1288834974657;
export const NODE_BITS = 10;
export const STEP_BITS = 12;
export const MAX_NODE = (1 << NODE_BITS) - 1; // 1023
export const MAX_STEP = (1 << STEP_BITS) - 1; // 4095
const TIME_SHIFT = BigInt(NODE_BITS + STEP_BITS); // 22
const NODE_SHIFT = BigInt(STEP_BITS); // 12

export interface SnowflakeParts {
  /** Unix milliseconds. */
  readonly timeMs: number;
  readonly node: number;
  readonly step: number;
}

export function composeSnowflake(parts: SnowflakeParts): bigint {
  return (BigInt(parts.timeMs - SNOWFLAKE_EPOCH_MS) << TIME_SHIFT) | (BigInt(parts.node) << NODE_SHIFT) | BigInt(parts.step);
}

export function decomposeSnowflake(id: bigint): SnowflakeParts {
  return {
    timeMs: Number(id >> TIME_SHIFT) + SNOWFLAKE_EPOCH_MS,
    node: Number((id >> NODE_SHIFT) & BigInt(MAX_NODE)),
    step: Number(id & BigInt(MAX_STEP)),
  };
}

/** When the id was generated (SmoothMQ stores no enqueue time; the id carries it). */
export function snowflakeTime(id: bigint): Date {
  return new Date(decomposeSnowflake(id).timeMs);
}

export function randomNode(): number {
  return randomInt(0, MAX_NODE + 1);
}

/**
 * Unique, strictly increasing ids for one generator. Each backend instance owns one with a
 * random node id, so two instances (threads, processes) collide only when they draw the
 * same node and the same millisecond and step; the PRIMARY KEY catches that and the caller
 * retries with reseed().
 */
export class SnowflakeGenerator {
  private nodeId: number;
  private lastMs = -1; // ms since the epoch of the last id
  private step = 0;
  private readonly now: () => number;

  constructor(options: { node?: number; now?: () => number } = {}) {
    const node = options.node ?? randomNode();
    if (!Number.isInteger(node) || node < 0 || node > MAX_NODE) {
      throw new RangeError(`snowflake node must be an integer 0..${MAX_NODE}, got ${node}`);
    }
    this.nodeId = node;
    this.now = options.now ?? Date.now;
  }

  get node(): number {
    return this.nodeId;
  }

  next(): bigint {
    // Never go backwards: if the clock steps back, keep counting on the last millisecond.
    let ms = Math.max(this.now() - SNOWFLAKE_EPOCH_MS, this.lastMs);
    if (ms === this.lastMs) {
      this.step += 1;
      if (this.step > MAX_STEP) {
        // 4096 ids in one millisecond: borrow the next millisecond instead of spinning.
        ms += 1;
        this.step = 0;
      }
    } else {
      this.step = 0;
    }
    this.lastMs = ms;
    return (BigInt(ms) << TIME_SHIFT) | (BigInt(this.nodeId) << NODE_SHIFT) | BigInt(this.step);
  }

  /** After a primary-key collision: another generator probably drew the same node id. */
  reseed(): void {
    let node = randomNode();
    if (node === this.nodeId) node = (node + 1) % (MAX_NODE + 1);
    this.nodeId = node;
    // A lower node id in the same millisecond would sort before the last id: move on one ms.
    if (this.lastMs >= 0) {
      this.lastMs += 1;
      this.step = -1;
    }
  }
}
