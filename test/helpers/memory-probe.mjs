// Loaded into a program under test with `node --expose-gc --import <this file>`: every
// PROBE_EVERY_MS (1000) it collects garbage and appends one line "<ms> <heapUsed> <rss>"
// to PROBE_OUT, and when the program exits it appends "react-build <file>" for every
// React module Node loaded (which tells the production build from the development one).
// Measuring from inside, after a full collection, makes heap growth visible in seconds.
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const out = process.env.PROBE_OUT;
if (out) {
  const Module = createRequire(import.meta.url)('node:module');
  const every = Number(process.env.PROBE_EVERY_MS ?? 1000);
  setInterval(() => {
    globalThis.gc?.();
    const m = process.memoryUsage();
    appendFileSync(out, `${Date.now()} ${m.heapUsed} ${m.rss}\n`);
  }, every).unref();
  process.on('exit', () => {
    // Only modules that ran: importing CommonJS from ESM also parses (without running) both
    // branches of React's index.js to learn their export names.
    const react = Object.entries(Module._cache)
      .filter(([f, m]) => m.loaded && /[/\\]react(-reconciler)?[/\\]cjs[/\\]/.test(f))
      .map(([f]) => f);
    appendFileSync(out, react.map((f) => `react-build ${f}\n`).join(''));
  });
}
