// --max-p99: the latency gate of a run, judged on end-to-end latency (send latency when nothing
// was received). A gate with no sample to judge is never passed: a warm-up that covers the
// whole run, or a run in which no message completed, measured nothing, and says so.
import type { LatencySummary } from './histograms.js';

export interface MaxP99Outcome {
  readonly limitMs: number;
  /** The p99 judged; null: not measured (no samples). */
  readonly valueMs: number | null;
  /** How many latency samples the judged histogram holds. */
  readonly samples: number;
  /** The measured p99 is over the limit. */
  readonly exceeded: boolean;
  /** The gate is not met: exceeded, or not measured (exit 5). */
  readonly missed: boolean;
  /** Why nothing was measured, in words; null when measured. */
  readonly notMeasured: string | null;
}

export interface MaxP99Facts {
  readonly endToEnd: LatencySummary;
  readonly send: LatencySummary;
  readonly warmupMs: number;
  readonly durationMs: number;
  /** Acknowledged sends of the run. */
  readonly sent: number;
}

const seconds = (ms: number) => `${Number.isInteger(ms / 1000) ? ms / 1000 : (ms / 1000).toFixed(1)} s`;

/** Why a run has no latency sample: the warm-up covered it, or nothing completed. */
function whyNotMeasured(f: MaxP99Facts): string {
  if (f.sent === 0) return 'no send was acknowledged';
  if (f.warmupMs > 0) {
    return `every message was sent within the ${seconds(f.warmupMs)} warm-up (the run lasted ${seconds(f.durationMs)})`;
  }
  return 'no message completed';
}

export function judgeMaxP99(limitMs: number, f: MaxP99Facts): MaxP99Outcome {
  const judged = f.endToEnd.count > 0 ? f.endToEnd : f.send;
  if (judged.count === 0) {
    return { limitMs, valueMs: null, samples: 0, exceeded: false, missed: true, notMeasured: whyNotMeasured(f) };
  }
  const exceeded = judged.p99 > limitMs;
  return { limitMs, valueMs: judged.p99, samples: judged.count, exceeded, missed: exceeded, notMeasured: null };
}
