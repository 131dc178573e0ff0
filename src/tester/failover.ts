// The engine's part in faults and failovers: runs the --fault plan (fault-runner.ts), keeps
// which server each connection found itself on (servers.ts) and the windows in which no send
// succeeded (write-outage.ts), and turns them into the report's fields.
import { redactSecrets, type Backend, type ServerIdentity } from '../backends/index.js';
import { usageError } from '../errors.js';
import { monoUs } from './clock.js';
import type { FaultSpec } from './fault-spec.js';
import { FaultRunner, type FaultRecord, type LiveFault } from './fault-runner.js';
import { withDeadline } from './lifecycle.js';
import type { FromWorker } from './protocol.js';
import { FailoverAttribution, serverPhases, type ServerPhase, type ServerSeen, type SplitBrain } from './servers.js';
import { newWriteOutageCell, windowsByFault, WriteOutageCell, type OutageWindow } from './write-outage.js';

/** A terminate that gets no answer within this is said to have failed. */
const TERMINATE_CALL_MS = 10_000;
/** The main thread's question which server it is on. */
const IDENTITY_CALL_MS = 3_000;
/** A command still running when the run is over is waited for this long, then ended. */
export const COMMAND_GRACE_MS = 10_000;

export interface FailoverReport {
  readonly faults: readonly FaultRecord[];
  /** Windows in which no send succeeded, from the first failed send to the first successful one after it. */
  readonly writeUnavailable: { readonly windows: readonly OutageWindow[]; readonly totalMs: number; readonly longestMs: number };
  readonly servers: {
    /** The run's connections' application_name (what --fault terminate ends). */
    readonly applicationName: string | null;
    readonly phases: readonly ServerPhase[];
    /** More than one primary served the run. */
    readonly failover: boolean;
    /** The server the queue was read back on after the run. */
    readonly readBackOn: ServerIdentity | null;
    readonly splitBrain: readonly SplitBrain[];
    /** What the failover lost or brought back, in words (servers.ts FailoverAttribution). */
    readonly words: readonly string[];
  };
}

export class FailoverWatch {
  /** Shared with every sender thread. */
  readonly writeOutageCell = newWriteOutageCell();
  private readonly seen: ServerSeen[] = [];
  private readonly outages: { fromUs: number; toUs: number }[] = [];
  private runner: FaultRunner | undefined;
  private runStartUs = 0;
  private sendingEndUs: number | undefined;
  private readBackOn: ServerIdentity | undefined;
  readonly warnings: string[] = [];

  constructor(
    private readonly specs: readonly FaultSpec[],
    readonly applicationName: string | undefined,
    private readonly secrets: readonly string[] = [],
  ) {}

  /** Before the run: the right to end the run's connections, when a terminate fault is planned. */
  async checkPrivilege(backend: Backend): Promise<void> {
    if (!this.specs.some((s) => s.kind === 'terminate')) return;
    const why = await backend.cannotTerminate?.();
    if (why !== undefined) {
      throw usageError(
        `--fault terminate cannot end the run's connections: ${why}`,
        'GRANT pg_signal_backend to the role, connect as the role the connections log in as, or leave out --fault terminate',
      );
    }
  }

  /** The main thread's own look at the server (before the run, and the read-back's after it). */
  async noteMain(backend: Backend, readBack = false): Promise<void> {
    if (!backend.serverIdentity) return;
    try {
      const identity = await withDeadline(backend.serverIdentity(), IDENTITY_CALL_MS, 'asking which server this is');
      this.seen.push({ by: 'main', index: -1, seq: -1, atUs: monoUs(), identity });
      if (readBack) this.readBackOn = identity;
    } catch {
      // Which server it was stays unknown; the run goes on.
    }
  }

  /** What a worker said; true when it was about this. */
  onWorker(m: FromWorker): boolean {
    if (m.type === 'SERVER') this.seen.push({ by: m.role, index: m.index, seq: m.seq, atUs: m.atUs, identity: m.identity });
    else if (m.type === 'WRITE_OUTAGE') this.outages.push({ fromUs: m.fromUs, toUs: m.toUs });
    else return false;
    return true;
  }

  /** The run began: the faults are scheduled from now. */
  start(runStartUs: number, backend: Backend, onFired: (r: FaultRecord) => void): void {
    this.runStartUs = runStartUs;
    if (this.specs.length === 0) return;
    const app = this.applicationName;
    this.runner = new FaultRunner(
      this.specs,
      {
        terminate: () =>
          backend.terminateConnections && app !== undefined
            ? withDeadline(backend.terminateConnections(app), TERMINATE_CALL_MS, 'ending the connections')
            : Promise.reject(new Error('this store has no connections to end')),
        nowMs: () => (monoUs() - this.runStartUs) / 1000,
        scrub: (text) => redactSecrets(text, this.secrets),
      },
      onFired,
    );
    this.runner.start();
  }

  /** The faults fired so far, for the live view. */
  liveFaults(): LiveFault[] {
    return (this.runner?.records ?? []).map((r) => ({ fault: r.fault, atMs: r.atMs, outcome: r.outcome, detail: r.detail }));
  }

  /** The senders stopped: no more faults. */
  sendingEnded(): void {
    this.sendingEndUs ??= monoUs();
    this.warnings.push(...(this.runner?.stopScheduling() ?? []));
  }

  /** The run is over: commands still running get graceMs (0 after Ctrl-C or a failure). */
  async finish(graceMs: number): Promise<void> {
    this.sendingEnded();
    await this.runner?.finish(graceMs);
  }

  /** Fed by the checker's final count (each lost, resurrected, duplicated message), then given to report(). */
  attribution(): FailoverAttribution {
    return new FailoverAttribution(this.seen);
  }

  report(attribution: FailoverAttribution): FailoverReport {
    const ms = (us: number) => Math.round((us - this.runStartUs) / 1000);
    const windows: OutageWindow[] = this.outages.map((o) => ({ fromMs: ms(o.fromUs), toMs: ms(o.toUs) }));
    const open = new WriteOutageCell(this.writeOutageCell).openSinceUs();
    if (open !== undefined) windows.push({ fromMs: ms(open), toMs: null });
    windows.sort((a, b) => a.fromMs - b.fromMs);
    const endMs = ms(this.sendingEndUs ?? monoUs());
    const lengths = windows.map((w) => Math.max(0, (w.toMs ?? endMs) - w.fromMs));
    const faults = this.runner?.records ?? [];
    windowsByFault(faults, windows, endMs).forEach((x, i) => (faults[i]!.writesImpossibleMs = x.writesImpossibleMs));
    const phases = serverPhases(this.seen, this.runStartUs);
    const after = this.readBackOn ?? phases.phases[phases.phases.length - 1];
    return {
      faults,
      writeUnavailable: { windows, totalMs: lengths.reduce((a, b) => a + b, 0), longestMs: Math.max(0, ...lengths) },
      servers: {
        applicationName: this.applicationName ?? null,
        phases: phases.phases,
        failover: phases.failover,
        readBackOn: this.readBackOn ?? null,
        splitBrain: phases.splitBrain,
        words: attribution.words(after),
      },
    };
  }
}
