// The verdict of a run, from its counts and its calls (issue 13 item 19): a run in which
// nothing worked is failed, not clean, and an interrupted run says so in its verdict.
import { hasViolations, type CheckerCounts } from './checker.js';
import type { CallCounts } from './protocol.js';

/**
 * incomplete: no violation among what was judged, but some classes were not judged at all (a
 * drain of an earlier run's messages cannot know what that run sent: lost, unexpected); never
 * "clean", which says every message was accounted for.
 */
export type Verdict = 'clean' | 'incomplete' | 'violations' | 'failed' | 'interrupted';

export interface VerdictInput {
  /** Why the run stopped early (a worker gave up or died, the store unreachable); undefined: it did not. */
  readonly stoppedBecause: string | undefined;
  readonly interrupted: boolean;
  readonly senders: number;
  readonly receivers: number;
  readonly counts: CheckerCounts;
  readonly calls: CallCounts;
  readonly lastError: string | null;
  /** Two primaries served the run (servers.ts): a violation whatever the counts. */
  readonly splitBrain?: boolean;
  /** A drain (--senders 0): the earlier run's id and the queue drained. */
  readonly drain?: { readonly runId: string; readonly queue: string } | undefined;
  /** Classes the run could not judge (report.ts notJudged): a run without violations is then incomplete, not clean. */
  readonly notJudged?: number;
}

export interface VerdictOutcome {
  readonly verdict: Verdict;
  /** Why the run failed, in one line; null unless failed. */
  readonly failure: string | null;
  /** The counts are partial: the run stopped early or was interrupted. */
  readonly partial: boolean;
}

/** Why a run that ran to its end still proves nothing: no send acknowledged, or every call of a kind failed. */
export function nothingWorked(
  x: Pick<VerdictInput, 'senders' | 'receivers' | 'counts' | 'calls' | 'lastError' | 'drain'>,
): string | undefined {
  const { calls, counts } = x;
  const reasons: string[] = [];
  // A drain that met no message of its run at all, received or left in the queue (a wrong
  // --run-id, a queue already drained): it did nothing that was asked of it.
  const found = counts.received + counts.receivedUnique + counts.notDrained + counts.duplicated + counts.resurrected;
  if (x.senders === 0 && x.drain !== undefined && found === 0) reasons.push(`no message of run ${x.drain.runId} found in ${x.drain.queue}`);
  if (x.senders > 0 && x.counts.sent === 0)
    reasons.push(`no send was acknowledged (${calls.sendFailed} of ${calls.send} send calls failed)`);
  else if (calls.send > 0 && calls.sendFailed === calls.send) reasons.push(`every send call failed (${calls.send})`);
  if (calls.receive > 0 && calls.receiveFailed === calls.receive) reasons.push(`every receive call failed (${calls.receive})`);
  else if (x.senders > 0 && x.receivers > 0 && x.counts.sent > 0 && x.counts.receivedUnique === 0) {
    reasons.push(`none of the ${x.counts.sent} acknowledged messages was received`);
  }
  if (calls.ack > 0 && calls.ackFailed === calls.ack) reasons.push(`every acknowledgement failed (${calls.ack} calls)`);
  if (reasons.length === 0) return undefined;
  return reasons.join('; ') + (x.lastError ? `; last error: ${x.lastError}` : '');
}

export function decideVerdict(x: VerdictInput): VerdictOutcome {
  // Interrupted: a partial run, whatever it saw; never "clean" (a script testing for clean must
  // not pass it). What went wrong besides (the queue not read back from a hung server) stays listed.
  if (x.interrupted) return { verdict: 'interrupted', failure: x.stoppedBecause ?? null, partial: true };
  if (x.stoppedBecause !== undefined) return { verdict: 'failed', failure: x.stoppedBecause, partial: true };
  const why = nothingWorked(x);
  if (why !== undefined) return { verdict: 'failed', failure: why, partial: false };
  if (hasViolations(x.counts) || x.splitBrain === true) return { verdict: 'violations', failure: null, partial: false };
  return { verdict: (x.notJudged ?? 0) > 0 ? 'incomplete' : 'clean', failure: null, partial: false };
}
