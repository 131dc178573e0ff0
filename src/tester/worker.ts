// A tester worker thread: one sender or one receiver (or, with --threads, several of one
// role), each with its own Backend, i.e. its own connection. Loaded by the engine as plain JS
// from dist/ (new Worker(new URL('./worker.js', …))). It speaks the protocol in
// protocol.ts: READY once connected, PROGRESS every FLUSH_MS, RESULT at the end, ERROR when
// something goes wrong.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { openBackend, type Backend } from '../backends/index.js';
import { isSmqError, SmqError } from '../errors.js';
import { decodeBody, encodeBody, PaddingCache } from './body.js';
import { BacklogGate } from './backlog.js';
import { CallWatch } from './calls.js';
import { monoUs } from './clock.js';
import { EventBuffer, EventKind } from './events.js';
import { backoffMs, recordFailure, succeeded, type FailureRun } from './failures.js';
import { withDeadline } from './lifecycle.js';
import { waitUntil, type PaceClock } from './pacer.js';
import { encodeHistogram, HISTOGRAM_NAMES, newWorkerHistogram, recordUs, type Histogram, type HistogramName } from './histograms.js';
import { SEND_ACKED, SEND_UNCERTAIN, type ErrorKind, type FromWorker, type ReceiverReport, type ToWorker, type WorkerSetup } from './protocol.js';
import { SecondCounter } from './series.js';
import { ForeignMessages } from './foreign.js';

/** How often a worker reports: often enough that the checker's ordering delay stays short. */
const FLUSH_MS = 100;
/** Empty receives back off from 1 ms to this, so an idle queue is not hammered. */
const MAX_EMPTY_BACKOFF_MS = 32;
/** A receive asks for at most this many more than --batch while it hands foreign messages back. */
const MAX_FOREIGN_EXTRA = 1000;
/**
 * better-sqlite3 answers synchronously, so a loop of awaited calls never reaches the event
 * loop: no flush timer, no STOP, no lag samples. Give the loop a turn every YIELD_US.
 */
const YIELD_US = 10_000;
/** After the result: connections that do not close within this (a hung server) are left to the thread's exit. */
const CLOSE_GRACE_MS = 1000;

const setup = workerData as WorkerSetup;
const port = parentPort!;

function post(message: FromWorker, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
}

const errorText = (e: unknown) => (isSmqError(e) ? e.line() : e instanceof Error ? e.message : String(e));
// A call that timed out (deadline.ts) found no server either: counted with lost connections.
const errorKind = (e: unknown): ErrorKind => (isSmqError(e) && (e.kind === 'connection' || e.kind === 'timeout') ? 'connection' : 'other');

// ---- state shared by the loops of this thread ----------------------------------------------

let runStartUs = 0;
let warmupEndUs = 0;
let stopping = false;
let abandonArmed = false;
const wakers = new Set<() => void>();
/** Every call to the store goes through this: one that never answers is given up on (calls.ts). */
const watch = new CallWatch(() => monoUs() / 1000);
const started = new Promise<void>((resolve) => {
  port.on('message', (m: ToWorker) => {
    if (m.type === 'START') {
      runStartUs = m.runStartUs;
      warmupEndUs = runStartUs + setup.warmupMs * 1000;
      resolve();
    } else if (m.type === 'STOP') {
      stopping = true;
      for (const wake of wakers) wake();
      if (m.abandonAfterMs !== undefined && !abandonArmed) {
        abandonArmed = true;
        setTimeout(() => watch.abandonAll('the run stopped while this call waited for the database'), m.abandonAfterMs);
      }
    }
  });
});

/** Sleeps, but wakes at once on STOP (and does not sleep once stopping). */
function pause(ms: number): Promise<void> {
  if (stopping) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      wakers.delete(done);
      resolve();
    }
    wakers.add(done);
  });
}

let lastYieldUs = 0;
async function yieldNow(): Promise<void> {
  const now = monoUs();
  if (now - lastYieldUs < YIELD_US) return;
  lastYieldUs = now;
  await new Promise<void>((resolve) => setImmediate(resolve));
}

const histograms = Object.fromEntries(HISTOGRAM_NAMES.map((n) => [n, newWorkerHistogram()])) as Record<HistogramName, Histogram>;
const counter = new SecondCounter();
const endToEndBySecond = new Map<number, Histogram>();

const totals = {
  sent: 0,
  sendFailed: 0,
  received: 0,
  acknowledged: 0,
  ackFailed: 0,
  emptyReceives: 0,
  errors: 0,
  connectionErrors: 0,
  otherErrors: 0,
  calls: { send: 0, sendFailed: 0, receive: 0, receiveFailed: 0, ack: 0, ackFailed: 0 },
  faultDeleted: 0,
  backlogWaitMs: 0,
  backlogStuck: 0,
  measuredCount: 0,
  measuredFirstUs: Infinity,
  measuredLastUs: -Infinity,
  lastError: undefined as string | undefined,
};

/** When a receiver of this thread last took a message of this run off the queue (see PROGRESS). */
let lastConsumedUs = 0;

/** Messages without this run's id: handed back, never deleted (foreign.ts). */
const foreign = new ForeignMessages();

const secondOf = (us: number) => Math.max(0, Math.floor((us - runStartUs) / 1e6));

const lag = monitorEventLoopDelay({ resolution: 10 });

/** One sender of this thread. */
interface SenderSlot extends FailureRun {
  readonly index: number;
  readonly backend: Backend;
  ranges: number[];
}

/** One receiver of this thread: its own event stream, so its events stay in its time order. */
interface ReceiverSlot extends FailureRun {
  readonly index: number;
  readonly backend: Backend;
  readonly events: EventBuffer;
  malformed: string[];
  /** Start of its receive call in progress: the watermark (no later event can be keyed earlier). */
  receiveSince: number | undefined;
  /** Foreign messages it holds, to hand back (visible again) behind its next receive. */
  handBack: bigint[];
}

/** --max-backlog, shared with every other worker of the run. */
const gate = setup.backlog && new BacklogGate(setup.backlog.cells, setup.backlog.max, setup.batch);

const senderSlots: SenderSlot[] = [];
const receiverSlots: ReceiverSlot[] = [];

function flush(final: boolean): void {
  const now = monoUs();
  const current = secondOf(now);
  const seconds = final ? counter.takeBefore() : counter.takeBefore(current);
  const endToEnd: { second: number; histogram: string }[] = [];
  for (const [second, h] of endToEndBySecond) {
    if (final || second < current) {
      endToEnd.push({ second, histogram: encodeHistogram(h) });
      endToEndBySecond.delete(second);
    }
  }
  const transfer: ArrayBuffer[] = [];
  const sends = senderSlots
    .filter((s) => s.ranges.length > 0)
    .map((s) => {
      const ranges = Float64Array.from(s.ranges);
      s.ranges = [];
      transfer.push(ranges.buffer as ArrayBuffer);
      return { sender: s.index, ranges };
    });
  const receivers: ReceiverReport[] = receiverSlots.map((r) => {
    const { events, ids } = r.events.take();
    transfer.push(events.buffer as ArrayBuffer, ids.buffer as ArrayBuffer);
    const malformed = r.malformed;
    r.malformed = [];
    return { receiver: r.index, events, ids, watermarkUs: final ? Number.MAX_SAFE_INTEGER : (r.receiveSince ?? now), malformed };
  });
  post(
    {
      type: 'PROGRESS',
      seconds,
      upToSecond: final ? Number.MAX_SAFE_INTEGER : current,
      endToEnd,
      sends,
      receivers,
      lastConsumedUs,
      foreignIds: foreign.takeNewIds(),
      lagP99Ms: lag.percentile(99) / 1e6,
    },
    transfer,
  );
}

function recordSendRange(slot: SenderSlot, firstSeq: number, count: number, outcome: number): void {
  const r = slot.ranges;
  const n = r.length;
  // Run-length: consecutive sequence numbers with the same outcome become one range.
  if (n >= 3 && r[n - 1] === outcome && r[n - 3]! + r[n - 2]! === firstSeq) {
    r[n - 2]! += count;
  } else {
    r.push(firstSeq, count, outcome);
  }
}

function countError(kind: ErrorKind): void {
  totals.errors += 1;
  if (kind === 'connection') totals.connectionErrors += 1;
  else totals.otherErrors += 1;
  counter.at(secondOf(monoUs())).errors += 1;
}

/**
 * Counts a failed call and backs off before the next one; false when the loop should give
 * up. A lost connection is retried: the next call takes a new connection from the pool (the
 * pool drops a client whose connection failed), so a restarted server is picked up again.
 */
async function failed(slot: FailureRun, e: unknown, callStartUs?: number): Promise<boolean> {
  const kind = errorKind(e);
  countError(kind);
  totals.lastError = errorText(e);
  const fatal = recordFailure(slot, e, kind, { nowUs: monoUs(), callStartUs, outageTimeoutMs: setup.outageTimeoutMs, stopping, lastError: totals.lastError });
  post({ type: 'ERROR', message: fatal ?? totals.lastError, fatal: fatal !== undefined, kind });
  if (fatal !== undefined) return false;
  await pause(backoffMs(slot.consecutiveErrors - 1));
  return true;
}

class InjectedFault extends Error {}

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

// ---- sender --------------------------------------------------------------------------

const paceClock: PaceClock = { nowUs: monoUs, sleepMs: pause, stopped: () => stopping };

async function runSender(slot: SenderSlot): Promise<void> {
  const { batch, sizeBytes, queue, runId, messages, durationMs, ratePerSec, faults } = setup;
  const { index, backend } = slot;
  const padding = new PaddingCache();
  const intervalUs = ratePerSec > 0 ? (batch * 1e6) / ratePerSec : 0;
  const deadlineUs = durationMs === undefined ? Infinity : runStartUs + durationMs * 1000;
  const nth = (call: number, every: number | undefined) => every !== undefined && every > 0 && call % every === every - 1;
  // The only sender of its thread may block the thread for the last stretch of a wait.
  const exclusive = senderSlots.length === 1;
  let seq = 0;
  for (let call = 0; ; call++) {
    await yieldNow();
    if (stopping) break;
    if (messages !== undefined && seq >= messages) break;
    const n = messages === undefined ? batch : Math.min(batch, messages - seq);
    let intendedUs: number | undefined;
    if (intervalUs > 0) {
      // Open loop: call k is due at start + k * interval whatever happened before; when
      // late we send at once and measure from the due time (coordinated omission).
      intendedUs = runStartUs + call * intervalUs;
      if (intendedUs >= deadlineUs) break;
      // Never early (that would hide queueing delay), and late as little as possible (pacer.ts).
      if (!(await waitUntil(intendedUs, paceClock, exclusive))) break;
    }
    if (gate) {
      // Closed loop: wait for room in the backlog. The wait happens before the send starts,
      // so it is not send latency (with --rate, the intended time still counts it).
      const waitFrom = monoUs();
      const r = await gate.reserve(n, setup.backlog!.stuckMs, () => stopping || monoUs() >= deadlineUs, () => monoUs() / 1000);
      totals.backlogWaitMs += (monoUs() - waitFrom) / 1000;
      if (r === 'cancelled') break;
      if (r === 'stuck') totals.backlogStuck += 1;
    }
    const startUs = monoUs();
    if (startUs >= deadlineUs) {
      gate?.release(n, false);
      break;
    }
    const bodyOf = (k: number) => ({ body: encodeBody({ runId, sender: index, seq: seq + k, sendStartUs: startUs, intendedUs }, sizeBytes, padding) });
    try {
      if (nth(call, faults.failSendBeforeEvery)) throw new InjectedFault('injected send failure (before the send)');
      const sending = n === 1 ? backend.send(queue, bodyOf(0)).then((id) => [id]) : backend.sendBatch(queue, Array.from({ length: n }, (_, k) => bodyOf(k)));
      const ids = await watch.track(sending, startUs / 1000);
      if (nth(call, faults.failSendAfterEvery)) throw new InjectedFault('injected send failure (after the send)');
      const endUs = monoUs();
      succeeded(slot);
      totals.calls.send += 1;
      totals.sent += n;
      maybeCrash(totals.sent);
      counter.at(secondOf(endUs)).sent += n;
      recordSendRange(slot, seq, n, SEND_ACKED);
      if (startUs >= warmupEndUs) {
        recordUs(histograms.send, endUs - (intendedUs ?? startUs));
        if (intendedUs !== undefined) {
          recordUs(histograms.sendService, endUs - startUs);
          recordUs(histograms.scheduleLag, startUs - intendedUs);
        }
        totals.measuredCount += n;
        if (startUs < totals.measuredFirstUs) totals.measuredFirstUs = startUs;
        if (endUs > totals.measuredLastUs) totals.measuredLastUs = endUs;
      }
      if (nth(call, faults.deleteAfterSendEvery) && ids[0] !== undefined) {
        // Awaited first: `totals.x += await …` would read totals.x before the await, and lose
        // what the thread's other senders added meanwhile.
        const deleted = await watch.track(backend.delete(queue, [ids[0]])).catch(() => []);
        totals.faultDeleted += deleted.length;
        gate?.release(deleted.length, false);
      }
    } catch (e) {
      // The outcome is unknown: the messages may or may not be in the queue. Their room in the
      // backlog is given back (if they did arrive, receiving them gives it back once more).
      gate?.release(n, false);
      totals.calls.send += 1;
      totals.calls.sendFailed += 1;
      totals.sendFailed += n;
      counter.at(secondOf(monoUs())).sendFailed += n;
      recordSendRange(slot, seq, n, SEND_UNCERTAIN);
      seq += n;
      if (e instanceof InjectedFault) {
        countError('other');
        continue;
      }
      if (!(await failed(slot, e, startUs))) return;
      continue;
    }
    seq += n;
  }
}

// ---- receiver ------------------------------------------------------------------------

/** A batch's acknowledgement, in flight while the receiver asks for the next batch. */
interface AckInFlight {
  readonly ours: readonly { readonly sender: number; readonly seq: number; readonly id: bigint }[];
  readonly outcome: Promise<{ readonly done: readonly bigint[] | undefined; readonly error: unknown; readonly startUs: number; readonly endUs: number }>;
}

function startAck(backend: Backend, ids: bigint[], ours: AckInFlight['ours']): AckInFlight {
  const { queue, ack } = setup;
  const startUs = monoUs();
  const call = watch.track(ack === 'archive' ? backend.archive(queue, ids) : backend.delete(queue, ids), startUs / 1000);
  return {
    ours,
    outcome: call.then(
      (done) => ({ done, error: undefined, startUs, endUs: monoUs() }),
      (error: unknown) => ({ done: undefined, error, startUs, endUs: monoUs() }),
    ),
  };
}

/** Records an acknowledgement's outcome and returns when it ended; undefined when the loop should give up. */
async function finishAck(slot: ReceiverSlot, inFlight: AckInFlight): Promise<{ endUs: number } | undefined> {
  const o = await inFlight.outcome;
  let done: Set<bigint>;
  totals.calls.ack += 1;
  if (o.done !== undefined) {
    done = new Set(o.done);
    succeeded(slot);
  } else {
    done = new Set();
    totals.calls.ackFailed += 1;
    if (!(await failed(slot, o.error, o.startUs))) return undefined;
  }
  if (o.startUs >= warmupEndUs) recordUs(histograms.ack, o.endUs - o.startUs);
  let acked = 0;
  for (const m of inFlight.ours) {
    const ok = done.has(m.id);
    if (ok) acked += 1;
    else totals.ackFailed += 1;
    slot.events.push(ok ? EventKind.ackOk : EventKind.ackFailed, m.sender, m.seq, 0, 0, o.endUs, m.id);
  }
  totals.acknowledged += acked;
  counter.at(secondOf(o.endUs)).acknowledged += acked;
  return { endUs: o.endUs };
}

/** The foreign messages a receiver holds go back (visible now) behind whatever it sent last. */
function startHandBack(slot: ReceiverSlot): Promise<void> | undefined {
  return foreign.handBack(
    slot,
    (ids) => watch.track(slot.backend.setVisibility(setup.queue, ids, 0)),
    (e) => {
      countError(errorKind(e));
      totals.lastError = errorText(e);
    },
  );
}

async function runReceiver(slot: ReceiverSlot): Promise<void> {
  try {
    await receiveLoop(slot);
  } finally {
    await startHandBack(slot);
    foreign.giveUp(slot);
  }
}

async function receiveLoop(slot: ReceiverSlot): Promise<void> {
  const { queue, runId, batch, vtSec, dequeue, naivePauseMs, faults } = setup;
  const { backend, events } = slot;
  // Others' messages in the queue: the store gives this run's only (they are never claimed).
  const only = setup.receiveByRunId ? { runId } : {};
  const vtMs = vtSec * 1000;
  let emptyBackoffMs = 1;
  let answered = 0;
  // The previous batch's acknowledgement: the next receive goes out behind it on the same
  // connection, in the same write, without waiting for its answer (pipelined, as a consumer
  // that acknowledges asynchronously does). The connection answers in order.
  let pendingAck: AckInFlight | undefined;
  for (;;) {
    await yieldNow();
    if (stopping) break;
    const issuedUs = monoUs();
    slot.receiveSince = issuedUs;
    // Foreign messages at the head of the queue (pgmq reads the oldest ids first) would fill
    // every batch: ask for as many more as are being handed back, so the run's still come.
    const qty = batch + Math.min(slot.handBack.length, MAX_FOREIGN_EXTRA);
    const receiving = watch.track(backend.receive(queue, { qty, vtSec, dequeue, naivePauseMs, ...only }), issuedUs / 1000);
    receiving.catch(() => undefined); // handled below, after the acknowledgement ahead of it
    // Foreign messages of the previous batch go back behind this receive: it cannot take them again.
    const givingBack = startHandBack(slot);
    // The receive call starts, for its latency, when the connection is done with the ack.
    let recvStart = issuedUs;
    if (pendingAck) {
      const acked = await finishAck(slot, pendingAck);
      pendingAck = undefined;
      if (!acked) return;
      recvStart = Math.max(issuedUs, acked.endUs);
    }
    let messages;
    try {
      messages = await receiving;
      const every = faults.loseReceiveAnswerEvery;
      if (messages.length > 0 && every !== undefined && every > 0 && answered++ % every === every - 1) {
        throw new SmqError('connection', `injected: the answer to a receive of ${messages.length} message(s) was lost with the connection`);
      }
    } catch (e) {
      slot.receiveSince = undefined;
      totals.calls.receive += 1;
      totals.calls.receiveFailed += 1;
      await givingBack;
      if (!(await failed(slot, e, issuedUs))) return;
      continue;
    }
    const recvEnd = monoUs();
    slot.receiveSince = undefined;
    totals.calls.receive += 1;
    await givingBack;
    succeeded(slot);
    if (recvStart >= warmupEndUs) recordUs(histograms.receive, recvEnd - recvStart);
    const second = secondOf(recvEnd);
    if (messages.length === 0) {
      totals.emptyReceives += 1;
      counter.at(second).emptyReceives += 1;
      await pause(emptyBackoffMs);
      emptyBackoffMs = Math.min(MAX_EMPTY_BACKOFF_MS, emptyBackoffMs * 2);
      continue;
    }
    const ours: { sender: number; seq: number; id: bigint }[] = [];
    let interval = endToEndBySecond.get(second);
    let measured = 0;
    let foreignHere = 0;
    const ackIds: bigint[] = [];
    for (const m of messages) {
      const body = decodeBody(m.body, runId);
      if (body.kind === 'foreign') {
        // Not this run's: never deleted, handed back behind the next receive.
        foreign.received(m.id, slot.handBack);
        foreignHere += 1;
        continue;
      }
      totals.received += 1;
      ackIds.push(m.id);
      if (body.kind === 'malformed') {
        slot.malformed.push(String(m.id));
        continue;
      }
      const leaseMs = m.visibleAt.getTime();
      const startMs = m.lastReadAt ? m.lastReadAt.getTime() : leaseMs - vtMs;
      // A read count above 1 on a message: the queue handed it out before, perhaps to a
      // receive whose answer never arrived (the checker has then not seen that delivery).
      events.push(m.readCount > 1 ? EventKind.redelivery : EventKind.delivery, body.sender, body.seq, startMs, leaseMs, recvStart, m.id);
      ours.push({ sender: body.sender, seq: body.seq, id: m.id });
      // End-to-end only for first deliveries: a redelivery's age is the lease, not the queue.
      if (m.readCount <= 1 && Number.isFinite(body.sendStartUs)) {
        const fromUs = body.intendedUs ?? body.sendStartUs;
        if (!interval) {
          interval = newWorkerHistogram();
          endToEndBySecond.set(second, interval);
        }
        recordUs(interval, recvEnd - fromUs);
        if (body.sendStartUs >= warmupEndUs) {
          recordUs(histograms.endToEnd, recvEnd - fromUs);
          if (body.intendedUs !== undefined) recordUs(histograms.endToEndService, recvEnd - body.sendStartUs);
        }
      }
      if (recvStart >= warmupEndUs) measured += 1;
    }
    counter.at(second).received += messages.length - foreignHere;
    gate?.release(messages.length - foreignHere, true);
    if (ackIds.length === 0) {
      // Only foreign messages: back off as after an empty receive, not to spin on them.
      await pause(emptyBackoffMs);
      emptyBackoffMs = Math.min(MAX_EMPTY_BACKOFF_MS, emptyBackoffMs * 2);
      continue;
    }
    emptyBackoffMs = 1;
    lastConsumedUs = recvEnd;
    maybeCrash(totals.received);
    if (measured > 0) {
      totals.measuredCount += measured;
      if (recvStart < totals.measuredFirstUs) totals.measuredFirstUs = recvStart;
      if (recvEnd > totals.measuredLastUs) totals.measuredLastUs = recvEnd;
    }
    // Acknowledge what carries this run's id, and nothing else.
    pendingAck = startAck(backend, ackIds, ours);
  }
  if (pendingAck) await finishAck(slot, pendingAck);
}

// ---- lifecycle -----------------------------------------------------------------------

/** A connection that fails while the run starts (a server restarting) is tried again for a while. */
const CONNECT_RETRY_MS = 10_000;

async function connect(): Promise<Backend> {
  const since = monoUs();
  for (let attempt = 0; ; attempt++) {
    try {
      return await openBackend(setup.target, { ...setup.open, create: false });
    } catch (e) {
      const failingMs = (monoUs() - since) / 1000;
      if (stopping || errorKind(e) !== 'connection' || failingMs >= Math.min(setup.outageTimeoutMs, CONNECT_RETRY_MS)) throw e;
      await pause(backoffMs(attempt));
    }
  }
}

async function main(): Promise<void> {
  const backends: Backend[] = [];
  try {
    for (const index of setup.indices) {
      const backend = await connect();
      backends.push(backend);
      if (setup.role === 'sender') senderSlots.push({ index, backend, ranges: [], consecutiveErrors: 0, failingSinceUs: undefined });
      else {
        receiverSlots.push({ index, backend, events: new EventBuffer(), malformed: [], receiveSince: undefined, handBack: [], consecutiveErrors: 0, failingSinceUs: undefined });
      }
    }
    const info = await withDeadline(backends[0]!.info(), setup.outageTimeoutMs, 'reading the server version');
    post({ type: 'READY', info, isolation: info.isolation ?? null });
  } catch (e) {
    post({ type: 'ERROR', message: errorText(e), fatal: true, kind: errorKind(e) });
    await Promise.all(backends.map((b) => b.close().catch(() => undefined)));
    return;
  }
  await started;
  lag.enable();
  const elu0 = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    // The outage timeout also ends calls that never answer, not only calls that fail.
    watch.giveUpOlderThan(setup.outageTimeoutMs);
    flush(false);
  }, FLUSH_MS);
  try {
    await Promise.all(setup.role === 'sender' ? senderSlots.map(runSender) : receiverSlots.map(runReceiver));
  } catch (e) {
    countError(errorKind(e));
    totals.lastError = errorText(e);
    post({ type: 'ERROR', message: errorText(e), fatal: true, kind: errorKind(e) });
  } finally {
    clearInterval(timer);
  }
  flush(true);
  lag.disable();
  const elu = performance.eventLoopUtilization(elu0);
  post({
    type: 'RESULT',
    histograms: Object.fromEntries(HISTOGRAM_NAMES.map((n) => [n, encodeHistogram(histograms[n])])) as Record<HistogramName, string>,
    totals: { ...totals, foreignDeliveries: foreign.deliveries, foreignReturned: foreign.returned, foreignNotReturned: foreign.notReturned },
    eventLoop: {
      meanMs: Number.isFinite(lag.mean) ? lag.mean / 1e6 : 0,
      p99Ms: lag.percentile(99) / 1e6,
      maxMs: lag.max / 1e6,
      utilization: elu.utilization,
    },
  });
  const closed = Promise.all(backends.map((b) => b.close().catch(() => undefined))).then(() => true);
  const inTime = await Promise.race([closed, new Promise<false>((resolve) => setTimeout(() => resolve(false), CLOSE_GRACE_MS).unref())]);
  port.close();
  // A connection to a hung server never finishes closing and would keep this thread alive.
  if (!inTime) process.exit(0);
}

void main();
