// A tester worker thread. Loaded by the engine as plain JS from dist/ (new Worker(new
// URL('./worker.js', …))). It runs the parts the pool gave it (worker-part.ts): one, or a
// sender part and a receiver part that share this thread's event loop. Each part's messages
// go to the main thread tagged with its place in HostData.parts (protocol.ts ToHost/FromHost).
import { parentPort, workerData } from 'node:worker_threads';
import type { FromHost, HostData, ToHost, ToWorker } from './protocol.js';
import { runPart } from './worker-part.js';

const { parts } = workerData as HostData;
const port = parentPort!;
const handlers: ((m: ToWorker) => void)[] = [];
port.on('message', (m: ToHost) => handlers[m.part]?.(m.message));

async function main(): Promise<void> {
  const inTime = await Promise.all(
    parts.map((setup, part) =>
      runPart(setup, {
        post: (message, transfer = []) => port.postMessage({ part, message } satisfies FromHost, transfer),
        onMessage: (handler) => (handlers[part] = handler),
      }),
    ),
  );
  port.close();
  // A connection to a hung server never finishes closing and would keep this thread alive.
  if (inTime.includes(false)) process.exit(0);
}

void main();
