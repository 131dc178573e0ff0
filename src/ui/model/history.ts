// Depth of each queue over the last minute, for the sparkline column.

export interface DepthSample {
  /** Client clock, ms. */
  readonly at: number;
  readonly depth: number;
}

export type DepthHistory = ReadonlyMap<string, readonly DepthSample[]>;

/** One minute: long enough to see a backlog build up, short enough to fit in a column. */
export const HISTORY_WINDOW_MS = 60_000;

/**
 * Adds one sample per queue, forgets samples older than the window, and forgets queues
 * that are gone (so a queue dropped and recreated starts a fresh line).
 */
export function recordDepths(
  history: DepthHistory,
  depths: ReadonlyMap<string, number>,
  at: number,
  windowMs: number = HISTORY_WINDOW_MS,
): DepthHistory {
  const next = new Map<string, readonly DepthSample[]>();
  for (const [key, depth] of depths) {
    const kept = (history.get(key) ?? []).filter((s) => s.at > at - windowMs && s.at < at);
    next.set(key, [...kept, { at, depth }]);
  }
  return next;
}

const LEVELS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;

/**
 * The sparkline's scale is at least this many messages: a queue moving between 0 and 1
 * message stays at the bottom instead of swinging from empty to full.
 */
export const SPARK_FLOOR = 10;

/**
 * `width` characters, the newest on the right; each covers windowMs/width and shows the
 * largest depth seen in it, scaled to the largest of the window (SPARK_FLOOR at least).
 * No sample: a space.
 */
export function sparkline(samples: readonly DepthSample[], width: number, now: number, windowMs: number = HISTORY_WINDOW_MS): string {
  if (width <= 0) return '';
  const buckets: (number | undefined)[] = new Array<number | undefined>(width).fill(undefined);
  const span = windowMs / width;
  const start = now - windowMs;
  for (const s of samples) {
    if (s.at <= start || s.at > now) continue;
    const i = Math.min(width - 1, Math.floor((s.at - start) / span));
    const b = buckets[i];
    buckets[i] = b === undefined ? s.depth : Math.max(b, s.depth);
  }
  let max = SPARK_FLOOR;
  for (const b of buckets) if (b !== undefined && b > max) max = b;
  return buckets
    .map((b) => {
      if (b === undefined) return ' ';
      if (max === 0) return LEVELS[0];
      const level = Math.round((b / max) * (LEVELS.length - 1));
      return LEVELS[Math.max(0, Math.min(LEVELS.length - 1, level))];
    })
    .join('');
}
