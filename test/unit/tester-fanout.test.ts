// The fan-out lanes (fanout.ts) as pure logic: sends recorded in the queues their key routes
// to, also when the sender's ranges join several calls; the per-queue tally through the
// checker's summary; examples named by real sender and queue.
import { describe, expect, test } from 'vitest';
import { DeliveryChecker } from '../../src/tester/checker.js';
import { FanoutTally, fanoutSummary, laneOf, recordFanoutSend, type FanoutPlan } from '../../src/tester/fanout.js';
import { refText } from '../../src/tester/report-text.js';

const BASE = 1_700_000_000_000;

function plan(): FanoutPlan {
  return {
    keys: ['k0', 'k1'],
    queues: ['qa', 'qb'],
    senders: 2,
    batch: 3,
    // k0 → qa, qb; k1 → qb only.
    routes: [
      [true, true],
      [false, true],
    ],
    patterns: [['k0'], ['#']],
    created: [],
    bound: [],
    dropped: false,
  };
}

describe('fan-out lanes', () => {
  test('a run-length range over several calls is cut at each call: each call under its own key', () => {
    const p = plan();
    const checker = new DeliveryChecker({ senders: laneOf(p, 2, 0), capacityPerSender: 12 });
    // Sender 1's 12 messages in one merged range: calls of 3 under k0, k1, k0, k1.
    recordFanoutSend(checker, p, 1, 0, 12, 'acked');
    // qa gets 6 (seq 0-2, 6-8), qb gets all 12.
    expect(checker.ackedSends).toBe(18);
    const tally = new FanoutTally(p);
    // Deliver everything in qb, and in qa seq 0-2 and 6-7 (8 lost), plus seq 3 (k1: unexpected in qa).
    let t = BASE;
    for (let seq = 0; seq < 12; seq++) checker.recordDelivery(laneOf(p, 1, 1), seq, (t += 10), t + 30_000, `${seq}`);
    for (const seq of [0, 1, 2, 6, 7, 3]) checker.recordDelivery(laneOf(p, 0, 1), seq, (t += 10), t + 30_000, `${seq + 100}`);
    // Every delivered copy deleted, but qb's seq 11: not deleted (not ok).
    for (let seq = 0; seq < 11; seq++) checker.recordAck(laneOf(p, 1, 1), seq, true, `${seq}`);
    for (const seq of [0, 1, 2, 6, 7, 3]) checker.recordAck(laneOf(p, 0, 1), seq, true, `${seq + 100}`);
    const s = fanoutSummary(checker.summarize({ judgeLoss: true, every: tally.add }), p);
    expect(tally.report().queues).toEqual([
      { queue: 'qa', patterns: ['k0'], expected: 6, ok: 5, lost: 1, unexpected: 1, other: 0, notDeleted: 0 },
      { queue: 'qb', patterns: ['#'], expected: 12, ok: 11, lost: 0, unexpected: 0, other: 0, notDeleted: 1 },
    ]);
    expect(tally.report().keys).toEqual([
      { key: 'k0', queues: ['qa', 'qb'] },
      { key: 'k1', queues: ['qb'] },
    ]);
    // The queue in a field of its own; the id is the message's (before: id 'qa', 'qa#103').
    expect(s.examples.lost).toEqual([{ sender: 1, seq: 8, queue: 'qa' }]);
    expect(s.examples.unexpected).toEqual([{ sender: 1, seq: 3, queue: 'qa', id: '103' }]);
    expect(s.examples.notDeleted).toEqual([{ sender: 1, seq: 11, queue: 'qb' }]);
    expect(refText(s.examples.lost[0]!)).toBe('sender 1 seq 8 (queue qa)');
    expect(refText(s.examples.unexpected[0]!)).toBe('sender 1 seq 3 (queue qa, id 103)');
  });
});
