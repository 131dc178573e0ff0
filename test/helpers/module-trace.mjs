// Preloaded with --import (NODE_OPTIONS) by cli-startup.test.ts: writes the URL of every
// module the process resolves, one a line, to the file named by SMQ_TEST_MODULE_TRACE.
import { register } from 'node:module';

if (process.env.SMQ_TEST_MODULE_TRACE) register(new URL('./module-trace-hooks.mjs', import.meta.url));
