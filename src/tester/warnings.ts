// The warning policy of the report: when the tester itself may have set the pace, when a
// --max-backlog wait gave up, what happened to others' messages, what was never drained.
// Pure: facts in, lines out (report.ts puts them after the read-back's own warnings).
import type { BackendKind } from '../backends/types.js';
import type { WorkerRole } from './protocol.js';

/** A worker's event loop delayed this much (p99) means the tester, not the queue, set the pace. */
export const LAG_WARN_MS = 50;
/** Share of all cores the tester process may use before it is probably the bottleneck. */
export const CPU_WARN_SHARE = 0.9;

export interface WarningFacts {
  readonly targetKind: BackendKind;
  /** Every worker that sent its result. */
  readonly workers: readonly { readonly role: WorkerRole; readonly indices: readonly number[]; readonly eventLoopP99Ms: number }[];
  /** CPU the tester process used, as a share of all cores (cpuShare). */
  readonly cpuShare: number;
  readonly cores: number;
  /** --max-backlog: waits that went on with nothing received for backlogStuckMs. */
  readonly backlogStuck: number;
  readonly backlogStuckMs: number;
  /** Distinct messages without this run's id received, how often, and how many could not be handed back. */
  readonly foreignSeen: number;
  readonly foreignDeliveries: number;
  readonly foreignNotReturned: number;
  /** Rows without this run's id found by the read-back after the run. */
  readonly foreignInQueue: number;
  /** Acknowledged sends never received (not judged as lost). */
  readonly notDrained: number;
  readonly receivers: number;
}

/** CPU used over the run, as a share of all cores. */
export function cpuShare(cpu: NodeJS.CpuUsage, durationMs: number, cores: number): number {
  return (cpu.user + cpu.system) / 1000 / Math.max(1, durationMs) / cores;
}

export const round2 = (n: number) => Math.round(n * 100) / 100;

export function testerWarnings(f: WarningFacts): string[] {
  const warnings: string[] = [];
  // On SQLite every call (lock waits included) runs synchronously on the worker's own
  // thread, so its event-loop delay measures SQLite, not the tester: only CPU counts there.
  const lagging = f.targetKind === 'sqlite' ? [] : f.workers.filter((w) => w.eventLoopP99Ms > LAG_WARN_MS);
  if (lagging.length > 0) {
    const worst = lagging.reduce((a, b) => (b.eventLoopP99Ms > a.eventLoopP99Ms ? b : a));
    warnings.push(
      `the tester may be the bottleneck: ${lagging.length} worker(s) had event-loop delays over ${LAG_WARN_MS} ms at p99 ` +
        `(worst: ${worst.role} ${worst.indices.join(',')}, ${round2(worst.eventLoopP99Ms)} ms)`,
    );
  }
  if (f.cpuShare >= CPU_WARN_SHARE) {
    warnings.push(
      `the tester may be the bottleneck: it used ${Math.round(f.cpuShare * 100)}% of ${f.cores} cores` +
        (f.targetKind === 'sqlite' ? ' (including SQLite, which runs in-process)' : ''),
    );
  }
  if (f.backlogStuck > 0) {
    warnings.push(
      `${f.backlogStuck} time(s) a sender waiting under --max-backlog went on anyway: nothing was received for ` +
        `${f.backlogStuckMs / 1000} s (messages lost, or receivers that cannot receive)`,
    );
  }
  if (f.foreignSeen > 0) {
    warnings.push(
      `${f.foreignSeen} message(s) without this run's id were received ${f.foreignDeliveries} time(s) and handed back ` +
        `(never deleted; each receive raised a read count)` +
        (f.foreignNotReturned > 0 ? `; ${f.foreignNotReturned} could not be handed back and are visible again when their lease ends` : ''),
    );
  } else if (f.foreignInQueue > 0) {
    warnings.push(`${f.foreignInQueue} message(s) without this run's id are in the queue: left untouched (never received)`);
  }
  if (f.notDrained > 0 && f.receivers > 0) {
    warnings.push(`${f.notDrained} acknowledged send(s) were not received before the run ended (not judged as lost)`);
  }
  return warnings;
}
