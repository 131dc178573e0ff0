// How long receivers keep watching after the drain (--settle, issue 13 item 16). A delete
// that did not stick shows only when the row's lease ends, up to one --vt after the delete:
// watching that long after the last acknowledgement catches it as a delivery.

/** Without --settle, runs with a --vt up to this watch one --vt; longer leases are not waited for. */
export const DEFAULT_SETTLE_MAX_VT_SEC = 10;

export interface SettlePlan {
  /** Keep the receivers going until then (µs, monotonic); at or before now: no settle. */
  readonly untilUs: number;
  /** A note for the report when resurrections later than the settle are not judged. */
  readonly note: string | undefined;
}

/**
 * settleMs: --settle, undefined for the default. nowUs: the drain just ended. lastAckUs: the
 * last successful acknowledgement (0: none).
 */
export function planSettle(settleMs: number | undefined, vtSec: number, nowUs: number, lastAckUs: number): SettlePlan {
  const oneVtAfterLastAck = (lastAckUs > 0 ? lastAckUs : nowUs) + vtSec * 1e6;
  const untilUs = settleMs !== undefined ? nowUs + settleMs * 1000 : vtSec <= DEFAULT_SETTLE_MAX_VT_SEC ? oneVtAfterLastAck : nowUs;
  const note =
    untilUs >= oneVtAfterLastAck
      ? undefined
      : `late resurrections are not judged: a delete that did not stick shows only when its lease ends, up to --vt ${vtSec} s ` +
        `after it, and the receivers stopped watching ${settleMs !== undefined ? `--settle ${settleMs / 1000} s` : 'at once'} after the drain ` +
        `(the queue was read back then; --settle ${vtSec}s keeps watching one --vt)`;
  return { untilUs, note };
}
