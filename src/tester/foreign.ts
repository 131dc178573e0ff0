// Messages without the run's id that a receiver thread gets (issue 13 item 3; only where the
// store cannot receive by run id, pgmq 1.4): never deleted
// or archived, handed back at once (visible again), counted. One per worker thread; each
// receiver keeps the ids it holds and hands them back behind its next receive, so that
// receive cannot take them again at once.

/** Distinct foreign ids remembered per thread (beyond it, a repeat may be reported again). */
const SEEN_LIMIT = 100_000;

export class ForeignMessages {
  /** Deliveries of foreign messages (the same message may come many times). */
  deliveries = 0;
  /** Handed back: visible again at once. */
  returned = 0;
  /** Still held when the receiver stopped (a hand-back failed): visible when their lease ends. */
  notReturned = 0;
  private readonly seen = new Set<bigint>();
  private fresh: string[] = [];

  /** A foreign message received by a receiver that holds it in `held` until it is handed back. */
  received(id: bigint, held: bigint[]): void {
    this.deliveries += 1;
    held.push(id);
    if (this.seen.has(id)) return;
    if (this.seen.size < SEEN_LIMIT) this.seen.add(id);
    this.fresh.push(String(id));
  }

  /** Ids first seen since the last call (for the main thread, which counts distinct ones). */
  takeNewIds(): string[] {
    const ids = this.fresh;
    this.fresh = [];
    return ids;
  }

  /**
   * Hands back what a receiver holds: makeVisible sets their visibility to now. Ids it did not
   * change were gone already (another consumer took them). On failure they stay held for the
   * next turn, and onError counts the failed call.
   */
  handBack(
    holder: { handBack: bigint[] },
    makeVisible: (ids: bigint[]) => Promise<readonly bigint[]>,
    onError: (e: unknown) => void,
  ): Promise<void> | undefined {
    if (holder.handBack.length === 0) return undefined;
    const ids = holder.handBack;
    holder.handBack = [];
    return makeVisible(ids).then(
      (done) => void (this.returned += done.length),
      (e: unknown) => {
        onError(e);
        holder.handBack.push(...ids);
      },
    );
  }

  /** The receiver stopped: what it still holds comes back only when its lease ends. */
  giveUp(holder: { handBack: bigint[] }): void {
    this.notReturned += holder.handBack.length;
    holder.handBack = [];
  }
}
