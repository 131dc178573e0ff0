// One receiver: receives in batches, records each delivery of this run's messages as an
// event for the checker, acknowledges them (delete or archive) pipelined behind its next
// receive, and hands messages of others back. Runs until the run stops.
import type { Backend, InsertListener, Message } from '../../backends/index.js';
import { SmqError } from '../../errors.js';
import { decodeBody } from '../body.js';
import { EventKind } from '../events.js';
import { errorKind, errorText, succeeded } from '../failures.js';
import { newWorkerHistogram, recordUs } from '../histograms.js';
import type { WorkerSetup } from '../protocol.js';
import type { ReceiverRecord } from '../recorder.js';
import { backoffMs, EMPTY_RECEIVE_BACKOFF } from '../retry.js';
import { failed, type LoopContext, type LoopSlot } from './context.js';
import { waitForInsert } from './listen-wait.js';
import { checkServer } from './server-check.js';

/** A receive asks for at most this many more than --batch while it hands foreign messages back. */
const MAX_FOREIGN_EXTRA = 1000;

interface ReceiverSlot extends LoopSlot {
  readonly record: ReceiverRecord;
  /** The queue it reads: the run's, or (--topic) one of the bound queues. */
  readonly queue: string;
  /** --topic: its queue's copies are the checker's lanes from here on (fanout.ts). */
  readonly laneOffset: number;
  /** Foreign messages it holds, to hand back (visible again) behind its next receive. */
  handBack: bigint[];
  /** --listen: its LISTEN on the queue's insert notifications (a connection of its own). */
  readonly listener: InsertListener | undefined;
}

/** A batch's acknowledgement, in flight while the receiver asks for the next batch. */
interface AckInFlight {
  readonly ours: readonly { readonly sender: number; readonly seq: number; readonly id: bigint }[];
  readonly outcome: Promise<{
    readonly done: readonly bigint[] | undefined;
    readonly error: unknown;
    readonly startUs: number;
    readonly endUs: number;
  }>;
}

function startAck(ctx: LoopContext, backend: Backend, queue: string, ids: bigint[], ours: AckInFlight['ours']): AckInFlight {
  const { ack } = ctx.setup;
  const monoUs = ctx.clock.nowUs;
  const startUs = monoUs();
  const call = ctx.watch.track(ack === 'archive' ? backend.archive(queue, ids) : backend.delete(queue, ids), startUs / 1000);
  return {
    ours,
    outcome: call.then(
      (done) => ({ done, error: undefined, startUs, endUs: monoUs() }),
      (error: unknown) => ({ done: undefined, error, startUs, endUs: monoUs() }),
    ),
  };
}

/** Up to this many, a batch's acknowledged ids are searched in place rather than put in a Set. */
const SMALL_BATCH = 16;

/** Records an acknowledgement's outcome and returns when it ended (µs); undefined when the loop should give up. */
async function finishAck(ctx: LoopContext, slot: ReceiverSlot, inFlight: AckInFlight): Promise<number | undefined> {
  const { recorder } = ctx;
  const { totals } = recorder;
  const o = await inFlight.outcome;
  totals.calls.ack += 1;
  if (o.done !== undefined) {
    succeeded(slot);
  } else {
    totals.calls.ackFailed += 1;
    totals.lastAckError = errorText(o.error);
    if (!(await failed(ctx, slot, o.error, o.startUs))) return undefined;
  }
  const done = o.done;
  const doneSet = done !== undefined && done.length > SMALL_BATCH ? new Set(done) : undefined;
  if (o.startUs >= recorder.warmupEndUs) recordUs(recorder.histograms.ack, o.endUs - o.startUs);
  recorder.callSeconds.record('ack', recorder.secondOf(o.endUs), o.endUs - o.startUs);
  let acked = 0;
  for (const m of inFlight.ours) {
    const ok = doneSet ? doneSet.has(m.id) : done !== undefined && done.includes(m.id);
    // Not removed: the call failed (an error), or it answered without this row (already gone).
    let kind: EventKind = EventKind.ackOk;
    if (ok) acked += 1;
    else if (done === undefined) {
      totals.ackFailed += 1;
      kind = EventKind.ackFailed;
    } else {
      totals.ackNotFound += 1;
      kind = EventKind.ackNotFound;
    }
    slot.record.events.push(kind, m.sender, m.seq, 0, 0, o.endUs, m.id, o.startUs);
  }
  totals.acknowledged += acked;
  recorder.counter.at(recorder.secondOf(o.endUs)).acknowledged += acked;
  return o.endUs;
}

/** The foreign messages a receiver holds go back (visible now) behind whatever it sent last. */
function startHandBack(ctx: LoopContext, slot: ReceiverSlot): Promise<void> | undefined {
  // The usual case, checked before any closure is made: nothing to hand back.
  if (slot.handBack.length === 0) return undefined;
  const { recorder } = ctx;
  return recorder.foreign.handBack(
    slot,
    (ids) => ctx.watch.track(slot.backend.setVisibility(slot.queue, ids, 0)),
    (e) => {
      recorder.countError(errorKind(e));
      recorder.totals.lastError = errorText(e);
    },
  );
}

/** The receive call of --read (and --dequeue, --poll): plain read, read_with_poll, or a grouped read. */
function readCall(setup: WorkerSetup, backend: Backend, queue: string): (qty: number) => Promise<Message[]> {
  const { vtSec, dequeue, naivePauseMs, pollSec, read } = setup;
  const poll = pollSec === undefined ? {} : { pollSec };
  if (read === 'grouped' || read === 'grouped-rr' || read === 'grouped-head') {
    // The run checked before it started that the store has them (run-queue.ts).
    const grouped = backend.receiveGrouped!.bind(backend);
    return (qty) => grouped(queue, read, { qty, vtSec, ...poll });
  }
  // Others' messages in the queue: the store gives this run's only (they are never claimed).
  const only = setup.receiveByRunId ? { runId: setup.runId } : {};
  return (qty) => backend.receive(queue, { qty, vtSec, dequeue, naivePauseMs, ...only, ...poll });
}

/** The queue receiver `index` reads: the run's, or (--topic) one of the bound queues in turn. */
export function receiverQueue(setup: WorkerSetup, index: number): string {
  const fanout = setup.fanout;
  return fanout ? fanout.queues[index % fanout.queues.length]! : setup.queue;
}

export async function runReceiver(ctx: LoopContext, index: number, backend: Backend, listener?: InsertListener): Promise<void> {
  const fanout = ctx.setup.fanout;
  const j = fanout ? index % fanout.queues.length : 0;
  const slot: ReceiverSlot = {
    index,
    backend,
    queue: receiverQueue(ctx.setup, index),
    laneOffset: fanout ? j * fanout.senders : 0,
    record: ctx.recorder.addReceiver(index),
    handBack: [],
    listener,
    consecutiveErrors: 0,
    failingSinceUs: undefined,
    serverUnknown: true,
  };
  try {
    await receiveLoop(ctx, slot);
  } finally {
    await startHandBack(ctx, slot);
    ctx.recorder.foreign.giveUp(slot);
  }
}

async function receiveLoop(ctx: LoopContext, slot: ReceiverSlot): Promise<void> {
  const { setup, recorder, clock, stop, watch, gate } = ctx;
  const { runId, batch, vtSec, faults, ackDelayMs, pollSec } = setup;
  const { totals, histograms, counter, endToEndBySecond, foreign, warmupEndUs } = recorder;
  const { backend, record } = slot;
  const { events } = record;
  const monoUs = clock.nowUs;
  const read = readCall(setup, backend, slot.queue);
  const lanes = setup.fanout?.senders;
  const vtMs = vtSec * 1000;
  // Empty receives (or receives of foreign messages only) in a row: they back off.
  let idle = 0;
  let answered = 0;
  // The previous batch's acknowledgement: the next receive goes out behind it on the same
  // connection, in the same write, without waiting for its answer (pipelined, as a consumer
  // that acknowledges asynchronously does). The connection answers in order.
  let pendingAck: AckInFlight | undefined;
  for (;;) {
    const turn = clock.yieldNow();
    if (turn) await turn;
    if (stop.stopping) break;
    // Connected anew (first, or after a lost connection): which server this is. (An
    // acknowledgement still in flight is settled first: it went to the connection before.)
    if (slot.serverUnknown && pendingAck) {
      const ackEndUs = await finishAck(ctx, slot, pendingAck);
      pendingAck = undefined;
      if (ackEndUs === undefined) return;
    }
    if (slot.serverUnknown) {
      const server = await checkServer(ctx, 'receiver', slot, -1);
      if (server === 'stop') return;
      if (server === 'retry') continue;
    }
    const issuedUs = monoUs();
    record.receiveSince = issuedUs;
    // Foreign messages at the head of the queue (pgmq reads the oldest ids first) would fill
    // every batch: ask for as many more as are being handed back, so the run's still come.
    const qty = batch + Math.min(slot.handBack.length, MAX_FOREIGN_EXTRA);
    // --listen: the notifications so far, taken before the read goes out, so that one sent
    // while the read runs (or before the wait begins) ends the wait at once: no lost wake-up.
    const since = slot.listener?.epoch ?? 0;
    const receiving = watch.track(read(qty), issuedUs / 1000);
    receiving.catch(() => undefined); // handled below, after the acknowledgement ahead of it
    // Foreign messages of the previous batch go back behind this receive: it cannot take them again.
    const givingBack = startHandBack(ctx, slot);
    // The receive call starts, for its latency, when the connection is done with the ack.
    let recvStart = issuedUs;
    if (pendingAck) {
      const ackEndUs = await finishAck(ctx, slot, pendingAck);
      pendingAck = undefined;
      if (ackEndUs === undefined) return;
      recvStart = Math.max(issuedUs, ackEndUs);
    }
    let messages;
    try {
      messages = await receiving;
      const every = faults.loseReceiveAnswerEvery;
      if (messages.length > 0 && every !== undefined && every > 0 && answered++ % every === every - 1) {
        throw new SmqError('connection', `injected: the answer to a receive of ${messages.length} message(s) was lost with the connection`);
      }
    } catch (e) {
      record.receiveSince = undefined;
      totals.calls.receive += 1;
      totals.calls.receiveFailed += 1;
      if (givingBack) await givingBack;
      if (!(await failed(ctx, slot, e, issuedUs))) return;
      continue;
    }
    const recvEnd = monoUs();
    record.receiveSince = undefined;
    totals.calls.receive += 1;
    if (givingBack) await givingBack;
    succeeded(slot);
    if (recvStart >= warmupEndUs) recordUs(histograms.receive, recvEnd - recvStart);
    const second = recorder.secondOf(recvEnd);
    recorder.callSeconds.record('receive', second, recvEnd - recvStart);
    if (messages.length === 0) {
      totals.emptyReceives += 1;
      counter.at(second).emptyReceives += 1;
      if (slot.listener) await waitForInsert(ctx, slot.listener, since);
      // A read with poll waited for messages already.
      else if (pollSec === undefined) await stop.pause(backoffMs(idle++, EMPTY_RECEIVE_BACKOFF));
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
      if (body.kind === 'malformed' || (lanes !== undefined && body.sender >= lanes)) {
        record.malformed.push(String(m.id));
        continue;
      }
      const leaseMs = m.visibleAt.getTime();
      const startMs = m.lastReadAt ? m.lastReadAt.getTime() : leaseMs - vtMs;
      // A read count above 1 on a message: the queue handed it out before, perhaps to a
      // receive whose answer never arrived (the checker has then not seen that delivery).
      const kind = m.readCount > 1 ? EventKind.redelivery : EventKind.delivery;
      events.push(kind, body.sender + slot.laneOffset, body.seq, startMs, leaseMs, recvStart, m.id, recvEnd);
      ours.push({ sender: body.sender + slot.laneOffset, seq: body.seq, id: m.id });
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
    record.moved += messages.length - foreignHere;
    gate?.release(messages.length - foreignHere, true);
    if (ackIds.length === 0) {
      // Only foreign messages: back off as after an empty receive, not to spin on them.
      await stop.pause(backoffMs(idle++, EMPTY_RECEIVE_BACKOFF));
      continue;
    }
    idle = 0;
    ctx.onMessages(totals.received);
    if (measured > 0) recorder.measured(measured, recvStart, recvEnd);
    // --ack-delay: the batch is worked on this long first (a consumer's processing time).
    if (ackDelayMs > 0) await stop.pause(ackDelayMs);
    // Acknowledge what carries this run's id, and nothing else.
    pendingAck = startAck(ctx, backend, slot.queue, ackIds, ours);
  }
  if (pendingAck) await finishAck(ctx, slot, pendingAck);
}
