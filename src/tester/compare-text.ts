// `smq tester compare` as text: the two runs named, what differs in their settings, then one
// table of throughput and every percentile with the change and the noise.
import type { Comparison, ComparisonRow } from './compare.js';

export interface RunLabel {
  readonly file: string;
  readonly startedAt?: string | undefined;
  readonly verdict?: string | undefined;
}

const GROUP_TITLE: Record<string, string> = {
  throughput: 'throughput (msg/s)',
  endToEnd: 'end-to-end (ms)',
  endToEndService: 'end-to-end from the send (ms)',
  send: 'send (ms)',
  sendService: 'send, the call alone (ms)',
  receive: 'receive (ms)',
  ack: 'ack (ms)',
  scheduleLag: 'schedule lag (ms)',
};
/** The store's differences (compare.ts storeChanges) read as words; their values are shown as they are. */
const STORE_LABEL: Record<string, string> = { store: 'store', storeVersion: 'store version', schema: 'schema' };
/** A store's name or version as it is, unless it holds a control character (a doctored report). */
const plain = (v: unknown) => (typeof v === 'string' && !/[\x00-\x1f\x7f]/.test(v) ? v : JSON.stringify(v));
const METRIC_LABEL: Record<string, string> = { sendPerSec: 'send', receivePerSec: 'receive', p999: 'p99.9' };

const num = (n: number) =>
  Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 2 });
/** Beyond this a change (or the noise) in percent is shown as '>+99999%': a baseline near 0 gives any size. */
const PCT_SHOWN = 99_999;
const pct = (n: number | null) => (n === null ? 'n/a' : n > PCT_SHOWN ? `>+${PCT_SHOWN}%` : `${n > 0 ? '+' : ''}${n.toFixed(1)}%`);

function mark(r: ComparisonRow, maxRegressionPct: number): string {
  if (r.regression) return `regression (worse by more than ${maxRegressionPct}%)`;
  if (r.beyondNoise) return r.better === 'higher' ? (r.changePct! > 0 ? 'better' : 'worse') : r.changePct! < 0 ? 'better' : 'worse';
  return '';
}

function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === 0 || i === r.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

export function formatComparison(c: Comparison, baseline: RunLabel, next: RunLabel): string {
  const out: string[] = ['smq tester compare', ''];
  const label = (what: string, r: RunLabel) => `${what}  ${r.file}${r.startedAt ? `  ${r.startedAt}` : ''}  verdict ${r.verdict ?? '?'}`;
  out.push(label('baseline', baseline), label('new     ', next));
  if (c.configChanges.length > 0) {
    const changes = c.configChanges.map((d) => {
      const store = STORE_LABEL[d.key];
      return store
        ? `${store} ${plain(d.baseline)} → ${plain(d.next)}`
        : `${d.key} ${JSON.stringify(d.baseline)} → ${JSON.stringify(d.next)}`;
    });
    out.push(`settings differ (not like for like): ${changes.join(', ')}`);
  }
  out.push('');
  const rows: string[][] = [['', 'baseline', 'new', 'change', 'noise', '']];
  let group = '';
  for (const r of c.rows) {
    if (r.group !== group) {
      group = r.group;
      rows.push([GROUP_TITLE[group] ?? group, '', '', '', '', '']);
    }
    const noise = r.noisePct === null ? 'n/a' : r.noisePct > PCT_SHOWN ? `>±${PCT_SHOWN}%` : `±${r.noisePct.toFixed(1)}%`;
    rows.push([
      `  ${METRIC_LABEL[r.metric] ?? r.metric}`,
      num(r.baseline),
      num(r.next),
      pct(r.changePct),
      noise,
      mark(r, c.maxRegressionPct),
    ]);
  }
  out.push(...table(rows), '');
  for (const [run, names] of [
    ['the baseline', c.noSamples.baseline],
    ['the new run', c.noSamples.next],
  ] as const) {
    const titles = names.map((n) => GROUP_TITLE[n]?.replace(/ \(.*\)$/, '') ?? n);
    if (titles.length > 0) out.push(`${run} has no latency samples for ${titles.join(', ')} (rows left out)`);
  }
  out.push("noise: two standard errors of the difference, from each run's per-second series (n/a: the series cannot tell)");
  out.push(
    c.regressions.length === 0
      ? `no regression beyond ${c.maxRegressionPct}%`
      : `${c.regressions.length} regression${c.regressions.length === 1 ? '' : 's'} beyond ${c.maxRegressionPct}%: ${c.regressions
          .map(
            (r) => `${GROUP_TITLE[r.group]?.replace(/ \(.*\)$/, '') ?? r.group} ${METRIC_LABEL[r.metric] ?? r.metric} ${pct(r.changePct)}`,
          )
          .join(', ')}`,
  );
  return out.join('\n') + '\n';
}
