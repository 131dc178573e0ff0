// The resolve hook of module-trace.mjs. It runs on the loader's thread and writes each URL
// there and then, before the module loads: a process that exits at once loses none of them.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (!r.url.startsWith('node:')) appendFileSync(process.env.SMQ_TEST_MODULE_TRACE, r.url + '\n');
  return r;
}
