// `smq tester --html FILE`: one self-contained HTML file of a run, readable without a network
// and by a colleague who was not there: charts drawn by uPlot (its script and styles inlined),
// the verdict with every class, the settings, the environment and the warnings. Everything in
// it that comes from the run (queue names, server strings, errors) is escaped; the report's
// JSON rides along in a script element of type application/json, with '<' escaped.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CLASS_WORDS, TABLE_CLASSES } from '../classes.js';
import type { TesterReport } from '../report.js';
import { formatReport, perSecText, refText } from '../report-text.js';
import { CHARTS_SCRIPT } from './charts-script.js';

const require = createRequire(import.meta.url);
const asset = (path: string) => readFileSync(require.resolve(path), 'utf8');

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
/** JSON inside a script element: nothing in it may close the element or open a comment. */
const scriptJson = (v: unknown) =>
  JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 20px; color: #222; max-width: 1140px; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 4px; font-weight: 600; color: #fff; }
.v-clean { background: #2ca02c; } .v-violations { background: #d62728; } .v-failed, .v-interrupted, .v-incomplete { background: #ff7f0e; }
table { border-collapse: collapse; } td, th { padding: 2px 10px 2px 0; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.legend-note { color: #666; font-size: 12px; }
pre { background: #f6f6f6; padding: 10px; overflow-x: auto; font-size: 12px; }
`;

/** --topic: each bound queue's copies, judged. */
function fanoutTable(f: NonNullable<TesterReport['fanout']>): string {
  const n = (v: number) => `<td class="n">${v.toLocaleString('en-US')}</td>`;
  const keys = f.keys.map((k) => `<li>${escapeHtml(k.key)} → ${escapeHtml(k.queues.join(', ') || '(no queue)')}</li>`).join('');
  const rows = f.queues
    .map(
      (q) =>
        `<tr><td>${escapeHtml(q.queue)}</td><td>${escapeHtml(q.patterns.join(' '))}</td>${n(q.expected)}${n(q.ok)}${n(q.lost)}${n(q.unexpected)}${n(q.other)}</tr>`,
    )
    .join('\n');
  return `<h2>Fan-out, queue by queue</h2><ul>${keys}</ul>
<table><tr><th>queue</th><th>patterns</th><th>expected</th><th>ok</th><th>lost</th><th>unexpected</th><th>other</th></tr>
${rows}</table>`;
}

/** baseline: an earlier run's report (its JSON), drawn dashed on the same axes. */
export function htmlReport(r: TesterReport, baseline?: unknown): string {
  const counts = r.counts as unknown as Record<string, number | null>;
  const examples = r.examples as unknown as Record<string, readonly Parameters<typeof refText>[0][]>;
  const classRows = TABLE_CLASSES.map((k) => {
    const ex = (examples[k] ?? []).slice(0, 5).map(refText).join('; ');
    return `<tr><td>${CLASS_WORDS[k].label}</td><td class="n">${counts[k] === null ? 'not judged' : (counts[k] ?? 0).toLocaleString('en-US')}</td><td>${escapeHtml(CLASS_WORDS[k].meaning)}</td><td>${escapeHtml(ex)}</td></tr>`;
  }).join('\n');
  const title = `smq tester ${r.startedAt}: ${r.verdict}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)}</title>
<style>${asset('uplot/dist/uPlot.min.css')}${STYLE}</style></head>
<body>
<h1>smq tester <span class="verdict v-${escapeHtml(r.verdict)}">${escapeHtml(r.verdict)}</span></h1>
<div>${escapeHtml(r.environment['location'] as string)} · started ${escapeHtml(r.startedAt)} · ${(r.durationMs / 1000).toFixed(1)} s ·
send ${perSecText(r, 'send')} · receive ${perSecText(r, 'receive')}</div>
<p class="legend-note">Shaded: warm-up (not in the statistics). Red lines: faults. Orange ticks: seconds with failed calls.${
    baseline === undefined ? '' : ' Dashed: the baseline run, second for second from its start.'
  }</p>
<h2>Throughput</h2><div id="c-throughput"></div>
<h2>Latency over time</h2><div id="c-latency"></div><div id="c-calls"></div>
<h2>Latency by percentile</h2><div id="c-spectrum"></div>
<h2>Backlog</h2><div id="c-backlog"></div>
${r.backlog ? `<p>Senders waited for room (--max-backlog ${r.backlog.max}) ${(r.backlog.senderWaitShare * 100).toFixed(0)}% of the time.</p>` : ''}
<h2>Every message, judged</h2>
<table><tr><th>class</th><th>count</th><th>meaning</th><th>examples</th></tr>
${classRows}</table>
${r.fanout ? fanoutTable(r.fanout) : ''}
<h2>The whole report</h2>
<pre>${escapeHtml(formatReport(r))}</pre>
<pre id="smq-status" hidden></pre>
<script type="application/json" id="smq-report">${scriptJson(r)}</script>
${baseline === undefined ? '' : `<script type="application/json" id="smq-baseline">${scriptJson(baseline)}</script>`}
<script>${asset('uplot/dist/uPlot.iife.min.js')}</script>
<script>${CHARTS_SCRIPT}</script>
</body></html>
`;
}
