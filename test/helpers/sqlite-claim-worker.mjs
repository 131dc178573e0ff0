// A receiver for the SQLite concurrency tests, run as a worker thread or a child process.
// Plain JS because vitest transforms TypeScript only in its own thread: it loads the built
// backend from dist/ (npm test builds first; the test rebuilds when dist is stale).
//
// Protocol: it opens the file, sends {type:'ready'}, waits for {type:'go'}, receives in a loop
// until the queue has been empty `emptyRounds` times in a row, then sends {type:'done', ids}
// with every id it was handed, as decimal strings, in the order received.
import { parentPort, workerData } from 'node:worker_threads';

const backendUrl = new URL('../../dist/backends/sqlite/backend.js', import.meta.url);

/** Thread: parentPort + workerData. Process: process.send + JSON in argv[2]. */
const channel = parentPort
  ? {
      config: workerData,
      send: async (m) => parentPort.postMessage(m),
      on: (fn) => parentPort.on('message', fn),
      close: () => parentPort.close(),
    }
  : {
      config: JSON.parse(process.argv[2] ?? '{}'),
      send: (m) => new Promise((resolve) => process.send(m, undefined, undefined, () => resolve())),
      on: (fn) => process.on('message', fn),
      close: () => process.disconnect?.(),
    };

async function main() {
  const { path, queue, qty, vtSec, dequeue, naivePauseMs, emptyRounds = 3 } = channel.config;
  const { openSqliteBackend } = await import(backendUrl.href);
  const backend = await openSqliteBackend(path, {});
  const go = new Promise((resolve) => channel.on((m) => m?.type === 'go' && resolve()));
  channel.send({ type: 'ready' });
  await go;

  const ids = [];
  let empty = 0;
  while (empty < emptyRounds) {
    const messages = await backend.receive(queue, { qty, vtSec, dequeue, naivePauseMs });
    if (messages.length === 0) {
      empty += 1;
      continue;
    }
    empty = 0;
    for (const m of messages) ids.push(m.id.toString());
  }
  await backend.close();
  await channel.send({ type: 'done', ids });
  channel.close();
}

main().catch(async (e) => {
  await channel.send({ type: 'error', message: e?.message ?? String(e), kind: e?.kind });
  channel.close();
});
