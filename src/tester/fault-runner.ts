// Carries out the --fault plan during a run (fault-spec.ts): at each fault's time, ends the
// run's own connections on the server (terminate) or runs the user's command through the
// shell (exec), and keeps what happened for the report. Faults fire while the senders send;
// a command still running when the run ends is waited for a little, then ended.
import { spawn } from 'node:child_process';
import { errorText } from './failures.js';
import { nthFaultMs, type FaultKind, type FaultSpec } from './fault-spec.js';

/** Output of a command kept for the report: its last characters. */
export const OUTPUT_KEPT = 4000;
/** A command that does not end on SIGTERM is killed this long after. */
const KILL_AFTER_MS = 1000;

/** What the live view shows of a fault that fired. */
export interface LiveFault {
  readonly fault: string;
  readonly atMs: number;
  readonly outcome: FaultRecord['outcome'];
  readonly detail: string;
}

export interface FaultRecord {
  /** The spec as given (terminate@10s, exec:…@30s,every=1m). */
  readonly fault: string;
  readonly kind: FaultKind;
  readonly command: string | null;
  /** When it fired, ms since the run's start, and that second of the series. */
  readonly atMs: number;
  readonly second: number;
  /** How long it took (a command: until it exited); null while running. */
  durationMs: number | null;
  outcome: 'ok' | 'failed' | 'running' | 'killed';
  /** One line: "ended 4 connection(s)", "exit code 0", the error. */
  detail: string;
  exitCode: number | null;
  connectionsEnded: number | null;
  /** The command's output (stdout and stderr together), its last OUTPUT_KEPT characters. */
  output: string | null;
  /** Filled in by the report: how long writes were impossible after it (write-outage.ts). */
  writesImpossibleMs: number | null;
}

export interface FaultActions {
  /** Ends the run's connections on the server; how many. */
  terminate(): Promise<number>;
  /** ms since the run's start. */
  nowMs(): number;
  /** Text of the command and its output as the report may show it (secrets scrubbed). */
  scrub?(text: string): string;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export class FaultRunner {
  readonly records: FaultRecord[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Map<FaultRecord, { readonly done: Promise<void>; readonly kill: (why: string) => void }>();
  private stopped = false;

  constructor(
    private readonly specs: readonly FaultSpec[],
    private readonly actions: FaultActions,
    private readonly onFired: (r: FaultRecord) => void = () => {},
  ) {}

  /** The run began (actions.nowMs() is 0 now). */
  start(): void {
    for (const spec of this.specs) this.schedule(spec, 0);
  }

  private schedule(spec: FaultSpec, k: number): void {
    const atMs = nthFaultMs(spec, k);
    if (atMs === undefined || this.stopped) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (this.stopped) return;
        // Timers may fire a fraction of a millisecond early: never before its time.
        if (this.actions.nowMs() < atMs) return this.schedule(spec, k);
        this.fire(spec);
        this.schedule(spec, k + 1);
      },
      Math.max(0, Math.ceil(atMs - this.actions.nowMs())),
    );
    this.timers.add(timer);
  }

  private fire(spec: FaultSpec): void {
    const atMs = Math.floor(this.actions.nowMs());
    const r: FaultRecord = {
      fault: spec.text,
      kind: spec.kind,
      command: spec.command === undefined ? null : this.scrub(spec.command),
      atMs,
      second: Math.floor(atMs / 1000),
      durationMs: null,
      outcome: 'running',
      detail: 'running',
      exitCode: null,
      connectionsEnded: null,
      output: null,
      writesImpossibleMs: null,
    };
    this.records.push(r);
    this.onFired(r);
    if (spec.kind === 'terminate') {
      const done = this.actions.terminate().then(
        (n) => this.settle(r, 'ok', `ended ${n} connection(s)`, { connectionsEnded: n }),
        (e: unknown) => this.settle(r, 'failed', errorText(e)),
      );
      this.running.set(r, { done, kill: () => undefined });
    } else this.exec(r, spec.command!);
  }

  private scrub(text: string): string {
    return this.actions.scrub ? this.actions.scrub(text) : text;
  }

  private settle(r: FaultRecord, outcome: FaultRecord['outcome'], detail: string, more: Partial<FaultRecord> = {}): void {
    if (r.outcome !== 'running') return;
    const output = more.output === undefined || more.output === null ? more.output : this.scrub(more.output);
    Object.assign(r, more, { outcome, detail: this.scrub(detail), durationMs: Math.round(this.actions.nowMs() - r.atMs) });
    if (output !== undefined) r.output = output;
    this.running.delete(r);
  }

  private exec(r: FaultRecord, command: string): void {
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
    };
    // Its own process group, so that ending it ends what the shell started too.
    const child = spawn(command, { shell: true, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let killedBecause: string | undefined;
    const done = new Promise<void>((resolve) => {
      child.on('error', (e) => {
        this.settle(r, 'failed', `could not run the command: ${e.message}`, { output });
        resolve();
      });
      child.on('close', (code, signal) => {
        const took = seconds(this.actions.nowMs() - r.atMs);
        if (killedBecause !== undefined) this.settle(r, 'killed', `${killedBecause} (after ${took})`, { output, exitCode: code });
        else if (code === 0) this.settle(r, 'ok', `exit code 0 after ${took}`, { output, exitCode: 0 });
        else
          this.settle(r, 'failed', code === null ? `ended by ${signal} after ${took}` : `exit code ${code} after ${took}`, {
            output,
            exitCode: code,
          });
        resolve();
      });
    });
    const signal = (sig: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, sig);
      } catch {
        // already gone
      }
    };
    const kill = (why: string) => {
      if (killedBecause !== undefined) return;
      killedBecause = why;
      signal('SIGTERM');
      setTimeout(() => signal('SIGKILL'), KILL_AFTER_MS).unref();
    };
    this.running.set(r, { done, kill });
  }

  /** The senders stopped: no fault fires any more. Warnings for faults that never fired. */
  stopScheduling(): string[] {
    if (this.stopped) return [];
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const sentForMs = this.actions.nowMs();
    return this.specs
      .filter((s) => !this.records.some((r) => r.fault === s.text))
      .map((s) => `--fault ${s.text} never fired: the run stopped sending at ${seconds(sentForMs)}`);
  }

  /** Waits up to graceMs for what is still running, then ends it (why: said in the record). */
  async finish(graceMs: number, why = 'ended: still running when the run ended'): Promise<void> {
    this.stopScheduling();
    const all = () => Promise.all([...this.running.values()].map((x) => x.done));
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([
      all().then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs))),
    ]);
    clearTimeout(timer);
    if (!late) return;
    for (const x of this.running.values()) x.kill(why);
    await Promise.race([all(), new Promise((resolve) => setTimeout(resolve, KILL_AFTER_MS * 2).unref())]);
    // A terminate that never answered (a hung server): said as it is.
    for (const r of [...this.running.keys()]) this.settle(r, 'failed', 'no answer from the server');
  }
}
