// Checker memory per message: fills a DeliveryChecker with N messages (every one sent,
// delivered and acknowledged) and measures its typed arrays and the process's memory.
// Run with --expose-gc so the before/after numbers are not garbage.
//   node --expose-gc bench/checker-memory.js 10000000
import { DeliveryChecker } from '../dist/tester/checker.js';

const n = Number(process.argv[2] ?? 1_000_000);
const senders = 8;
const perSender = Math.ceil(n / senders);
const gc = globalThis.gc ?? (() => undefined);

gc();
const before = process.memoryUsage();
const started = performance.now();
const checker = new DeliveryChecker({ senders, capacityPerSender: perSender });
const t0 = Date.now();
let total = 0;
for (let s = 0; s < senders && total < n; s++) {
  const count = Math.min(perSender, n - total);
  checker.recordSend(s, 0, count, 'acked');
  for (let q = 0; q < count; q++) {
    checker.recordDelivery(s, q, t0 + q, t0 + q + 30_000);
    checker.recordAck(s, q, true);
  }
  total += count;
}
const summary = checker.summarize({ judgeLoss: true });
const elapsedMs = performance.now() - started;
gc();
const after = process.memoryUsage();
if (summary.counts.ok !== n) throw new Error(`expected ${n} ok, got ${summary.counts.ok}`);
const mb = (b) => Math.round((b / 2 ** 20) * 10) / 10;
process.stdout.write(
  JSON.stringify({
    messages: n,
    typedArrayBytes: checker.byteLength,
    bytesPerMessage: checker.byteLength / n,
    typedArrayMiB: mb(checker.byteLength),
    arrayBuffersDeltaMiB: mb(after.arrayBuffers - before.arrayBuffers),
    heapUsedDeltaMiB: mb(after.heapUsed - before.heapUsed),
    rssDeltaMiB: mb(after.rss - before.rss),
    eventsPerSec: Math.round((n * 2) / (elapsedMs / 1000)),
  }) + '\n',
);
