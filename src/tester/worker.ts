// A tester worker thread: one sender or one receiver, with its own Backend (its own
// connection). Loaded by the engine as plain JS from dist/ (new Worker(new URL('./worker.js', …))).
// It speaks the protocol in protocol.ts: READY once connected, PROGRESS every FLUSH_MS,
// RESULT at the end, ERROR when something goes wrong.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { openBackend, type Backend } from '../backends/index.js';
import { isSmqError } from '../errors.js';
import { decodeBody, encodeBody, PaddingCache } from './body.js';
import { monoUs } from './clock.js';
import { EventBuffer, EventKind } from './events.js';
import { encodeHistogram, HISTOGRAM_NAMES, newWorkerHistogram, recordUs, type Histogram, type HistogramName } from './histograms.js';
import { SEND_ACKED, SEND_UNCERTAIN, type FromWorker, type ToWorker, type WorkerSetup } from './protocol.js';
import { SecondCounter } from './series.js';

/** How often a worker reports: often enough that the checker's ordering delay stays short. */
const FLUSH_MS = 100;
/** Empty receives back off from 1 ms to this, so an idle queue is not hammered. */
const MAX_EMPTY_BACKOFF_MS = 32;
/** After an error, wait before the next call (doubling up to 1 s). */
const ERROR_BACKOFF_MS = 50;
/** This many failed calls in a row end the worker: the store is gone, not busy. */
const MAX_CONSECUTIVE_ERRORS = 40;

const setup = workerData as WorkerSetup;
const port = parentPort!;

function post(message: FromWorker, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
}

const errorText = (e: unknown) => (isSmqError(e) ? e.line() : e instanceof Error ? e.message : String(e));

// ---- state shared by both roles -------------------------------------------------------

let runStartUs = 0;
let warmupEndUs = 0;
let stopping = false;
let wake: (() => void) | undefined;
const started = new Promise<void>((resolve) => {
  port.on('message', (m: ToWorker) => {
    if (m.type === 'START') {
      runStartUs = m.runStartUs;
      warmupEndUs = runStartUs + setup.warmupMs * 1000;
      resolve();
    } else if (m.type === 'STOP') {
      stopping = true;
      wake?.();
    }
  });
});

/** Sleeps, but wakes at once on STOP. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      wake = undefined;
      resolve();
    }
    wake = done;
  });
}

const histograms = Object.fromEntries(HISTOGRAM_NAMES.map((n) => [n, newWorkerHistogram()])) as Record<HistogramName, Histogram>;
const counter = new SecondCounter();
const endToEndBySecond = new Map<number, Histogram>();
const events = new EventBuffer();
const malformed: string[] = [];
let sendRanges: number[] = [];
/** Start of the receive call in progress: the watermark (no later event can be keyed earlier). */
let receiveSince: number | undefined;
let consecutiveErrors = 0;

const totals = {
  sent: 0,
  sendFailed: 0,
  received: 0,
  acknowledged: 0,
  ackFailed: 0,
  emptyReceives: 0,
  errors: 0,
  foreign: 0,
  faultDeleted: 0,
  measuredCount: 0,
  measuredFirstUs: Infinity,
  measuredLastUs: -Infinity,
  lastError: undefined as string | undefined,
};

const secondOf = (us: number) => Math.max(0, Math.floor((us - runStartUs) / 1e6));

const lag = monitorEventLoopDelay({ resolution: 10 });

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
  const sends = sendRanges.length > 0 ? Float64Array.from(sendRanges) : undefined;
  sendRanges = [];
  const taken = events.length > 0 ? events.take() : undefined;
  const transfer: ArrayBuffer[] = [];
  if (sends) transfer.push(sends.buffer as ArrayBuffer);
  if (taken) transfer.push(taken.events.buffer as ArrayBuffer, taken.ids.buffer as ArrayBuffer);
  post(
    {
      type: 'PROGRESS',
      seconds,
      upToSecond: final ? Number.MAX_SAFE_INTEGER : current,
      endToEnd,
      sends,
      events: taken?.events,
      ids: taken?.ids,
      watermarkUs: final ? Number.MAX_SAFE_INTEGER : (receiveSince ?? now),
      malformed: malformed.splice(0),
      lagP99Ms: lag.percentile(99) / 1e6,
    },
    transfer,
  );
}

function recordSendRange(firstSeq: number, count: number, outcome: number): void {
  const n = sendRanges.length;
  // Run-length: consecutive sequence numbers with the same outcome become one range.
  if (n >= 3 && sendRanges[n - 1] === outcome && sendRanges[n - 3]! + sendRanges[n - 2]! === firstSeq) {
    sendRanges[n - 2]! += count;
  } else {
    sendRanges.push(firstSeq, count, outcome);
  }
}

/** Counts a failed call; false when the worker should give up. */
async function failed(e: unknown): Promise<boolean> {
  totals.errors += 1;
  counter.at(secondOf(monoUs())).errors += 1;
  totals.lastError = errorText(e);
  consecutiveErrors += 1;
  const fatal = (isSmqError(e) && e.kind === 'queue-not-found') || consecutiveErrors >= MAX_CONSECUTIVE_ERRORS;
  post({ type: 'ERROR', message: totals.lastError, fatal });
  if (fatal) return false;
  await pause(Math.min(1000, ERROR_BACKOFF_MS * 2 ** Math.min(consecutiveErrors - 1, 5)));
  return true;
}

class InjectedFault extends Error {}

/**
 * better-sqlite3 answers synchronously, so a loop of awaited calls never reaches the event
 * loop: no flush timer, no STOP, no lag samples. Give the loop a turn every YIELD_US.
 */
const YIELD_US = 10_000;
let lastYieldUs = 0;
async function yieldNow(): Promise<void> {
  const now = monoUs();
  if (now - lastYieldUs < YIELD_US) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  lastYieldUs = monoUs();
}

// ---- sender --------------------------------------------------------------------------

async function runSender(backend: Backend): Promise<void> {
  const { index, batch, sizeBytes, queue, runId, messages, durationMs, ratePerSec, faults } = setup;
  const padding = new PaddingCache();
  const intervalUs = ratePerSec > 0 ? (batch * 1e6) / ratePerSec : 0;
  const deadlineUs = durationMs === undefined ? Infinity : runStartUs + durationMs * 1000;
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
      // Never early: a call that started before its due time would hide queueing delay.
      while (!stopping && monoUs() < intendedUs) await pause(Math.max(1, (intendedUs - monoUs()) / 1000));
      if (stopping) break;
    }
    const startUs = monoUs();
    if (startUs >= deadlineUs) break;
    const inputs = [];
    for (let k = 0; k < n; k++) {
      inputs.push({ body: encodeBody({ runId, sender: index, seq: seq + k, sendStartUs: startUs, intendedUs }, sizeBytes, padding) });
    }
    try {
      const nth = (every: number | undefined) => every !== undefined && every > 0 && call % every === every - 1;
      if (nth(faults.failSendBeforeEvery)) throw new InjectedFault('injected send failure (before the send)');
      const ids = n === 1 ? [await backend.send(queue, inputs[0]!)] : await backend.sendBatch(queue, inputs);
      if (nth(faults.failSendAfterEvery)) throw new InjectedFault('injected send failure (after the send)');
      const endUs = monoUs();
      consecutiveErrors = 0;
      totals.sent += n;
      counter.at(secondOf(endUs)).sent += n;
      recordSendRange(seq, n, SEND_ACKED);
      if (startUs >= warmupEndUs) {
        recordUs(histograms.send, endUs - (intendedUs ?? startUs));
        if (intendedUs !== undefined) recordUs(histograms.sendService, endUs - startUs);
        totals.measuredCount += n;
        if (startUs < totals.measuredFirstUs) totals.measuredFirstUs = startUs;
        totals.measuredLastUs = endUs;
      }
      if (nth(faults.deleteAfterSendEvery) && ids[0] !== undefined) {
        totals.faultDeleted += (await backend.delete(queue, [ids[0]]).catch(() => [])).length;
      }
    } catch (e) {
      totals.sendFailed += n;
      counter.at(secondOf(monoUs())).sendFailed += n;
      recordSendRange(seq, n, SEND_UNCERTAIN);
      seq += n;
      if (e instanceof InjectedFault) {
        totals.errors += 1;
        counter.at(secondOf(monoUs())).errors += 1;
        continue;
      }
      if (!(await failed(e))) return;
      continue;
    }
    seq += n;
  }
}

// ---- receiver ------------------------------------------------------------------------

async function runReceiver(backend: Backend): Promise<void> {
  const { queue, runId, batch, vtSec, dequeue, naivePauseMs, ack } = setup;
  const vtMs = vtSec * 1000;
  let emptyBackoffMs = 1;
  for (;;) {
    await yieldNow();
    if (stopping) break;
    const recvStart = monoUs();
    receiveSince = recvStart;
    let messages;
    try {
      messages = await backend.receive(queue, { qty: batch, vtSec, dequeue, naivePauseMs });
    } catch (e) {
      receiveSince = undefined;
      if (!(await failed(e))) return;
      continue;
    }
    const recvEnd = monoUs();
    receiveSince = undefined;
    consecutiveErrors = 0;
    if (recvStart >= warmupEndUs) recordUs(histograms.receive, recvEnd - recvStart);
    const second = secondOf(recvEnd);
    if (messages.length === 0) {
      totals.emptyReceives += 1;
      counter.at(second).emptyReceives += 1;
      await pause(emptyBackoffMs);
      emptyBackoffMs = Math.min(MAX_EMPTY_BACKOFF_MS, emptyBackoffMs * 2);
      continue;
    }
    emptyBackoffMs = 1;
    const ours: { sender: number; seq: number; id: bigint }[] = [];
    let interval = endToEndBySecond.get(second);
    let measured = 0;
    let foreignHere = 0;
    for (const m of messages) {
      const body = decodeBody(m.body, runId);
      if (body.kind === 'foreign') {
        totals.foreign += 1;
        foreignHere += 1;
        continue;
      }
      totals.received += 1;
      if (body.kind === 'malformed') {
        malformed.push(String(m.id));
        continue;
      }
      const leaseMs = m.visibleAt.getTime();
      const startMs = m.lastReadAt ? m.lastReadAt.getTime() : leaseMs - vtMs;
      events.push(EventKind.delivery, body.sender, body.seq, startMs, leaseMs, recvStart, m.id);
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
    if (measured > 0) {
      totals.measuredCount += measured;
      if (recvStart < totals.measuredFirstUs) totals.measuredFirstUs = recvStart;
      totals.measuredLastUs = recvEnd;
    }

    // Acknowledge everything received, ours or not: the tester is this queue's consumer.
    const ids = messages.map((m) => m.id);
    const ackStart = monoUs();
    let done: Set<bigint>;
    try {
      done = new Set(ack === 'archive' ? await backend.archive(queue, ids) : await backend.delete(queue, ids));
      consecutiveErrors = 0;
    } catch (e) {
      done = new Set();
      if (!(await failed(e))) return;
    }
    const ackEnd = monoUs();
    if (ackStart >= warmupEndUs) recordUs(histograms.ack, ackEnd - ackStart);
    let acked = 0;
    for (const o of ours) {
      const ok = done.has(o.id);
      if (ok) acked += 1;
      else totals.ackFailed += 1;
      events.push(ok ? EventKind.ackOk : EventKind.ackFailed, o.sender, o.seq, 0, 0, ackEnd, 0n);
    }
    totals.acknowledged += acked;
    counter.at(secondOf(ackEnd)).acknowledged += acked;
  }
}

// ---- lifecycle -----------------------------------------------------------------------

async function readIsolation(backend: Backend, info: object): Promise<string | null> {
  if (backend.kind !== 'pgmq') return null;
  const fromInfo = (info as { isolation?: unknown }).isolation;
  if (typeof fromInfo === 'string') return fromInfo;
  // Until ServerInfo carries it: the pgmq backend's pool answers SHOW on a connection with
  // the same settings as the ones the calls use.
  const pool = (backend as { pool?: { query(text: string): Promise<{ rows: { transaction_isolation?: string }[] }> } }).pool;
  if (!pool) return null;
  const r = await pool.query('SHOW transaction_isolation');
  return r.rows[0]?.transaction_isolation ?? null;
}

async function main(): Promise<void> {
  let backend: Backend;
  try {
    backend = await openBackend(setup.target, { ...setup.open, create: false });
    const info = await backend.info();
    post({ type: 'READY', info, isolation: await readIsolation(backend, info) });
  } catch (e) {
    post({ type: 'ERROR', message: errorText(e), fatal: true });
    return;
  }
  await started;
  lag.enable();
  const elu0 = performance.eventLoopUtilization();
  const timer = setInterval(() => flush(false), FLUSH_MS);
  try {
    if (setup.role === 'sender') await runSender(backend);
    else await runReceiver(backend);
  } catch (e) {
    post({ type: 'ERROR', message: errorText(e), fatal: true });
  } finally {
    clearInterval(timer);
  }
  flush(true);
  lag.disable();
  const elu = performance.eventLoopUtilization(elu0);
  post({
    type: 'RESULT',
    histograms: Object.fromEntries(HISTOGRAM_NAMES.map((n) => [n, encodeHistogram(histograms[n])])) as Record<HistogramName, string>,
    totals,
    eventLoop: {
      meanMs: Number.isFinite(lag.mean) ? lag.mean / 1e6 : 0,
      p99Ms: lag.percentile(99) / 1e6,
      maxMs: lag.max / 1e6,
      utilization: elu.utilization,
    },
  });
  await backend.close().catch(() => undefined);
  port.close();
}

void main();
