// One sender: sends the run's messages (numbered by seq, carrying the run id and their send
// time) in batches, closed loop or paced (--rate), under --max-backlog if set, and records
// each call's outcome. Runs until its messages or its duration are done, or the run stops.
import type { Backend, SendInput } from '../../backends/index.js';
import { encodeBody, GROUP_HEADER, groupName, groupOf, PaddingCache } from '../body.js';
import { succeeded } from '../failures.js';
import { recordUs } from '../histograms.js';
import { waitUntil, type PaceClock } from '../pacer.js';
import { SEND_ACKED, SEND_UNCERTAIN } from '../protocol.js';
import { failed, type LoopContext, type LoopSlot } from './context.js';
import { checkServer } from './server-check.js';

class InjectedFault extends Error {}

export async function runSender(ctx: LoopContext, index: number, backend: Backend): Promise<void> {
  const { setup, recorder, clock, stop, watch, gate } = ctx;
  const { batch, sizeBytes, queue, runId, messages, durationMs, ratePerSec, faults, groups, fanout } = setup;
  const { totals, histograms, counter } = recorder;
  const { runStartUs, warmupEndUs } = recorder;
  const slot: LoopSlot = { index, backend, consecutiveErrors: 0, failingSinceUs: undefined, serverUnknown: true };
  const record = recorder.addSender(index);
  const monoUs = clock.nowUs;
  const paceClock: PaceClock = { nowUs: monoUs, sleepMs: stop.pause, stopped: () => stop.stopping };
  const padding = new PaddingCache();
  const intervalUs = ratePerSec > 0 ? (batch * 1e6) / ratePerSec : 0;
  const deadlineUs = durationMs === undefined ? Infinity : runStartUs + durationMs * 1000;
  const nth = (call: number, every: number | undefined) => every !== undefined && every > 0 && call % every === every - 1;
  // The only loop of its thread may block the thread for the last stretch of a wait.
  const exclusive = setup.indices.length === 1 && !setup.sharesThread;
  let seq = 0;
  for (let call = 0; ; call++) {
    const turn = clock.yieldNow();
    if (turn) await turn;
    if (stop.stopping) break;
    if (messages !== undefined && seq >= messages) break;
    // Connected anew (first, or after a lost connection): which server this is, before the
    // send. Asked again until it answers; the send keeps its due time meanwhile.
    if (slot.serverUnknown) {
      let server = await checkServer(ctx, 'sender', slot, seq);
      while (server === 'retry' && !stop.stopping) server = await checkServer(ctx, 'sender', slot, seq);
      if (server === 'stop') return;
      if (stop.stopping) break;
    }
    const n = messages === undefined ? batch : Math.min(batch, messages - seq);
    let intendedUs: number | undefined;
    if (intervalUs > 0) {
      // Open loop: call k is due at start + k * interval whatever happened before; when
      // late we send at once and measure from the due time (coordinated omission).
      intendedUs = runStartUs + call * intervalUs;
      if (intendedUs >= deadlineUs) {
        // The next send is due after the end: sending lasts the duration all the same (--rate 0.5
        // --duration 6s sends at 0, 2 and 4 s and ends at 6 s), and so does the window the
        // throughput is measured over (3 messages in 6 s: 0.5 msg/s).
        if ((await waitUntil(deadlineUs, paceClock, exclusive)) && totals.measuredCount > 0) recorder.measured(0, deadlineUs, deadlineUs);
        break;
      }
      // Never early (that would hide queueing delay), and late as little as possible (pacer.ts).
      if (!(await waitUntil(intendedUs, paceClock, exclusive))) break;
    }
    if (gate && !gate.tryReserve(n)) {
      // Closed loop: wait for room in the backlog. The wait happens before the send starts,
      // so it is not send latency (with --rate, the intended time still counts it).
      const waitFrom = monoUs();
      const r = await gate.reserve(
        n,
        setup.backlog!.stuckMs,
        () => stop.stopping || monoUs() >= deadlineUs,
        () => monoUs() / 1000,
      );
      totals.backlogWaitMs += (monoUs() - waitFrom) / 1000;
      if (r === 'cancelled') break;
      if (r === 'stuck') totals.backlogStuck += 1;
    }
    const startUs = monoUs();
    if (startUs >= deadlineUs) {
      gate?.release(n, false);
      // Behind its schedule when the time was up (a stall): the sends still due before the
      // deadline were never made, and no latency of theirs is in the histograms.
      if (intendedUs !== undefined) totals.scheduledNotSent += Math.floor((deadlineUs - intendedUs) / intervalUs) * batch;
      break;
    }
    const bodyOf = (k: number): SendInput => {
      const body = encodeBody({ runId, sender: index, seq: seq + k, sendStartUs: startUs, intendedUs, groups }, sizeBytes, padding);
      return groups > 0 ? { body, headers: { [GROUP_HEADER]: groupName(groupOf(seq + k, groups).group) } } : { body };
    };
    try {
      if (nth(call, faults.failSendBeforeEvery)) throw new InjectedFault('injected send failure (before the send)');
      const sinceMs = startUs / 1000;
      let ids: readonly bigint[];
      if (fanout) {
        // --topic: the keys in turn, one per call (fanout.ts keyIndexOf); ids are each queue's.
        const key = fanout.keys[Math.floor(seq / batch) % fanout.keys.length]!;
        const sent = await watch.track(
          backend.sendTopic!(
            key,
            Array.from({ length: n }, (_, k) => bodyOf(k)),
          ),
          sinceMs,
        );
        ids = sent.map((x) => x.id);
      } else if (n === 1) {
        ids = [await watch.track(backend.send(queue, bodyOf(0)), sinceMs)];
      } else {
        ids = await watch.track(
          backend.sendBatch(
            queue,
            Array.from({ length: n }, (_, k) => bodyOf(k)),
          ),
          sinceMs,
        );
      }
      if (nth(call, faults.failSendAfterEvery)) throw new InjectedFault('injected send failure (after the send)');
      const endUs = monoUs();
      succeeded(slot);
      const outage = ctx.writeOutage.succeeded(endUs);
      if (outage) recorder.writeOutage(outage.fromUs, outage.toUs);
      totals.calls.send += 1;
      totals.sent += n;
      ctx.onMessages(totals.sent);
      counter.at(recorder.secondOf(endUs)).sent += n;
      record.moved += n;
      recorder.callSeconds.record('send', recorder.secondOf(endUs), endUs - (intendedUs ?? startUs));
      record.range(seq, n, SEND_ACKED);
      if (startUs >= warmupEndUs) {
        recordUs(histograms.send, endUs - (intendedUs ?? startUs));
        if (intendedUs !== undefined) {
          recordUs(histograms.sendService, endUs - startUs);
          recordUs(histograms.scheduleLag, startUs - intendedUs);
        }
        recorder.measured(n, startUs, endUs);
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
      ctx.writeOutage.failed(startUs);
      totals.calls.send += 1;
      totals.calls.sendFailed += 1;
      totals.sendFailed += n;
      counter.at(recorder.secondOf(monoUs())).sendFailed += n;
      record.range(seq, n, SEND_UNCERTAIN);
      seq += n;
      if (e instanceof InjectedFault) {
        recorder.countError('other');
        continue;
      }
      if (!(await failed(ctx, slot, e, startUs))) return;
      continue;
    }
    seq += n;
  }
}
