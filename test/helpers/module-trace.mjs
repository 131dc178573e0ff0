// Preloaded with --import (NODE_OPTIONS) by cli-startup.test.ts: writes the URL of every
// module the process resolves, one a line, to the file named by SMQ_TEST_MODULE_TRACE.
import { register } from 'node:module';
import { appendFileSync } from 'node:fs';
import { MessageChannel } from 'node:worker_threads';

const out = process.env.SMQ_TEST_MODULE_TRACE;
if (out) {
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (url) => appendFileSync(out, url + '\n'));
  port1.unref();
  register(new URL('./module-trace-hooks.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] });
}
