// When the drain is over: the state machine of the run's end, as a pure function of what the
// checker has seen and the clock, so that every path is unit-tested without threads.
// The engine calls decideDrain on every tick while draining and acts on its answer.

/** Ctrl-C or SIGTERM: the drain that follows is at most this long (the whole stop stays under 2 s). */
export const INTERRUPT_DRAIN_MS = 500;
/** With uncertain sends, once every acknowledged send is in, wait this long for stragglers. */
export const UNCERTAIN_GRACE_MS = 1000;

export type DrainOutcome = 'complete' | 'timedOut' | 'stopped' | 'skipped';

export interface DrainState {
  /** --senders 0: the drain of an existing queue; nothing is awaited. */
  readonly drainOnly: boolean;
  /** The checker's counts: acknowledged sends, those delivered at least once, uncertain sends. */
  readonly ackedSends: number;
  readonly ackedDelivered: number;
  readonly uncertainSends: number;
  /**
   * µs, monotonic: the drain began; the last progress (0: none): a message of this run
   * delivered for the first time, or an acknowledged send found delivered. A redelivery of a
   * message already seen is not progress: a message that can never be deleted comes back
   * every --vt, and must not keep the drain going for ever.
   */
  readonly drainStartUs: number;
  readonly lastProgressUs: number;
  /** Ctrl-C or a signal, and when (µs, monotonic). */
  readonly interrupted: boolean;
  readonly interruptedAtUs: number;
  /** The drain timeout in effect (drainTimeoutMs). */
  readonly timeoutMs: number;
}

/**
 * The drain is over: how it ended, and what follows: 'settle' keeps the receivers watching for
 * late resurrections (settle.ts) before they stop; 'stop' stops them now.
 */
export interface DrainEnd {
  readonly outcome: Exclude<DrainOutcome, 'skipped'>;
  readonly next: 'settle' | 'stop';
}

/** The drain timeout: --drain-timeout, or after Ctrl-C at most INTERRUPT_DRAIN_MS. */
export function drainTimeoutMs(configuredMs: number, interrupted: boolean): number {
  return interrupted ? Math.min(configuredMs, INTERRUPT_DRAIN_MS) : configuredMs;
}

/**
 * How long the drain has made no progress (ms), counted from the drain's start at the earliest.
 * No overall cap: each progress is a message met for the first time, and there are only so
 * many (the queue's content), so a drain that keeps progressing ends when the queue is empty.
 */
export function drainIdleMs(s: Pick<DrainState, 'drainStartUs' | 'lastProgressUs'>, nowUs: number): number {
  return (nowUs - Math.max(s.lastProgressUs, s.drainStartUs)) / 1000;
}

/** undefined: keep draining. */
export function decideDrain(s: DrainState, nowUs: number): DrainEnd | undefined {
  const idleMs = drainIdleMs(s, nowUs);
  // With no senders nothing is awaited: the drain of an existing queue lasts until it has
  // been idle for the drain timeout, and that is its normal end.
  const allIn = !s.drainOnly && s.ackedDelivered >= s.ackedSends;
  const timeout = s.timeoutMs;
  if (allIn && (s.uncertainSends === 0 || idleMs >= Math.min(UNCERTAIN_GRACE_MS, timeout)) && !s.interrupted) {
    return { outcome: 'complete', next: 'settle' };
  } else if (allIn && s.interrupted) {
    return { outcome: 'complete', next: 'stop' };
  } else if (s.interrupted && (nowUs - s.interruptedAtUs) / 1000 >= timeout) {
    // Ctrl-C: a brief drain, however busy the queue still is.
    return { outcome: 'stopped', next: 'stop' };
  } else if (idleMs >= timeout) {
    if (s.interrupted) return { outcome: 'stopped', next: 'stop' };
    return { outcome: s.drainOnly ? 'complete' : 'timedOut', next: 'settle' };
  }
  return undefined;
}
