// The resolve hook of module-trace.mjs: runs on the loader's thread, posts each URL back.
let port;
export function initialize(data) {
  port = data.port;
}
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (!r.url.startsWith('node:')) port.postMessage(r.url);
  return r;
}
