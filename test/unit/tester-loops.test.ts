// The tester's sender and receiver loops run in-process, without worker threads, against a
// real SmoothMQ SQLite file in a temp dir: what they send and receive, what they record, and
// that a stop ends them promptly.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openBackend, type Backend } from '../../src/backends/index.js';
import { decodeBody } from '../../src/tester/body.js';
import { monoUs } from '../../src/tester/clock.js';
import { EVENT_STRIDE, EventKind } from '../../src/tester/events.js';
import { loopContext, type LoopContext } from '../../src/tester/loops/context.js';
import { runReceiver } from '../../src/tester/loops/receiver.js';
import { runSender } from '../../src/tester/loops/sender.js';
import { SEND_ACKED, type FromWorker, type WorkerRole, type WorkerSetup } from '../../src/tester/protocol.js';
import { Recorder } from '../../src/tester/recorder.js';

const RUN_ID = 'run-loops-test';
const QUEUE = 'loops';

let dir: string;
let path: string;
const opened: Backend[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'smq-loops-test-'));
  path = join(dir, 'q.sqlite');
  const admin = await open(true);
  await admin.createQueue(QUEUE);
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((b) => b.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function open(create = false): Promise<Backend> {
  const b = await openBackend({ kind: 'sqlite', path }, { create });
  opened.push(b);
  return b;
}

function setupFor(role: WorkerRole, patch: Partial<WorkerSetup> = {}): WorkerSetup {
  return {
    role,
    indices: [0],
    sharesThread: false,
    target: { kind: 'sqlite', path },
    open: {},
    queue: QUEUE,
    runId: RUN_ID,
    sizeBytes: 100,
    batch: 5,
    vtSec: 30,
    ack: 'delete',
    dequeue: 'safe',
    naivePauseMs: 0,
    groups: 0,
    read: 'plain',
    pollSec: undefined,
    listen: undefined,
    ackDelayMs: 0,
    receiveByRunId: false,
    messages: undefined,
    durationMs: undefined,
    ratePerSec: 0,
    backlog: undefined,
    warmupMs: 0,
    outageTimeoutMs: 5000,
    faults: {},
    writeOutage: new SharedArrayBuffer(8),
    ...patch,
  };
}

/** A loop's context as a worker thread builds it, with the messages it would post kept here. */
function context(setup: WorkerSetup, runStartUs = monoUs()): { ctx: LoopContext; posted: FromWorker[] } {
  const posted: FromWorker[] = [];
  const recorder = new Recorder((m) => void posted.push(m));
  recorder.start(runStartUs, setup.warmupMs);
  return { ctx: loopContext(setup, recorder), posted };
}

/** Polls a condition (the loops run on this same event loop) with a generous deadline. */
async function until(what: string, condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Resolves with the time a stopped loop took to end (ms). */
async function stopTimed(ctx: LoopContext, loop: Promise<void>): Promise<number> {
  const from = performance.now();
  ctx.stop.stop();
  await loop;
  return performance.now() - from;
}

function eventsOf(ctx: LoopContext) {
  const { events } = ctx.recorder.receivers[0]!.events.take();
  const out: { kind: number; sender: number; seq: number }[] = [];
  for (let o = 0; o < events.length; o += EVENT_STRIDE) out.push({ kind: events[o]!, sender: events[o + 1]!, seq: events[o + 2]! });
  return out;
}

describe('tester loops in-process (SQLite)', () => {
  test('a sender sends N messages with the run id, a receiver receives and acknowledges them, a stop ends it promptly', async () => {
    const n = 48;
    const sender = context(setupFor('sender', { indices: [3], messages: n }));
    await runSender(sender.ctx, 3, await open());
    const sent = sender.ctx.recorder.totals;
    expect(sent).toMatchObject({ sent: n, sendFailed: 0, errors: 0, measuredCount: n });
    expect(sent.calls).toMatchObject({ send: Math.ceil(n / 5), sendFailed: 0 });
    // One run-length range: sender 3's seqs 0..n-1, all acknowledged by the store.
    expect(sender.ctx.recorder.senders.map((s) => [s.index, ...s.ranges])).toEqual([[3, 0, n, SEND_ACKED]]);

    const check = await open();
    const rows = await check.peek(QUEUE, { limit: 100, state: 'all', order: 'oldest' });
    expect(rows.map((m) => decodeBody(m.body, RUN_ID))).toEqual(
      Array.from({ length: n }, (_, seq) => expect.objectContaining({ kind: 'ours', sender: 3, seq })),
    );

    const receiver = context(setupFor('receiver'));
    const totals = receiver.ctx.recorder.totals;
    const loop = runReceiver(receiver.ctx, 0, await open());
    await until('every message acknowledged', () => totals.acknowledged === n);
    expect(await stopTimed(receiver.ctx, loop)).toBeLessThan(2000);
    expect(totals).toMatchObject({ received: n, acknowledged: n, ackFailed: 0, errors: 0 });

    const events = eventsOf(receiver.ctx);
    const deliveries = events.filter((e) => e.kind === EventKind.delivery);
    expect(deliveries.map((e) => e.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, seq) => seq));
    expect(deliveries.every((e) => e.sender === 3)).toBe(true);
    expect(events.filter((e) => e.kind === EventKind.ackOk)).toHaveLength(n);
    expect((await check.queueStats(QUEUE)).total).toBe(0);
  });

  test('an endless sender and a receiver on the same queue both end promptly on stop; what was sent is one range', async () => {
    const runStartUs = monoUs();
    const sender = context(setupFor('sender'), runStartUs);
    const receiver = context(setupFor('receiver'), runStartUs);
    const sending = runSender(sender.ctx, 0, await open());
    const receiving = runReceiver(receiver.ctx, 0, await open());
    await until('some messages acknowledged', () => receiver.ctx.recorder.totals.acknowledged >= 50);
    const [senderMs, receiverMs] = await Promise.all([stopTimed(sender.ctx, sending), stopTimed(receiver.ctx, receiving)]);
    expect(senderMs).toBeLessThan(2000);
    expect(receiverMs).toBeLessThan(2000);
    const sent = sender.ctx.recorder.totals.sent;
    expect(sender.ctx.recorder.senders[0]!.ranges).toEqual([0, sent, SEND_ACKED]);
    expect(receiver.ctx.recorder.totals.received).toBeLessThanOrEqual(sent);

    // The final PROGRESS carries what the loops recorded: every second, and the receiver's events.
    receiver.ctx.recorder.progress(true, 0);
    const progress = receiver.posted.find((m) => m.type === 'PROGRESS');
    expect(progress).toMatchObject({ type: 'PROGRESS', upToSecond: Number.MAX_SAFE_INTEGER });
    if (progress?.type !== 'PROGRESS') throw new Error('no PROGRESS');
    expect(progress.seconds.reduce((a, s) => a + s.acknowledged, 0)).toBe(receiver.ctx.recorder.totals.acknowledged);
    expect(progress.receivers[0]!.events.length / EVENT_STRIDE).toBe(
      receiver.ctx.recorder.totals.received + receiver.ctx.recorder.totals.acknowledged,
    );
  });

  test.each([1, 40])(
    'batch %i: messages deleted by someone else while the receiver holds them are acks that found no row (no call failed), the rest ok',
    async (batch) => {
      const n = batch === 1 ? 8 : 80;
      await runSender(context(setupFor('sender', { messages: n })).ctx, 0, await open());
      const receiver = context(setupFor('receiver', { batch, ackDelayMs: 300 }));
      const totals = receiver.ctx.recorder.totals;
      const loop = runReceiver(receiver.ctx, 0, await open());
      await until('the first batch received', () => totals.received >= batch);
      // While it works on its batch (--ack-delay), another client deletes every other message it holds.
      const outside = await open();
      const held = await outside.peek(QUEUE, { limit: 100, state: 'inflight', order: 'oldest' });
      expect(held).toHaveLength(batch);
      const taken = held.filter((_, i) => i % 2 === 0).map((m) => m.id);
      expect(await outside.delete(QUEUE, taken)).toHaveLength(taken.length);
      await until(
        'every message received, and each acknowledged or not found',
        () => totals.acknowledged + totals.ackNotFound === n,
        30_000,
      );
      await stopTimed(receiver.ctx, loop);
      expect(totals).toMatchObject({ received: n, acknowledged: n - taken.length, ackNotFound: taken.length, ackFailed: 0 });
      expect(totals.calls.ackFailed).toBe(0);
      const events = eventsOf(receiver.ctx);
      expect(events.filter((e) => e.kind === EventKind.ackFailed)).toHaveLength(0);
      const failedSeqs = events.filter((e) => e.kind === EventKind.ackNotFound).map((e) => e.seq);
      const takenSeqs = held.filter((_, i) => i % 2 === 0).map((m) => (decodeBody(m.body, RUN_ID) as { seq: number }).seq);
      expect(failedSeqs.sort((a, b) => a - b)).toEqual(takenSeqs.sort((a, b) => a - b));
      expect(events.filter((e) => e.kind === EventKind.ackOk)).toHaveLength(n - taken.length);
    },
  );

  // Before: the sender stopped at its last due send (1 s), not at the end of --duration.
  test('--rate with --duration: the sender sends until the duration is over, not until its last due send (--rate 1 --duration 1.5s)', async () => {
    const runStartUs = monoUs();
    const sender = context(setupFor('sender', { batch: 1, ratePerSec: 1, durationMs: 1500 }), runStartUs);
    await runSender(sender.ctx, 0, await open());
    const elapsedMs = (monoUs() - runStartUs) / 1000;
    const totals = sender.ctx.recorder.totals;
    expect(totals.sent).toBe(2); // due at 0 s and 1 s
    expect(elapsedMs).toBeGreaterThanOrEqual(1500);
    expect(elapsedMs).toBeLessThan(2500);
    // The measured window ends with the duration: 2 messages over 1.5 s.
    expect(totals.measuredLastUs).toBe(runStartUs + 1_500_000);
    expect(totals.measuredCalls).toBe(3);
  });

  test('a receiver of an empty queue backs off, and a stop wakes it from its pause', async () => {
    const receiver = context(setupFor('receiver'));
    const loop = runReceiver(receiver.ctx, 0, await open());
    // 1 + 2 + … + 32 ms: by the eighth empty receive it waits the longest pause.
    await until('eight empty receives', () => receiver.ctx.recorder.totals.emptyReceives >= 8);
    expect(await stopTimed(receiver.ctx, loop)).toBeLessThan(1000);
    expect(receiver.ctx.recorder.totals).toMatchObject({ received: 0, errors: 0 });
  });

  test('a receive of a queue that does not exist ends the loop at once, with a fatal ERROR', async () => {
    const receiver = context(setupFor('receiver', { queue: 'missing' }));
    await runReceiver(receiver.ctx, 0, await open());
    expect(receiver.posted).toEqual([expect.objectContaining({ type: 'ERROR', fatal: true, kind: 'other' })]);
    expect(receiver.ctx.recorder.totals).toMatchObject({
      errors: 1,
      otherErrors: 1,
      calls: expect.objectContaining({ receive: 1, receiveFailed: 1 }),
    });
  });
});
