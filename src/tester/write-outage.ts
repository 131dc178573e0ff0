// How long writes were impossible: from the first failed send of any sender to the first
// successful send of any sender after it. Senders run in several threads, so the start of
// the current window lives in one shared cell (µs on the process's monotonic clock, 0: no
// window open): the first failure sets it, the first success after it clears it and reports
// the window. A failure that ends a window's success race loses nothing: it opens the next.

export const newWriteOutageCell = (): SharedArrayBuffer => new SharedArrayBuffer(8);

export interface OutageWindowUs {
  readonly fromUs: number;
  readonly toUs: number;
}

export class WriteOutageCell {
  private readonly cell: BigInt64Array;

  constructor(shared: SharedArrayBuffer) {
    this.cell = new BigInt64Array(shared);
  }

  /** A send call that started at startUs failed. */
  failed(startUs: number): void {
    Atomics.compareExchange(this.cell, 0, 0n, BigInt(Math.max(1, Math.round(startUs))));
  }

  /** A send succeeded at endUs: the window it ends, if one was open before it. */
  succeeded(endUs: number): OutageWindowUs | undefined {
    const from = Atomics.load(this.cell, 0);
    if (from === 0n || BigInt(Math.round(endUs)) <= from) return undefined;
    if (Atomics.compareExchange(this.cell, 0, from, 0n) !== from) return undefined;
    return { fromUs: Number(from), toUs: endUs };
  }

  /** The start of a window no success has closed yet. */
  openSinceUs(): number | undefined {
    const from = Atomics.load(this.cell, 0);
    return from === 0n ? undefined : Number(from);
  }
}

/** A window in ms since the run's start; toMs null: no send succeeded after it began. */
export interface OutageWindow {
  readonly fromMs: number;
  readonly toMs: number | null;
}

/**
 * For each fault (in firing order), the windows it caused and how long they lasted in all: a
 * window belongs to the last fault fired before it ended (writes may hang from before the
 * fault, or fail only well after it: a cloud's failover call returns at once); an open window
 * lasts until endMs. Windows that ended before the first fault belong to none.
 */
export function windowsByFault(
  faults: readonly { readonly atMs: number }[],
  windows: readonly OutageWindow[],
  endMs: number,
): { windows: number; writesImpossibleMs: number }[] {
  const out = faults.map(() => ({ windows: 0, writesImpossibleMs: 0 }));
  for (const w of windows) {
    const to = w.toMs ?? endMs;
    let owner = -1;
    faults.forEach((f, i) => {
      if (f.atMs <= to && (owner < 0 || f.atMs >= faults[owner]!.atMs)) owner = i;
    });
    if (owner < 0) continue;
    out[owner]!.windows += 1;
    out[owner]!.writesImpossibleMs += Math.max(0, to - w.fromMs);
  }
  return out;
}
