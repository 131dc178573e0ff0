// The live view's figures as the main thread puts them together (collector.ts) from what real
// worker-side recorders (recorder.ts) post: no database, no threads; the clock is handed in.
import { describe, expect, test } from 'vitest';
import { monoUs } from '../../src/tester/clock.js';
import { RunCollector } from '../../src/tester/collector.js';
import type { TesterConfig } from '../../src/tester/config.js';
import type { FromWorker } from '../../src/tester/protocol.js';
import { Recorder } from '../../src/tester/recorder.js';
import { errorsText } from '../../src/ui/tester/format.js';

type Progress = Extract<FromWorker, { type: 'PROGRESS' }>;

const config = { senders: 1, receivers: 1, messagesPerSender: 100, warmupMs: 0, groups: 0 } as unknown as TesterConfig;
const frame = (c: RunCollector, elapsedMs: number) =>
  c.snapshot({ elapsedMs, phase: 'sending', interrupted: false, totalToSend: 100, lastError: undefined, faults: [], drain: undefined });

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
