// "Writes impossible": from the first failed send of any sender to the first successful one
// after it, kept in one cell that every sender thread shares (write-outage.ts), and each
// window put under the fault that caused it.
import { describe, expect, test } from 'vitest';
import { newWriteOutageCell, WriteOutageCell, windowsByFault } from '../../src/tester/write-outage.js';

describe('WriteOutageCell', () => {
  test('the first failure opens a window, the first success after it closes it', () => {
    const shared = newWriteOutageCell();
    const a = new WriteOutageCell(shared);
    const b = new WriteOutageCell(shared); // another thread's view of the same cell
    expect(a.succeeded(1_000)).toBeUndefined();
    a.failed(2_000);
    b.failed(2_500); // a later failure does not move the start
    expect(a.openSinceUs()).toBe(2_000);
    expect(b.succeeded(1_900)).toBeUndefined(); // ended before the failure: says nothing
    expect(b.succeeded(4_000)).toEqual({ fromUs: 2_000, toUs: 4_000 });
    expect(a.succeeded(4_100)).toBeUndefined(); // closed once
    expect(a.openSinceUs()).toBeUndefined();
  });
});

describe('windowsByFault', () => {
  test('a window belongs to the last fault fired before it ended', () => {
    const faults = [{ atMs: 10_000 }, { atMs: 30_000 }];
    const windows = [
      { fromMs: 2_000, toMs: 2_100 }, // before any fault
      { fromMs: 5_000, toMs: 12_000 }, // writes hung from before the fault, failed with it
      { fromMs: 10_500, toMs: 10_600 },
      { fromMs: 31_000, toMs: null }, // never closed
    ];
    expect(windowsByFault(faults, windows, 40_000)).toEqual([
      { windows: 2, writesImpossibleMs: 7_100 },
      { windows: 1, writesImpossibleMs: 9_000 },
    ]);
  });
});
