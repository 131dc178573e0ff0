// The FIFO checker (checker-fifo.ts) as a function of its events: group overlap and
// reordered, the batch exemption, redeliveries, and the benefit of the doubt when a delete
// and a receive overlapped in time. Also through DeliveryChecker's summary and the verdict.
import { describe, expect, test } from 'vitest';
import { DeliveryChecker, hasViolations } from '../../src/tester/checker.js';
import { FifoChecker } from '../../src/tester/checker-fifo.js';
import { formatReport } from '../../src/tester/report-text.js';

const BASE = 1_700_000_000_000;
const VT = 30_000;
const GROUPS = 4;
/** seq of the k-th message of a group from a sender (body.ts groupOf: group = seq mod N). */
const seqOf = (group: number, k: number) => k * GROUPS + group;

/** A receive call of one receiver: its deliveries share its start key; it ends endUs. */
interface Call {
  readonly receiver: number;
  readonly keyUs: number;
  readonly endUs: number;
  /** Queue clock, ms after BASE. */
  readonly atMs: number;
  readonly vtMs?: number;
}

function deliver(f: FifoChecker, call: Call, ...messages: readonly [sender: number, seq: number][]) {
  for (const [sender, seq] of messages) {
    f.delivery({
      sender,
      seq,
      startMs: BASE + call.atMs,
      leaseMs: BASE + call.atMs + (call.vtMs ?? VT),
      receiver: call.receiver,
      callKeyUs: call.keyUs,
      callEndUs: call.endUs,
    });
  }
}

const nothingDelivered = () => false;
const everythingDelivered = () => true;

describe('FifoChecker', () => {
  test('a group read in order, each batch acknowledged before the next read: clean', () => {
    const f = new FifoChecker(GROUPS);
    let t = 0;
    for (let k = 0; k < 10; k += 2) {
      // Receivers take turns; a batch carries two consecutive messages of group 1 (allowed).
      const call = { receiver: k % 3, keyUs: t, endUs: t + 500, atMs: t / 1000 };
      deliver(f, call, [0, seqOf(1, k)], [0, seqOf(1, k + 1)]);
      f.ack(0, seqOf(1, k), t + 600, true);
      f.ack(0, seqOf(1, k + 1), t + 600, true);
      t += 1000;
    }
    expect(f.summarize(everythingDelivered)).toMatchObject({ groupOverlap: 0, reordered: 0 });
  });

  test('group overlap and reordered: a later message of the group read by another call while the first is leased', () => {
    const f = new FifoChecker(GROUPS);
    deliver(f, { receiver: 0, keyUs: 1000, endUs: 2000, atMs: 1 }, [0, seqOf(2, 0)]);
    deliver(f, { receiver: 1, keyUs: 3000, endUs: 4000, atMs: 3 }, [0, seqOf(2, 1)]);
    // The first one's delete started after the second read had returned.
    f.ack(0, seqOf(2, 0), 5000, true);
    f.ack(0, seqOf(2, 1), 5100, true);
    const s = f.summarize(everythingDelivered);
    expect(s).toMatchObject({ groupOverlap: 1, reordered: 1 });
    expect(s.examples.groupOverlap).toEqual([{ sender: 0, seq: seqOf(2, 1) }]);
    expect(s.examples.reordered).toEqual([{ sender: 0, seq: seqOf(2, 1) }]);
  });

  test('a delete that overlapped the later receive call gets the benefit of the doubt', () => {
    const f = new FifoChecker(GROUPS);
    deliver(f, { receiver: 0, keyUs: 1000, endUs: 2000, atMs: 1 }, [0, seqOf(0, 0)]);
    // Receiver 1's read started at 3000 and returned at 4000; receiver 0's delete started at 3500
    // and ended at 4200 (after the read's start: it reaches the checker later).
    deliver(f, { receiver: 1, keyUs: 3000, endUs: 4000, atMs: 3 }, [0, seqOf(0, 1)]);
    f.ack(0, seqOf(0, 0), 3500, true);
    expect(f.summarize(everythingDelivered)).toMatchObject({ groupOverlap: 0, reordered: 0 });
  });

  test('other senders and other groups are other lanes: an expired lease overlaps nothing', () => {
    const f = new FifoChecker(GROUPS);
    deliver(f, { receiver: 0, keyUs: 1000, endUs: 2000, atMs: 0, vtMs: 1000 }, [0, seqOf(3, 0)]);
    // After the lease ended: sender 1's message of the same group, and sender 0's of another group.
    deliver(f, { receiver: 1, keyUs: 3000, endUs: 4000, atMs: 1500 }, [1, seqOf(3, 0)], [0, seqOf(1, 0)]);
    f.ack(0, seqOf(3, 0), 9000, true);
    expect(f.summarize(everythingDelivered)).toMatchObject({ groupOverlap: 0, reordered: 0 });
  });

  test('after the lease ran out: the earlier message redelivered with the next in one batch is clean; the next alone is reordered', () => {
    const clean = new FifoChecker(GROUPS);
    deliver(clean, { receiver: 0, keyUs: 1000, endUs: 2000, atMs: 0, vtMs: 1000 }, [0, seqOf(0, 0)]);
    deliver(clean, { receiver: 1, keyUs: 3000, endUs: 4000, atMs: 1500 }, [0, seqOf(0, 0)], [0, seqOf(0, 1)]);
    clean.ack(0, seqOf(0, 0), 6000, true); // the slow first receiver
    clean.ack(0, seqOf(0, 0), 6100, false);
    clean.ack(0, seqOf(0, 1), 6100, true);
    expect(clean.summarize(everythingDelivered)).toMatchObject({ groupOverlap: 0, reordered: 0 });

    const wrong = new FifoChecker(GROUPS);
    deliver(wrong, { receiver: 0, keyUs: 1000, endUs: 2000, atMs: 0, vtMs: 1000 }, [0, seqOf(0, 0)]);
    deliver(wrong, { receiver: 1, keyUs: 3000, endUs: 4000, atMs: 1500 }, [0, seqOf(0, 1)]);
    wrong.ack(0, seqOf(0, 0), 6000, true);
    expect(wrong.summarize(everythingDelivered)).toMatchObject({ groupOverlap: 0, reordered: 1 });
  });

  test("a message handed out again inside its lease, with the next of its group: the next overlaps the first receiver's hold", () => {
    const f = new FifoChecker(GROUPS);
    deliver(f, { receiver: 0, keyUs: 1000, endUs: 2000, atMs: 1 }, [0, seqOf(0, 0)]);
    // Its lease cut short from outside: another read takes it again, and the next one with it.
    deliver(f, { receiver: 1, keyUs: 3000, endUs: 4000, atMs: 3 }, [0, seqOf(0, 0)], [0, seqOf(0, 1)]);
    f.ack(0, seqOf(0, 0), 5000, true); // receiver 0, still working on it meanwhile
    f.ack(0, seqOf(0, 0), 5100, false);
    f.ack(0, seqOf(0, 1), 5100, true);
    const s = f.summarize(everythingDelivered);
    expect(s).toMatchObject({ groupOverlap: 1, reordered: 0 });
    expect(s.examples.groupOverlap).toEqual([{ sender: 0, seq: seqOf(0, 1) }]);
  });

  test('the later delivery reported first (calls overlapping in time) is still an overlap', () => {
    const f = new FifoChecker(GROUPS);
    // Receiver 0's call started first but reached the database after receiver 1's.
    deliver(f, { receiver: 0, keyUs: 1000, endUs: 4000, atMs: 3 }, [1, seqOf(0, 0)]);
    deliver(f, { receiver: 1, keyUs: 1500, endUs: 2000, atMs: 2 }, [0, seqOf(0, 0)]);
    f.ack(1, seqOf(0, 0), 5000, true);
    f.ack(0, seqOf(0, 0), 5000, true);
    const s = f.summarize(everythingDelivered);
    expect(s.groupOverlap).toBe(1);
    expect(s.examples.groupOverlap).toEqual([{ sender: 1, seq: seqOf(0, 0) }]);
  });

  test('an earlier message never acknowledged: confirmed at the end if it was delivered, not if it never came', () => {
    const delivered = new FifoChecker(GROUPS);
    deliver(delivered, { receiver: 0, keyUs: 1000, endUs: 2000, atMs: 0, vtMs: 500 }, [0, seqOf(1, 0)]);
    deliver(delivered, { receiver: 1, keyUs: 3000, endUs: 4000, atMs: 1000 }, [0, seqOf(1, 1)]);
    expect(delivered.summarize(everythingDelivered)).toMatchObject({ reordered: 1 });

    // seq 1's earlier message was never delivered (lost, reported as such elsewhere), or its send failed.
    const lost = new FifoChecker(GROUPS);
    deliver(lost, { receiver: 1, keyUs: 3000, endUs: 4000, atMs: 1000 }, [0, seqOf(1, 1)]);
    expect(lost.summarize(nothingDelivered)).toMatchObject({ reordered: 0 });
    const failedSend = new FifoChecker(GROUPS);
    failedSend.absent(0, seqOf(1, 0));
    deliver(failedSend, { receiver: 1, keyUs: 3000, endUs: 4000, atMs: 1000 }, [0, seqOf(1, 1)]);
    expect(failedSend.violationsSoFar).toBe(0);
    expect(failedSend.summarize(everythingDelivered)).toMatchObject({ reordered: 0 });
  });

  test('a message is counted once per class however often it overlaps', () => {
    const f = new FifoChecker(1);
    deliver(f, { receiver: 0, keyUs: 1000, endUs: 2000, atMs: 1 }, [0, 0]);
    deliver(f, { receiver: 1, keyUs: 2100, endUs: 2200, atMs: 2 }, [1, 0]);
    deliver(f, { receiver: 2, keyUs: 2300, endUs: 2400, atMs: 3 }, [1, 0]);
    f.ack(0, 0, 9000, true);
    f.ack(1, 0, 9000, true);
    expect(f.violationsSoFar).toBe(1);
    expect(f.summarize(everythingDelivered).groupOverlap).toBe(1);
  });
});

describe('FIFO classes in the delivery checker and the report', () => {
  test('they are violations, with examples, and the text report shows their row', () => {
    const fifo = new FifoChecker(GROUPS);
    const c = new DeliveryChecker({ senders: 1, capacityPerSender: 100, clockBaseMs: BASE - 1000, fifo });
    c.recordSend(0, 0, 8, 'acked');
    const both = [seqOf(0, 0), seqOf(0, 1)];
    for (const [i, seq] of both.entries()) {
      c.recordDelivery(0, seq, BASE + i, BASE + i + VT, String(seq));
      fifo.delivery({ sender: 0, seq, startMs: BASE + i, leaseMs: BASE + i + VT, receiver: i, callKeyUs: i * 10, callEndUs: i * 10 + 5 });
    }
    for (const seq of both) {
      c.recordAck(0, seq, true);
      fifo.ack(0, seq, 100, true);
    }
    const s = c.summarize({ judgeLoss: false });
    expect(s.counts).toMatchObject({ groupOverlap: 1, reordered: 1 });
    expect(hasViolations(s.counts)).toBe(true);
    expect(s.examples.reordered).toEqual([{ sender: 0, seq: seqOf(0, 1) }]);
    const text = formatReport(reportWith(s.counts, s.examples));
    expect(text).toMatch(/group overlap\s+1\s+reordered\s+1/);
    expect(text).toContain('group overlap examples: sender 0 seq 4');
  });
});

/** The least of a report formatReport reads. */
function reportWith(counts: object, examples: object): Parameters<typeof formatReport>[0] {
  return {
    verdict: 'violations',
    failure: null,
    partial: false,
    interrupted: false,
    interruptedBy: null,
    runId: 'r',
    startedAt: '',
    durationMs: 1000,
    counts: { foreign: 0, foreignDeliveries: 0, faultDeleted: 0, ...counts },
    throughput: { sendPerSec: 1, receivePerSec: 1 },
    calls: { send: 0, sendFailed: 0, receive: 0, receiveFailed: 0, receiveEmpty: 0, receiveWithMessages: 0, ack: 0, ackFailed: 0 },
    peakBacklog: 0,
    latency: {},
    latencyFrom: 'send-start',
    spectrum: {},
    series: [],
    faults: [],
    writeUnavailable: { windows: [], totalMs: 0, longestMs: 0 },
    servers: { phases: [], words: [], splitBrain: [] },
    config: { senders: 1, receivers: 2, groups: GROUPS, read: 'plain' },
    environment: { location: 'x', serverVersion: 'PostgreSQL', schema: 'pgmq', dequeue: 'safe' },
    examples,
    drain: { skipped: true, complete: false, timedOut: false, durationMs: 0, settleMs: 0 },
    queue: { name: 'q', created: false, dropped: false, messagesBefore: 0, messagesAfter: null },
    database: null,
    tester: { warnings: [], cpuPercentOfCores: 0, cores: 1, workers: [] },
    errors: { count: 0, connection: 0, other: 0, last: null },
    maxP99: null,
    hdrLog: null,
    backlog: null,
  } as unknown as Parameters<typeof formatReport>[0];
}
