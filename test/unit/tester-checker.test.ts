import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { CHUNK_SIZE, DeliveryChecker, hasViolations } from '../../src/tester/checker.js';

const BASE = 1_700_000_000_000;
const VT = 30_000;
const newChecker = (capacityPerSender: number | undefined = 100, senders = 2) =>
  new DeliveryChecker({ senders, capacityPerSender, clockBaseMs: BASE - 1000 });

/** One delivery starting at t ms after BASE with a VT lease. */
const deliver = (c: DeliveryChecker, sender: number, seq: number, t: number, id = `${sender}-${seq}`) =>
  c.recordDelivery(sender, seq, BASE + t, BASE + t + VT, id);

describe('DeliveryChecker classes', () => {
  test('ok: sent, delivered once, deleted once', () => {
    const c = newChecker();
    c.recordSend(0, 0, 3, 'acked');
    for (let q = 0; q < 3; q++) {
      deliver(c, 0, q, q);
      c.recordAck(0, q, true);
    }
    const s = c.summarize({ judgeLoss: true });
    expect(s.counts).toMatchObject({ sent: 3, received: 3, receivedUnique: 3, acknowledged: 3, ok: 3, lost: 0 });
    expect(hasViolations(s.counts)).toBe(false);
    expect(c.ackedDelivered).toBe(3);
  });

  test('lost: an acknowledged send that never arrived; not judged when the run could not drain', () => {
    const c = newChecker();
    c.recordSend(1, 5, 1, 'acked');
    expect(c.summarize({ judgeLoss: true }).counts.lost).toBe(1);
    expect(c.summarize({ judgeLoss: true }).examples.lost).toEqual([{ sender: 1, seq: 5 }]);
    const unjudged = c.summarize({ judgeLoss: false }).counts;
    expect(unjudged.lost).toBe(0);
    expect(unjudged.notDrained).toBe(1);
  });

  test('double-dequeue: a second delivery starting inside the first lease', () => {
    const c = newChecker();
    c.recordSend(0, 0, 1, 'acked');
    // The same row (the same queue id) handed out twice.
    deliver(c, 0, 0, 0, '41');
    deliver(c, 0, 0, 5, '41');
    c.recordAck(0, 0, true);
    c.recordAck(0, 0, false);
    const s = c.summarize({ judgeLoss: true });
    expect(s.counts.doubleDequeued).toBe(1);
    expect(s.counts.ackFailed).toBe(1);
    expect(s.examples.doubleDequeued).toEqual([{ sender: 0, seq: 0, id: '41' }]);
    expect(hasViolations(s.counts)).toBe(true);
  });

  test('double-dequeue is found when the later delivery is reported first', () => {
    const c = newChecker();
    c.recordSend(0, 0, 1, 'acked');
    deliver(c, 0, 0, 5);
    deliver(c, 0, 0, 0);
    expect(c.summarize({ judgeLoss: true }).counts.doubleDequeued).toBe(1);
  });

  test('redelivered: the next delivery starts when the lease has expired (boundary included)', () => {
    const c = newChecker();
    c.recordSend(0, 0, 2, 'acked');
    deliver(c, 0, 0, 0);
    deliver(c, 0, 0, VT); // starts exactly at the end of the first lease
    // and reported out of order: the earlier lease ends no later than the later start
    deliver(c, 0, 1, VT + 10);
    deliver(c, 0, 1, 10);
    c.recordAck(0, 0, true);
    c.recordAck(0, 1, true);
    const s = c.summarize({ judgeLoss: true });
    expect(s.counts.redelivered).toBe(2);
    expect(s.counts.doubleDequeued).toBe(0);
    expect(hasViolations(s.counts)).toBe(false);
  });

  test('resurrected: delivered after its delete succeeded', () => {
    const c = newChecker();
    c.recordSend(0, 0, 1, 'acked');
    deliver(c, 0, 0, 0);
    c.recordAck(0, 0, true);
    deliver(c, 0, 0, 1);
    const s = c.summarize({ judgeLoss: true });
    expect(s.counts.resurrected).toBe(1);
    expect(s.examples.resurrected).toEqual([{ sender: 0, seq: 0, id: '0-0' }]);
  });

  test('duplicated: a copy under a new queue id, delivered after the first lease expired and before the delete (issue 13 item 17)', () => {
    const c = newChecker();
    c.recordSend(0, 0, 3, 'acked');
    deliver(c, 0, 0, 0, '100');
    deliver(c, 0, 0, VT + 1, '900'); // another row with the same key: not a redelivery
    c.recordAck(0, 0, true, '100');
    c.recordAck(0, 0, true, '900');
    // A second successful delete of one key under another id: a second row.
    deliver(c, 0, 1, 0, '101');
    c.recordAck(0, 1, true, '101');
    c.recordAck(0, 1, true, '555');
    // ... under the same id: the row came back after its delete.
    deliver(c, 0, 2, 0, '102');
    c.recordAck(0, 2, true, '102');
    c.recordAck(0, 2, true, '102');
    const s = c.summarize({ judgeLoss: true });
    expect(s.counts).toMatchObject({ duplicated: 2, redelivered: 0, doubleDequeued: 0, resurrected: 1, ok: 0 });
    expect(s.examples.duplicated).toEqual([
      { sender: 0, seq: 0, id: '900' },
      { sender: 0, seq: 1, id: '555' },
    ]);
    expect(hasViolations(s.counts)).toBe(true);
    expect(c.violationsSoFar).toBe(3);
  });

  test('violations so far count every message, not the 10 examples kept of each class', () => {
    // The live view stopped at "violations so far 10" while the report said 1,417 double-dequeued.
    const c = newChecker(100, 1);
    c.recordSend(0, 0, 25, 'acked');
    for (let seq = 0; seq < 25; seq++) {
      deliver(c, 0, seq, 0);
      deliver(c, 0, seq, 10); // within the first lease: a double dequeue
    }
    expect(c.violationsSoFar).toBe(25);
    expect(c.summarize({ judgeLoss: false }).counts.doubleDequeued).toBe(25);
  });

  test('rows read back after the run: resurrected, duplicated, unexpected, not drained', () => {
    const c = newChecker(10, 2);
    c.recordSend(0, 0, 5, 'acked');
    deliver(c, 0, 0, 0, '1');
    c.recordAck(0, 0, true, '1');
    expect(c.recordInQueue(0, 0, '1')).toBe('resurrected'); // its delete did not stick
    deliver(c, 0, 1, 0, '2');
    c.recordAck(0, 1, true, '2');
    expect(c.recordInQueue(0, 1, '77')).toBe('duplicated'); // a row under another id
    deliver(c, 0, 2, 0, '3');
    expect(c.recordInQueue(0, 2, '3')).toBe('known'); // delivered, its delete failed
    expect(c.recordInQueue(0, 3, '4')).toBe('notDrained');
    expect(c.recordInQueue(0, 4, '5')).toBe('notDrained');
    expect(c.recordInQueue(0, 4, '6', true)).toBe('duplicated'); // the same key twice in the queue
    expect(c.recordInQueue(1, 0, '8')).toBe('unexpected'); // never sent
    expect(c.recordInQueue(1, 99, '9')).toBe('unexpected'); // past --messages
    const s = c.summarize({ judgeLoss: true });
    expect(s.counts).toMatchObject({ resurrected: 1, duplicated: 2, unexpected: 2, notDrained: 1, lost: 0, notDeleted: 1 });
    expect(s.examples.resurrected).toEqual([{ sender: 0, seq: 0, id: '1' }]);
    expect(s.examples.unexpected.map((r) => r.id).sort()).toEqual(['8', '9']);
  });

  test('an acknowledgement recorded before any delivery still makes a later redelivery a resurrection', () => {
    const c = newChecker();
    c.recordSend(0, 0, 1, 'acked');
    c.recordAck(0, 0, true);
    deliver(c, 0, 0, 0);
    deliver(c, 0, 0, 1);
    expect(c.summarize({ judgeLoss: true }).counts.resurrected).toBe(1);
  });

  test('unexpected: carries the run id but was never sent (in range, out of range, unreadable)', () => {
    const c = newChecker(10, 2);
    deliver(c, 0, 3, 0, 'x1'); // in range, no send report
    deliver(c, 7, 0, 0, 'x2'); // no such sender
    deliver(c, 1, 10, 0, 'x3'); // past --messages
    deliver(c, 1, 10, 0, 'x3'); // the same one again counts once
    c.recordMalformed('x4');
    const s = c.summarize({ judgeLoss: true });
    expect(s.counts.unexpected).toBe(4);
    expect(s.examples.unexpected.map((r) => r.id).sort()).toEqual(['x1', 'x2', 'x3', 'x4']);
  });

  test('a delivery reported before its send is not unexpected', () => {
    const c = newChecker();
    deliver(c, 0, 0, 0);
    c.recordAck(0, 0, true);
    c.recordSend(0, 0, 1, 'acked');
    const s = c.summarize({ judgeLoss: true });
    expect(s.counts).toMatchObject({ ok: 1, unexpected: 0 });
    expect(c.ackedDelivered).toBe(1);
  });

  test('uncertain: a failed send is never lost, whether or not it arrived', () => {
    const c = newChecker();
    c.recordSend(0, 0, 2, 'uncertain');
    deliver(c, 0, 1, 0);
    c.recordAck(0, 1, true);
    const s = c.summarize({ judgeLoss: true });
    expect(s.counts).toMatchObject({ uncertain: 2, lost: 0, unexpected: 0, sendFailed: 2 });
    expect(hasViolations(s.counts)).toBe(false);
  });

  test('at most maxExamples examples per class', () => {
    const c = new DeliveryChecker({ senders: 1, capacityPerSender: 50, maxExamples: 10 });
    c.recordSend(0, 0, 50, 'acked');
    expect(c.summarize({ judgeLoss: true }).examples.lost).toHaveLength(10);
  });

  test('open-ended runs grow per sender, but not without bound past the last report', () => {
    const c = new DeliveryChecker({ senders: 1, clockBaseMs: BASE });
    c.recordSend(0, 0, 10, 'acked');
    c.recordSend(0, 3 * CHUNK_SIZE, 1, 'acked');
    deliver(c, 0, 3 * CHUNK_SIZE, 0);
    c.recordAck(0, 3 * CHUNK_SIZE, true);
    deliver(c, 0, 2 ** 30, 0, 'far'); // far beyond anything sent: unexpected, no allocation
    const s = c.summarize({ judgeLoss: true });
    expect(s.counts).toMatchObject({ sent: 11, lost: 10, ok: 1, unexpected: 1 });
    expect(c.byteLength).toBe(2 * CHUNK_SIZE * 15);
  });

  test('15 bytes per message', () => {
    const n = 1_000_003;
    const c = new DeliveryChecker({ senders: 1, capacityPerSender: n });
    c.recordSend(0, 0, n, 'acked');
    expect(c.byteLength).toBe(n * 15);
  });
});

// A reference model with one object per message and the full list of its deliveries:
// slow and obvious. The checker must agree with it on every history.
type Ev = { kind: 'deliver'; seq: number; t: number } | { kind: 'ack'; seq: number; ok: boolean };
function referenceClasses(sent: ('acked' | 'uncertain' | 'none')[], events: Ev[]) {
  const msgs = sent.map((s) => ({
    s,
    deliveries: [] as [number, number][],
    deletedAt: -1,
    double: false,
    dup: false,
    res: false,
    red: false,
  }));
  events.forEach((e, order) => {
    const m = msgs[e.seq]!;
    if (e.kind === 'ack') {
      if (e.ok && m.deletedAt < 0) m.deletedAt = order;
      else if (e.ok) m.dup = true; // deleted twice: two rows
      return;
    }
    const start = e.t;
    if (m.deliveries.length > 0) {
      if (m.deletedAt >= 0) m.res = true;
      else if (m.deliveries.some(([s, end]) => start >= s && start < end) || m.deliveries.some(([s]) => s > start && s < start + VT))
        m.double = true;
      else m.red = true;
    }
    m.deliveries.push([start, start + VT]);
  });
  const counts = {
    ok: 0,
    lost: 0,
    doubleDequeued: 0,
    duplicated: 0,
    redelivered: 0,
    resurrected: 0,
    unexpected: 0,
    uncertain: 0,
    notDeleted: 0,
  };
  for (const m of msgs) {
    const n = m.deliveries.length;
    if (m.s === 'none' && n === 0) continue;
    if (m.double) counts.doubleDequeued++;
    else if (m.dup) counts.duplicated++;
    else if (m.res) counts.resurrected++;
    else if (m.s === 'none') counts.unexpected++;
    else if (m.s === 'uncertain') counts.uncertain++;
    else if (n === 0) counts.lost++;
    else if (m.deletedAt < 0) counts.notDeleted++;
    else if (m.red) counts.redelivered++;
    else counts.ok++;
  }
  return counts;
}

test('property: the checker agrees with a per-message reference model (deliveries in start order)', () => {
  const N = 6;
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('acked' as const, 'uncertain' as const, 'none' as const), { minLength: N, maxLength: N }),
      fc.array(
        fc.oneof(
          fc.record({
            kind: fc.constant('deliver' as const),
            seq: fc.integer({ min: 0, max: N - 1 }),
            dt: fc.integer({ min: 0, max: 2 * VT }),
          }),
          fc.record({ kind: fc.constant('ack' as const), seq: fc.integer({ min: 0, max: N - 1 }), ok: fc.boolean() }),
        ),
        { maxLength: 30 },
      ),
      (sent, raw) => {
        // Delivery start times increase with the order of events (as the merger replays them).
        let t = 0;
        const events: Ev[] = raw.map((e) => (e.kind === 'deliver' ? { kind: 'deliver', seq: e.seq, t: (t += e.dt) } : e));
        const c = new DeliveryChecker({ senders: 1, capacityPerSender: N, clockBaseMs: BASE - 1000 });
        sent.forEach((s, seq) => {
          if (s !== 'none') c.recordSend(0, seq, 1, s);
        });
        for (const e of events) {
          if (e.kind === 'deliver') deliver(c, 0, e.seq, e.t);
          else c.recordAck(0, e.seq, e.ok);
        }
        const got = c.summarize({ judgeLoss: true }).counts;
        const want = referenceClasses(sent, events);
        expect({
          ok: got.ok,
          lost: got.lost,
          doubleDequeued: got.doubleDequeued,
          duplicated: got.duplicated,
          redelivered: got.redelivered,
          resurrected: got.resurrected,
          unexpected: got.unexpected,
          uncertain: got.uncertain,
          notDeleted: got.notDeleted,
        }).toEqual(want);
      },
    ),
    { numRuns: 500 },
  );
});

describe('delivered, not deleted by the tester (notDeleted: a class of its own, never ok)', () => {
  // Before: a message whose delete failed (or found no row) was counted ok, beside an
  // informational notDeleted; "ok 20, acknowledged 0, ack failed 20" and a clean verdict.
  test('a failed delete, a delete that found no row, and none at all: notDeleted, each reason counted; ok only for the deleted one', () => {
    const c = newChecker();
    c.recordSend(0, 0, 4, 'acked');
    for (let q = 0; q < 4; q++) deliver(c, 0, q, q);
    c.recordAck(0, 0, true, '0-0');
    c.recordAck(0, 1, false, '0-1'); // the delete call failed (an error)
    c.recordAck(0, 2, false, '0-2', true); // the call succeeded but removed no row
    // seq 3: delivered, never acknowledged
    const s = c.summarize({ judgeLoss: true });
    expect(s.counts).toMatchObject({
      sent: 4,
      received: 4,
      acknowledged: 1,
      ackFailed: 1,
      ackNotFound: 1,
      ok: 1,
      notDeleted: 3,
      notDeletedAckFailed: 1,
      notDeletedNotFound: 1,
      lost: 0,
      redelivered: 0,
    });
    expect(s.examples.notDeleted).toEqual([
      { sender: 0, seq: 1, id: '0-1' },
      { sender: 0, seq: 2, id: '0-2' },
      { sender: 0, seq: 3 },
    ]);
    expect(hasViolations(s.counts)).toBe(false);
  });

  test('a failed delete followed by a redelivery that was deleted is redelivered, not notDeleted; a redelivered message never deleted is notDeleted', () => {
    const c = newChecker();
    c.recordSend(0, 0, 2, 'acked');
    deliver(c, 0, 0, 0);
    c.recordAck(0, 0, false);
    deliver(c, 0, 0, VT + 1);
    c.recordAck(0, 0, true);
    deliver(c, 0, 1, 0);
    deliver(c, 0, 1, VT + 1);
    c.recordAck(0, 1, false);
    const s = c.summarize({ judgeLoss: true });
    expect(s.counts).toMatchObject({ ok: 0, redelivered: 1, notDeleted: 1, notDeletedAckFailed: 1, ackFailed: 2, acknowledged: 1 });
    // The examples of a class name only messages of that class.
    expect(s.examples.redelivered).toEqual([{ sender: 0, seq: 0, id: '0-0' }]);
  });

  test('every message in exactly one class: the classes add up to the messages seen', () => {
    const c = newChecker();
    c.recordSend(0, 0, 10, 'acked');
    for (let q = 0; q < 9; q++) deliver(c, 0, q, q);
    for (let q = 0; q < 9; q++) c.recordAck(0, q, q % 3 !== 0, undefined, q % 2 === 0);
    const k = c.summarize({ judgeLoss: true }).counts;
    const classes = k.ok + k.lost + k.doubleDequeued + k.duplicated + k.redelivered + k.resurrected + k.unexpected + k.uncertain;
    expect(classes + k.notDrained + k.notDeleted).toBe(10);
    expect(k.notDeleted).toBe(3);
    expect(k.ok).toBe(6);
  });
});
