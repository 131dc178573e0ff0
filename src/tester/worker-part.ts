// One part of a tester worker thread: one sender or one receiver (or, with --threads, several
// of one role), each with its own Backend, i.e. its own connection. It speaks the protocol in
// protocol.ts through its link to the main thread: READY once connected, PROGRESS every
// FLUSH_MS, RESULT at the end, ERROR when something goes wrong. The loops themselves are
// loops/sender.ts and loops/receiver.ts; worker.ts runs the parts of a thread.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { openBackend, type Backend, type InsertListener } from '../backends/index.js';
import { errorKind, errorText } from './failures.js';
import { withDeadline } from './lifecycle.js';
import { loopContext } from './loops/context.js';
import { receiverQueue, runReceiver } from './loops/receiver.js';
import { runSender } from './loops/sender.js';
import type { FromWorker, ToWorker, WorkerSetup } from './protocol.js';
import { Recorder } from './recorder.js';
import { openRetrying } from './retry.js';

/** How often a part reports: often enough that the checker's ordering delay stays short. */
const FLUSH_MS = 100;
/** After the result: connections that do not close within this (a hung server) are left to the thread's exit. */
const CLOSE_GRACE_MS = 1000;

/** A part's way to the main thread. */
export interface PartLink {
  post(message: FromWorker, transfer?: ArrayBuffer[]): void;
  onMessage(handler: (m: ToWorker) => void): void;
}

/**
 * Runs one part until its result is sent. Resolves true when its connections closed in time,
 * false when one did not (a hung server): the thread then exits without waiting for them.
 */
export async function runPart(setup: WorkerSetup, link: PartLink): Promise<boolean> {
  const recorder = new Recorder((message: FromWorker, transfer: ArrayBuffer[] = []) => link.post(message, transfer));

  /** Test hook (faults.crashWorker): this thread dies of an uncaught error after N messages. */
  const crash = setup.faults.crashWorker;
  let crashArmed = crash !== undefined && crash.role === setup.role && setup.indices.includes(crash.index);
  function maybeCrash(messages: number): void {
    if (!crashArmed || messages < crash!.afterMessages) return;
    crashArmed = false;
    // From a timer, so that nothing of ours catches it: a real uncaught exception.
    setTimeout(() => {
      throw new Error(`injected crash after ${messages} messages (SMQ_TESTER_FAULTS crashWorker)`);
    }, 0);
  }

  const ctx = loopContext(setup, recorder, maybeCrash);
  let abandonArmed = false;
  const started = new Promise<void>((resolve) => {
    link.onMessage((m: ToWorker) => {
      if (m.type === 'START') {
        recorder.start(m.runStartUs, setup.warmupMs);
        resolve();
      } else if (m.type === 'STOP') {
        ctx.stop.stop();
        if (m.abandonAfterMs !== undefined && !abandonArmed) {
          abandonArmed = true;
          setTimeout(() => ctx.watch.abandonAll('the run stopped while this call waited for the database'), m.abandonAfterMs);
        }
      }
    });
  });

  const lag = monitorEventLoopDelay({ resolution: 10 });

  /** --listen: each receiver's LISTEN, on a connection of its own, in effect before its first read. */
  async function openListeners(backends: readonly Backend[], into: InsertListener[]): Promise<void> {
    if (setup.role !== 'receiver' || !setup.listen) return;
    for (const [i, index] of setup.indices.entries()) {
      const backend = backends[i]!;
      // The run checked the store has them (listen.ts checkListenSupport).
      into.push(await openRetrying(() => backend.listenInserts!(receiverQueue(setup, index)), setup.outageTimeoutMs, ctx.stop));
    }
  }

  const backends: Backend[] = [];
  const listeners: InsertListener[] = [];
  const closeAll = () => Promise.all([...listeners, ...backends].map((b) => b.close().catch(() => undefined)));
  try {
    for (let i = 0; i < setup.indices.length; i++) {
      backends.push(await openRetrying(() => openBackend(setup.target, { ...setup.open, create: false }), setup.outageTimeoutMs, ctx.stop));
    }
    await openListeners(backends, listeners);
    const info = await withDeadline(backends[0]!.info(), setup.outageTimeoutMs, 'reading the server version');
    link.post({ type: 'READY', info, isolation: info.isolation ?? null } satisfies FromWorker);
  } catch (e) {
    recorder.error(errorText(e), true, errorKind(e));
    await closeAll();
    return true;
  }
  await started;
  lag.enable();
  const elu0 = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    // The outage timeout also ends calls that never answer, not only calls that fail.
    ctx.watch.giveUpOlderThan(setup.outageTimeoutMs);
    recorder.progress(false, lag.percentile(99) / 1e6, ctx.watch.waiting());
  }, FLUSH_MS);
  try {
    const run = setup.role === 'sender' ? runSender : runReceiver;
    await Promise.all(setup.indices.map((index, i) => run(ctx, index, backends[i]!, listeners[i])));
  } catch (e) {
    recorder.countError(errorKind(e));
    recorder.totals.lastError = errorText(e);
    recorder.error(errorText(e), true, errorKind(e));
  } finally {
    clearInterval(timer);
  }
  recorder.totals.listenReconnects = listeners.reduce((a, l) => a + l.reconnects, 0);
  recorder.progress(true, lag.percentile(99) / 1e6);
  lag.disable();
  const elu = performance.eventLoopUtilization(elu0);
  recorder.result({
    meanMs: Number.isFinite(lag.mean) ? lag.mean / 1e6 : 0,
    p99Ms: lag.percentile(99) / 1e6,
    maxMs: lag.max / 1e6,
    utilization: elu.utilization,
  });
  const closed = closeAll().then(() => true);
  const inTime = await Promise.race([closed, new Promise<false>((resolve) => setTimeout(() => resolve(false), CLOSE_GRACE_MS).unref())]);
  return inTime;
}
