// The refresh interval and what happens to it at `+` / `-`, plus retry pacing while the
// database is away.

/** Faster than twice a second the refresh itself starts to be the load on a busy database. */
export const MIN_INTERVAL_MS = 500;
export const MAX_INTERVAL_MS = 60_000;
export const DEFAULT_INTERVAL_MS = 2_000;

const STEPS_MS = [500, 1000, 1500, 2000, 3000, 5000, 10_000, 15_000, 30_000, 60_000] as const;

export function clampInterval(ms: number): number {
  if (!Number.isFinite(ms)) return DEFAULT_INTERVAL_MS;
  return Math.min(MAX_INTERVAL_MS, Math.max(MIN_INTERVAL_MS, Math.round(ms)));
}

/** `+` lengthens the interval to the next step, `-` shortens it; 0.5 s is the floor. */
export function stepInterval(ms: number, direction: 1 | -1): number {
  const cur = clampInterval(ms);
  if (direction > 0) return STEPS_MS.find((s) => s > cur) ?? MAX_INTERVAL_MS;
  return [...STEPS_MS].reverse().find((s) => s < cur) ?? MIN_INTERVAL_MS;
}

/**
 * How long to wait before the next attempt after `failures` refreshes in a row failed:
 * 1 s, then doubling, never longer than the interval nor 10 s, so the return of the
 * database is noticed within seconds without hammering it while it restarts.
 */
export function retryDelay(intervalMs: number, failures: number): number {
  if (failures <= 0) return intervalMs;
  const backoff = Math.min(10_000, 1000 * 2 ** (failures - 1));
  return Math.max(MIN_INTERVAL_MS, Math.min(Math.max(intervalMs, 1000), backoff));
}

/** Health queries look at catalogs and the WAL: once every 10 s is plenty. */
export const HEALTH_EVERY_MS = 10_000;

export function healthDue(lastHealthAt: number | undefined, now: number): boolean {
  return lastHealthAt === undefined || now - lastHealthAt >= HEALTH_EVERY_MS;
}
