// The live view's figures as the main thread puts them together (collector.ts) from what real
// worker-side recorders (recorder.ts) post: no database, no threads; the clock is handed in.
import { describe, expect, test } from 'vitest';
import { monoUs } from '../../src/tester/clock.js';
import { RunCollector } from '../../src/tester/collector.js';
import type { TesterConfig } from '../../src/tester/config.js';
import type { FromWorker } from '../../src/tester/protocol.js';
import { Recorder } from '../../src/tester/recorder.js';
import { backlogText, errorsText } from '../../src/ui/tester/format.js';

type Progress = Extract<FromWorker, { type: 'PROGRESS' }>;

const config = { senders: 1, receivers: 1, messagesPerSender: 100, warmupMs: 0, groups: 0 } as unknown as TesterConfig;
const frame = (c: RunCollector, elapsedMs: number, phase: 'sending' | 'draining' = 'sending') =>
  c.snapshot({ elapsedMs, phase, interrupted: false, totalToSend: 100, lastError: undefined, faults: [], drain: undefined });

/** A thread's recorder whose clock is set by the test; its PROGRESS messages go into `posted`. */
function thread(runStartUs: number) {
  let now = runStartUs;
  const posted: Progress[] = [];
  const r = new Recorder(
    (m) => {
      if (m.type === 'PROGRESS') posted.push(m);
    },
    () => now,
  );
  r.start(runStartUs, 0);
  return { r, posted, at: (sec: number) => (now = runStartUs + sec * 1e6) };
}

describe('the live errors', () => {
  test('the total and the counts by kind agree, errors of the second not over yet included', () => {
    const start = monoUs() - 10e6;
    const sender = thread(start);
    const receiver = thread(start);
    const c = new RunCollector(config, 2, 1, undefined);
    // A frozen server: four calls time out in second 3, four more in second 4 (still going).
    sender.at(3.2);
    for (let i = 0; i < 2; i++) sender.r.countError('connection');
    receiver.at(3.2);
    for (let i = 0; i < 2; i++) receiver.r.countError('connection');
    sender.at(4.1);
    for (let i = 0; i < 4; i++) sender.r.countError('connection');
    sender.r.progress(false, 0);
    receiver.at(4.1);
    receiver.r.progress(false, 0);
    c.progress({ role: 'sender', indices: [0], slot: 0, roleSlot: 0 }, sender.posted.at(-1)!);
    c.progress({ role: 'receiver', indices: [0], slot: 1, roleSlot: 0 }, receiver.posted.at(-1)!);
    const s = frame(c, 4100);
    expect(s.errorsByKind).toEqual({ connection: 8, other: 0 });
    expect(s.totals.errors).toBe(8);
    expect(errorsText(s)).toBe('errors 8 (8 connection, 0 other)');
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the live series while a thread is blocked in a call (a locked SQLite file)', () => {
  test('its seconds since its last report count as zeros: the backlog is of now, not of the second it blocked', async () => {
    const start = monoUs() - 7.5e6;
    const sender = thread(start);
    const a = thread(start);
    const b = thread(start);
    const c = new RunCollector({ ...config, receivers: 2 }, 3, 2, undefined);
    const senderSlot = { role: 'sender' as const, indices: [0], slot: 0, roleSlot: 0 };
    const aSlot = { role: 'receiver' as const, indices: [0], slot: 1, roleSlot: 0 };
    const bSlot = { role: 'receiver' as const, indices: [1], slot: 2, roleSlot: 1 };
    // 393 sent in seconds 0..3 (93 of them in second 3, while both receivers waited on the lock).
    for (const [second, n] of [
      [0, 100],
      [1, 100],
      [2, 100],
      [3, 93],
    ] as const)
      sender.r.counter.at(second).sent += n;
    sender.at(4.05);
    sender.r.progress(true, 0);
    c.progress(senderSlot, sender.posted.at(-1)!);
    c.finished(senderSlot);
    // Receiver a: 50/s in seconds 0..2, reported up to second 4, then blocked in a call.
    for (const second of [0, 1, 2]) a.r.counter.at(second).received += 50;
    a.at(4.05);
    a.r.progress(false, 0);
    c.progress(aSlot, a.posted.at(-1)!);
    await sleep(1100);
    // Receiver b: 50/s in seconds 0..2, then the 93 in second 5; reported up to second 7.
    for (const second of [0, 1, 2]) b.r.counter.at(second).received += 50;
    b.r.counter.at(5).received += 93;
    b.at(7.05);
    b.r.progress(false, 0);
    c.progress(bSlot, b.posted.at(-1)!);
    const s = frame(c, (monoUs() - start) / 1000, 'draining');
    expect(s.series.length).toBeGreaterThanOrEqual(7);
    expect(backlogText(s)).not.toMatch(/growing/);
    expect(s.backlog.count).toBe(0);
    expect(s.receiveRate).toBe(0);
  });
});
