// The worker-thread pool of a run: which threads run which senders and receivers, their
// setup, spawning them and waiting until each has connected, STOP and terminate, and the
// routing of what each worker says (its tagged messages, its crash, its exit) to the engine's
// handlers. The pool knows nothing of messages, checks or the drain.
import { listenFallbackMs } from './listen.js';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { OpenOptions } from '../backends/index.js';
import { SmqError } from '../errors.js';
import type { TesterConfig } from './config.js';
import { overdueWorkers } from './lifecycle.js';
import type { ErrorKind, FromHost, FromWorker, HostData, ToHost, ToWorker, WorkerRole, WorkerSetup } from './protocol.js';

/** A worker that does not answer STOP within this is terminated. */
export const STOP_TIMEOUT_MS = 15_000;
/** Ctrl-C, or a failed run: workers give up on calls still waiting this long after STOP (a hung server). */
const STOP_ABANDON_MS = 300;

export interface WorkerSlot {
  readonly role: WorkerRole;
  /** The senders or receivers this thread runs. */
  readonly indices: readonly number[];
  /** Position among all threads (series). */
  readonly slot: number;
  /** Position among the threads of its role. */
  readonly roleSlot: number;
  /** The thread that runs it: its own, or one it shares with a part of the other role (planHosts). */
  readonly worker: Worker;
  /** Its place among that thread's parts (HostData.parts). */
  readonly part: number;
  ready: boolean;
  result: Extract<FromWorker, { type: 'RESULT' }> | undefined;
  exited: boolean;
  stopSent: boolean;
  /** STOP went out with abandonAfterMs. */
  abandonSent: boolean;
  /** When STOP went out (ms, Date.now), to end a worker whose call never returns. */
  stopSentAtMs: number | undefined;
  /** terminate() called: the worker is being ended. */
  terminating: boolean;
  readonly finished: boolean;
  /** Failed calls it reported (ERROR messages), by kind: the count when it dies without a result. */
  readonly reportedErrors: Record<ErrorKind, number>;
}

/** One planned thread: its role, the senders (receivers) it runs, and its place among its role's threads. */
export type PlannedThread = readonly [role: WorkerRole, indices: number[], roleSlot: number];

export const workerName = (role: WorkerRole, indices: readonly number[]) =>
  indices.length === 1 ? `${role} ${indices[0]}` : `the ${role} thread of ${role}s ${indices.join(',')}`;

/**
 * Threads per role: --threads, or by default on Postgres half the cores (at least one), and
 * on SQLite one per sender and per receiver (better-sqlite3 answers synchronously: clients in
 * one thread would take turns, never overlap).
 *
 * Why not one thread per client on Postgres: every event loop that sleeps and wakes for each
 * round trip costs far more CPU than one loop serving several connections, and on a host
 * whose cores the server shares that CPU is taken from the server. Measured on the 2-core
 * bench host (bench/results): a bare pgmq.send loop on 8 connections ran at about 0.3x
 * pgbench from 8 threads and 0.8x from one.
 */
export function threadsPerRole(c: TesterConfig, n: number): number {
  if (c.threads !== undefined) return c.threads;
  if (c.target.kind === 'sqlite') return n;
  return Math.max(1, Math.floor(os.availableParallelism() / 2));
}

/** Whether a sender thread and a receiver thread share one worker thread (planHosts). */
// Under --rate a sender keeps its thread: its pacer may hold the thread for the last stretch of a wait.
const sharing = (c: TesterConfig) => c.threads === undefined && c.target.kind !== 'sqlite' && !(c.ratePerSec > 0);

/** Threads each role uses, and how many worker threads run both (planHosts). */
export function threadCounts(c: TesterConfig): { senders: number; receivers: number; shared: number } {
  const senders = Math.min(c.senders, threadsPerRole(c, c.senders));
  const receivers = Math.min(c.receivers, threadsPerRole(c, c.receivers));
  return { senders, receivers, shared: sharing(c) ? Math.min(senders, receivers) : 0 };
}

/** The worker threads: role, the senders (receivers) each runs, and its place among its role's. */
export function planThreads(c: TesterConfig): PlannedThread[] {
  // The senders (receivers) dealt out round-robin over the role's threads, each still with
  // its own connection.
  const deal = (role: WorkerRole, n: number): PlannedThread[] => {
    const threads = Math.min(n, threadsPerRole(c, n));
    const groups = Array.from({ length: threads }, () => [] as number[]);
    for (let i = 0; i < n; i++) groups[i % threads]!.push(i);
    return groups.map((g, roleSlot) => [role, g, roleSlot] as const);
  };
  return [...deal('sender', c.senders), ...deal('receiver', c.receivers)];
}

/**
 * Which worker thread runs each planned thread (its index in `threads`). On Postgres, unless
 * --threads says otherwise, the k-th sender thread and the k-th receiver thread are one thread:
 * their loops share one event loop, as pgbench's clients share its one thread. Every event loop
 * that sleeps and wakes for its round trips costs CPU of its own, taken from the server's cores
 * when they are shared. Measured on the 2-core bench host (2026-12-06, 4 senders + 4 receivers,
 * CPU per message after the warm-up): one sender and one receiver thread 236 and 303 µs, two
 * of each 446 and 565 µs. One shared thread against one of each, 4 paired rounds: 224 against
 * 255 µs. On SQLite every part keeps its thread (its calls block the thread); so does every
 * part under --threads or --rate.
 */
export function planHosts(c: TesterConfig, threads: readonly PlannedThread[]): number[] {
  const share = sharing(c);
  // planThreads lists the sender threads first, by roleSlot.
  const senderThreads = threads.filter(([role]) => role === 'sender').length;
  let next = senderThreads;
  return threads.map(([role, , roleSlot]) => (role === 'sender' ? roleSlot : share && roleSlot < senderThreads ? roleSlot : next++));
}

/** What every worker of a run shares; each one's role and indices are added per thread. */
export interface RunSetup {
  readonly config: TesterConfig;
  /** The run's open options (the main thread's, without `create`). */
  readonly open: Pick<OpenOptions, 'tenant' | 'isolation' | 'connectTimeoutMs' | 'poolSize' | 'applicationName' | 'callTimeoutMs'>;
  readonly queue: string;
  readonly runId: string;
  readonly receiveByRunId: boolean;
  /** --topic: the keys, the bound queues and the senders (fanout.ts). */
  readonly fanout?: WorkerSetup['fanout'];
  /** --max-backlog: the counters every worker shares (backlog.ts). */
  readonly backlogCells: SharedArrayBuffer;
  readonly backlogStuckMs: number;
  readonly outageTimeoutMs: number;
  /** The senders' shared window of failed writes (write-outage.ts). */
  readonly writeOutage: SharedArrayBuffer;
}

/** sharesThread: its thread runs a part of the other role too; oneThread: every part of the run is on that one thread. */
export function workerSetup(
  role: WorkerRole,
  indices: readonly number[],
  x: RunSetup,
  sharesThread = false,
  oneThread = false,
): WorkerSetup {
  const c = x.config;
  // --read poll --poll N waits up to N s inside one statement: the call's deadline (and the
  // server's statement_timeout inside it) leaves room for that wait on top of --timeout.
  const pollSec = c.listen ? undefined : (c.pollSec ?? (c.read === 'poll' ? 1 : undefined));
  const callTimeoutMs = x.open.callTimeoutMs === undefined ? undefined : x.open.callTimeoutMs + (pollSec ?? 0) * 1000;
  return {
    role,
    indices,
    sharesThread,
    target: c.target,
    // One call at a time per sender/receiver, on its own connection, through the lean
    // protocol path (pgmq/wire.ts): the tester's CPU per call is kept off the server's cores.
    open: { ...x.open, dedicated: true, ...(callTimeoutMs === undefined ? {} : { callTimeoutMs }) },
    queue: x.queue,
    runId: x.runId,
    sizeBytes: c.sizeBytes,
    batch: c.batch,
    vtSec: c.vtSec,
    ack: c.ack,
    dequeue: c.dequeue,
    naivePauseMs: c.naivePauseMs ?? 0,
    groups: c.groups ?? 0,
    read: c.read ?? 'plain',
    // --read poll waits 1 s unless told: long enough to save empty reads, short enough for STOP.
    // --listen: --poll is the fallback of the wait between plain reads, not a read's own poll.
    pollSec,
    listen: c.listen ? { fallbackMs: listenFallbackMs(c) } : undefined,
    ackDelayMs: c.ackDelayMs ?? 0,
    receiveByRunId: x.receiveByRunId,
    fanout: x.fanout,
    messages: c.messagesPerSender,
    durationMs: c.durationMs,
    ratePerSec: c.ratePerSec > 0 && c.senders > 0 ? c.ratePerSec / c.senders : 0,
    // A waiting sender gives up on a queue where nothing is received for the drain timeout
    // (at least a second): the messages it waits for are lost, and the checker says so.
    backlog: c.maxBacklog === undefined ? undefined : { cells: x.backlogCells, max: c.maxBacklog, stuckMs: x.backlogStuckMs, oneThread },
    warmupMs: c.warmupMs,
    outageTimeoutMs: x.outageTimeoutMs,
    faults: c.faults ?? {},
    writeOutage: x.writeOutage,
  };
}

/** What the engine does with what the workers say, once they are all connected. */
export interface PoolHandlers {
  progress(w: WorkerSlot, m: Extract<FromWorker, { type: 'PROGRESS' }>): void;
  /** Its result arrived (w.result is set). */
  result(w: WorkerSlot): void;
  /** A failed call it reported (counted in w.reportedErrors already). */
  error(w: WorkerSlot, m: Extract<FromWorker, { type: 'ERROR' }>): void;
  /** It exited without a result: what it had not reported yet is unknown. */
  lost(w: WorkerSlot): void;
  /** It crashed, exited without a result, or gave up: the run fails. */
  fatal(message: string): void;
  /** A thread exited (the supervision takes a look). */
  exited(): void;
  /** Which server a connection is on, a window of failed writes (failover.ts). */
  note(m: Extract<FromWorker, { type: 'SERVER' | 'WRITE_OUTAGE' }>): void;
}

export class WorkerPool {
  readonly workers: WorkerSlot[] = [];

  constructor(private readonly handlers: PoolHandlers) {}

  get allFinished(): boolean {
    return this.workers.every((w) => w.finished);
  }

  get sendersDone(): boolean {
    return this.workers.every((w) => w.role !== 'sender' || w.result !== undefined);
  }

  /** Starts every worker thread and waits until each part has connected; the isolation the first one read back. */
  spawn(
    c: TesterConfig,
    threads: readonly PlannedThread[],
    setupFor: (role: WorkerRole, indices: readonly number[], sharesThread: boolean, oneThread: boolean) => WorkerSetup,
  ): Promise<{ isolation: string | null }> {
    let isolation: string | null = null;
    const hosts = planHosts(c, threads);
    return new Promise((resolve, reject) => {
      let ready = 0;
      let failed = false;
      const fail = (message: string) => {
        if (failed) return;
        failed = true;
        reject(new SmqError('connection', message));
      };
      const hostSet = new Set(hosts);
      for (const host of hostSet) {
        const mine = threads.map((t, slot) => ({ t, slot })).filter(({ slot }) => hosts[slot] === host);
        const parts = mine.map(({ t: [role, indices] }) => setupFor(role, indices, mine.length > 1, hostSet.size === 1));
        const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: { parts } satisfies HostData });
        const slots = mine.map(({ t: [role, indices, roleSlot], slot }, part): WorkerSlot => ({
          role,
          indices,
          slot,
          roleSlot,
          worker,
          part,
          ready: false,
          result: undefined,
          exited: false,
          stopSent: false,
          abandonSent: false,
          stopSentAtMs: undefined,
          terminating: false,
          get finished() {
            return this.result !== undefined || this.exited;
          },
          reportedErrors: { connection: 0, other: 0 },
        }));
        this.workers.push(...slots);
        const name = slots.map((w) => workerName(w.role, w.indices)).join(' and ');
        worker.on('message', ({ part, message: m }: FromHost) => {
          const w = slots[part]!;
          if (m.type === 'READY' && !w.ready) {
            w.ready = true;
            if (isolation === null) isolation = m.isolation;
            ready += 1;
            if (ready === threads.length && !failed) resolve({ isolation });
          } else if (!w.ready && m.type === 'ERROR') {
            fail(m.message);
          } else {
            this.route(w, m);
          }
        });
        worker.on('error', (e) => {
          if (!slots.every((w) => w.ready)) fail(`${name}: ${e.message}`);
          else this.handlers.fatal(`${name} crashed: ${e.message}`);
        });
        worker.on('exit', (code) => {
          for (const w of slots) {
            w.exited = true;
            if (!w.ready) fail(`${workerName(w.role, w.indices)} exited before connecting`);
            else if (!w.result) {
              this.handlers.lost(w);
              // After a crash, 'error' has already said why.
              this.handlers.fatal(`${workerName(w.role, w.indices)} exited without a result (exit code ${code})`);
            }
          }
          this.handlers.exited();
        });
      }
    });
  }

  private route(w: WorkerSlot, m: FromWorker): void {
    switch (m.type) {
      case 'PROGRESS':
        this.handlers.progress(w, m);
        break;
      case 'RESULT':
        w.result = m;
        this.handlers.result(w);
        break;
      case 'ERROR':
        w.reportedErrors[m.kind] += 1;
        this.handlers.error(w, m);
        break;
      case 'SERVER':
      case 'WRITE_OUTAGE':
        this.handlers.note(m);
        break;
      case 'READY':
        break;
    }
  }

  post(w: WorkerSlot, m: ToWorker): void {
    if (!w.exited) w.worker.postMessage({ part: w.part, message: m } satisfies ToHost);
  }

  /** Every worker begins; runStartUs is second 0 of the series. */
  start(runStartUs: number): void {
    for (const w of this.workers) this.post(w, { type: 'START', runStartUs });
  }

  /** STOP; hurry (after Ctrl-C or a failure): with a short wait for calls in flight (the server may hang). */
  stop(w: WorkerSlot, hurry: boolean): void {
    if (w.stopSent && (w.abandonSent || !hurry)) return;
    w.stopSent = true;
    w.stopSentAtMs ??= Date.now();
    w.abandonSent = hurry;
    this.post(w, hurry ? { type: 'STOP', abandonAfterMs: STOP_ABANDON_MS } : { type: 'STOP' });
  }

  /** STOP to every worker `which` picks. */
  stopWhere(which: (w: WorkerSlot) => boolean, hurry: boolean): void {
    for (const w of this.workers) if (which(w)) this.stop(w, hurry);
  }

  /** Workers whose event loop does not answer STOP (stuck in a call) are ended, once each (then `ended(w)`). */
  terminateOverdue(nowMs: number, ended: (w: WorkerSlot) => void): void {
    for (const w of overdueWorkers(this.workers, nowMs, STOP_TIMEOUT_MS)) {
      w.terminating = true;
      void w.worker.terminate().catch(() => 0);
      ended(w);
    }
  }

  async terminateAll(): Promise<void> {
    await Promise.all(this.workers.filter((w) => !w.exited).map((w) => w.worker.terminate().catch(() => 0)));
  }
}
