// Renders COUNT different texts of SIZE characters, one after another, through Ink (with
// smq's bound on Ink's caches when BOUND=1, as `smq top` does), then prints how much the
// heap grew, after full collections, as one JSON line. Run with --expose-gc.
import { Writable } from 'node:stream';

const count = Number(process.env.COUNT ?? 20_000);
const size = Number(process.env.SIZE ?? 1000);
if (process.env.BOUND === '1') {
  const { boundInkCaches } = await import(process.env.SMQ_DIST + '/ui/ink-caches.js');
  boundInkCaches();
}
const React = (await import('react')).default;
const { render, Box, Text } = await import('ink');

const stdout = Object.assign(new Writable({ write: (_chunk, _enc, done) => done() }), { columns: 120, rows: 40, isTTY: true });
const collect = () => {
  for (let i = 0; i < 3; i++) globalThis.gc();
  return process.memoryUsage().heapUsed;
};
const page = (i) =>
  React.createElement(
    Box,
    { flexDirection: 'column', width: 100 },
    React.createElement(Text, { wrap: 'truncate-end' }, `${i} `.padEnd(size, String.fromCharCode(97 + (i % 26)))),
    React.createElement(Text, { wrap: 'truncate-end' }, `line ${i} `.padEnd(size, 'y')),
  );
const app = render(page(0), { stdout, debug: true, patchConsole: false, exitOnCtrlC: false });
for (let i = 1; i < 200; i++) app.rerender(page(i));
const before = collect();
for (let i = 200; i < count; i++) app.rerender(page(i));
const after = collect();
app.unmount();
process.stdout.write(JSON.stringify({ count, size, before, after, growth: after - before }) + '\n');
