// The final report as text: the table `smq tester` prints (report.ts builds the document).
import { fanoutText } from './fanout.js';
import type { MessageRef } from './checker.js';
import { EXAMPLE_CLASSES } from './checker.js';
import { CLASS_WORDS } from './classes.js';
import type { TesterReport } from './report.js';
import { databaseLines } from './store-figures.js';
import { givenRateText, rateText } from './warnings.js';

const fmt = (n: number, digits = 2) => (Number.isInteger(n) ? String(n) : n.toFixed(digits));
const int = (n: number) => Math.round(n).toLocaleString('en-US');
/** A class's count, or that it was not judged (null): never a 0 for what was not looked at. */
const judged = (n: number | null) => (n === null ? 'not judged' : int(n));

function table(rows: string[][], rightAlign: (col: number) => boolean): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) =>
    r
      .map((c, i) => (rightAlign(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

export function refText(r: MessageRef): string {
  if (r.sender < 0) return `id ${r.id ?? '?'}`;
  const where = [r.queue === undefined ? '' : `queue ${r.queue}`, r.id === undefined ? '' : `id ${r.id}`].filter(Boolean).join(', ');
  return `sender ${r.sender} seq ${r.seq}${where ? ` (${where})` : ''}`;
}

/**
 * The text report. Everything in it comes from the run or the database; callers escape it
 * for the terminal (queue names and server strings are not ours).
 */
/**
 * ' on 1 sender + 1 receiver thread(s)'; when worker threads run both roles' loops,
 * ' on 1 worker thread(s) shared by senders and receivers' (or how many of them are).
 */
function threadsText(t: unknown): string {
  if (typeof t !== 'object' || t === null) return '';
  const { senders, receivers, shared } = t as { senders?: unknown; receivers?: unknown; shared?: unknown };
  const both = Number(shared) > 0 ? Number(shared) : 0;
  if (both > 0) {
    const total = Number(senders) + Number(receivers) - both;
    return ` on ${total} worker thread(s)${total === both ? '' : `, ${both} of them`} shared by senders and receivers`;
  }
  const parts = [
    Number(senders) > 0 ? `${Number(senders)} sender` : '',
    Number(receivers) > 0 ? `${Number(receivers)} receiver` : '',
  ].filter(Boolean);
  return parts.length ? ` on ${parts.join(' + ')} thread(s)` : '';
}

const secs = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

/** Faults, write outages, the servers of the run and what a failover did, a few lines. */
function failoverLines(r: TesterReport): string[] {
  const out: string[] = [];
  for (const f of r.faults) {
    const writes = f.writesImpossibleMs === null ? '' : `; writes impossible for ${secs(f.writesImpossibleMs)}`;
    out.push(`fault       ${f.fault} at ${secs(f.atMs)}: ${f.detail}${writes}`);
    const tail = (f.output ?? '')
      .split('\n')
      .map((l) => l.trimEnd())
      .filter((l) => l !== '')
      .slice(-3);
    for (const l of tail) out.push(`              | ${l.length > 200 ? l.slice(0, 199) + '…' : l}`);
  }
  const wu = r.writeUnavailable;
  if (wu.windows.length > 0) {
    out.push(`writes      impossible for ${secs(wu.totalMs)} in all (${wu.windows.length} window(s), longest ${secs(wu.longestMs)})`);
  }
  const phases = r.servers.phases;
  phases.forEach((p, i) => {
    const what = [p.systemIdentifier === null ? '' : `system ${p.systemIdentifier}`, p.timeline === null ? '' : `timeline ${p.timeline}`]
      .filter(Boolean)
      .join(', ');
    const when = phases.length > 1 ? ` from ${secs(Math.max(0, p.firstSeenMs))} (${p.connections} connection(s) found it)` : '';
    out.push(`${i === 0 ? 'served by  ' : '           '} ${p.server}${what ? ` (${what})` : ''}${p.inRecovery ? ' standby' : ''}${when}`);
  });
  for (const w of r.servers.words) out.push(`failover    ${w}`);
  for (const b of r.servers.splitBrain) out.push(`SPLIT BRAIN ${b.text}`);
  return out;
}

/** A throughput as the reports show it: msg/s, or no rate when one call measured it. */
export function perSecText(r: Pick<TesterReport, 'throughput'>, role: 'send' | 'receive'): string {
  const t = r.throughput;
  return (t.noRate ?? []).includes(role) ? '– (one call: no rate)' : `${rateText(role === 'send' ? t.sendPerSec : t.receivePerSec)} msg/s`;
}

export function formatReport(r: TesterReport): string {
  const out: string[] = [];
  const env = r.environment;
  const cfg = r.config;
  const partial =
    r.failure !== null && r.partial
      ? '— FAILED, partial report'
      : r.interrupted
        ? `— INTERRUPTED (${r.interruptedBy ?? 'SIGINT'}), partial report`
        : r.failure !== null
          ? '— FAILED'
          : '';
  out.push(`smq tester ${partial}`.trimEnd());
  out.push('');
  out.push(`store       ${String(env['location'])}${env['embedded'] ? '  (embedded SQLite file in a temporary folder)' : ''}`);
  out.push(`server      ${String(env['serverVersion'])}, ${String(env['schema'])}`);
  const iso = env['isolation'] ? `, isolation ${String(env['isolation'])}` : '';
  const read = cfg['read'] !== undefined && cfg['read'] !== 'plain' ? `, read ${String(cfg['read'])}` : '';
  const poll = cfg['pollSec'] !== undefined && cfg['pollSec'] !== null ? ` (poll ${String(cfg['pollSec'])} s)` : '';
  const groups = Number(cfg['groups'] ?? 0) > 0 ? `, ${String(cfg['groups'])} FIFO groups` : '';
  const ackDelay = Number(cfg['ackDelayMs'] ?? 0) > 0 ? ` after ${fmt(Number(cfg['ackDelayMs']))} ms` : '';
  const l = r.listen;
  const listen = l ? `, --listen (notify throttle ${int(l.throttleMs)} ms, fallback ${int(l.fallbackMs)} ms)` : '';
  out.push(`dequeue     ${String(env['dequeue'])}${iso}${read}${poll}${groups}${listen}, ack by ${String(cfg['ack'])}${ackDelay}`);
  const amount =
    cfg['messagesPerSender'] !== undefined && cfg['messagesPerSender'] !== null
      ? `${int(Number(cfg['messagesPerSender']))} messages per sender`
      : cfg['durationMs']
        ? `${fmt(Number(cfg['durationMs']) / 1000)} s`
        : 'drain only';
  out.push(
    `run         ${String(cfg['senders'])} senders, ${String(cfg['receivers'])} receivers` +
      threadsText(cfg['threads']) +
      `, ${amount}, ` +
      `${String(cfg['sizeBytes'])} B bodies, batch ${String(cfg['batch'])}, vt ${String(cfg['vtSec'])} s` +
      (Number(cfg['ratePerSec']) > 0 ? `, rate ${givenRateText(Number(cfg['ratePerSec']))}/s` : '') +
      (r.backlog ? `, max backlog ${int(r.backlog.max)}` : '') +
      (Number(cfg['warmupMs']) > 0 ? `, warm-up ${fmt(Number(cfg['warmupMs']) / 1000)} s` : ''),
  );
  out.push(
    `queue       ${r.queue.name}${r.queue.created ? ' (created for the run' + (r.queue.dropped ? ', dropped after)' : ', kept)') : ''}`,
  );
  out.push(`duration    ${fmt(r.durationMs / 1000)} s, run id ${r.runId}`);
  out.push('');
  out.push(
    `throughput  send ${perSecText(r, 'send')}, receive ${perSecText(r, 'receive')}` +
      (r.backlog ? ` (senders waited for the backlog ${Math.round(r.backlog.senderWaitShare * 100)}% of the time)` : ''),
  );
  out.push('');
  const lat = r.latency;
  const rows: string[][] = [['latency (ms)', 'p50', 'p90', 'p99', 'p99.9', 'max', 'count']];
  // No sample: nothing measured, a dash in each column (never a 0 that reads as a latency).
  const ms = (v: number | null) => (v === null ? '–' : fmt(v));
  const add = (
    name: string,
    s: { p50: number | null; p90: number | null; p99: number | null; p999: number | null; max: number | null; count: number } | undefined,
  ) => {
    if (!s) return;
    if (s.count === 0) rows.push([name, '–', '–', '–', '–', '–', '0']);
    else rows.push([name, ms(s.p50), ms(s.p90), ms(s.p99), ms(s.p999), ms(s.max), int(s.count)]);
  };
  const corrected = r.latencyFrom === 'intended' ? ' *' : '';
  add(`end-to-end${corrected}`, lat.endToEnd);
  add('  service', lat.endToEndService);
  add(`send${corrected}`, lat.send);
  add('  service', lat.sendService);
  add('  schedule lag', lat.scheduleLag);
  add('receive', lat.receive);
  add('ack', lat.ack);
  out.push(...table(rows, (i) => i > 0));
  if (corrected) {
    out.push('* from the intended send time (coordinated-omission corrected); "service" from the actual send start;');
    out.push('  "schedule lag": how late the tester itself started each send');
  }
  out.push('');
  const c = r.counts;
  const crows: string[][] = [
    ['sent', int(c.sent), 'received', int(c.received), 'acknowledged', int(c.acknowledged)],
    ['ok', int(c.ok), 'lost', judged(c.lost), 'double-dequeue', int(c.doubleDequeued)],
    ['redelivered', int(c.redelivered), 'resurrected', int(c.resurrected), 'unexpected', judged(c.unexpected)],
    ['duplicated', int(c.duplicated), 'uncertain', int(c.uncertain), 'send failed', int(c.sendFailed)],
  ];
  // Not deleted by the tester (not ok): the class, and the acknowledgements that failed or found no row.
  if (c.notDeleted > 0 || c.ackNotFound > 0 || c.ackFailed > 0) {
    crows.push(['not deleted', int(c.notDeleted), 'ack not found', int(c.ackNotFound), 'ack failed', int(c.ackFailed)]);
  } else {
    crows.push(['ack failed', int(c.ackFailed), '', '', '', '']);
  }
  if (Number(cfg['groups'] ?? 0) > 0 || c.groupOverlap > 0 || c.reordered > 0) {
    crows.push(['group overlap', int(c.groupOverlap), 'reordered', int(c.reordered), '', '']);
  }
  if (c.notDrained > 0 || c.foreign > 0) crows.push(['not drained', int(c.notDrained), 'foreign', int(c.foreign), '', '']);
  out.push(...table(crows, (i) => i % 2 === 1));
  const notJudged = r.notJudged ?? [];
  if (notJudged.length > 0) {
    out.push(`not judged  ${notJudged.map((n) => CLASS_WORDS[n.class].label).join(', ')}: ${notJudged.map((n) => n.why).join('; ')}`);
  }
  out.push('');
  if (r.fanout) out.push(...fanoutText(r.fanout), '');
  for (const cls of EXAMPLE_CLASSES) {
    const ex = r.examples[cls];
    if (ex.length === 0 || cls === 'redelivered' || cls === 'uncertain') continue;
    out.push(`${CLASS_WORDS[cls].label} examples: ${ex.map(refText).join('; ')}`);
  }
  if (!r.drain.skipped) {
    out.push(
      `drain       ${r.drain.complete ? 'complete' : r.drain.timedOut ? 'timed out (no new message for the drain timeout)' : 'stopped'} after ${fmt(r.drain.durationMs / 1000)} s`,
    );
  }
  if (r.queue.messagesAfter !== null) out.push(`left in queue ${int(r.queue.messagesAfter)}`);
  const k = r.calls;
  if (k.receive > 0) {
    out.push(
      `receives    ${int(k.receive)} calls: ${int(k.receiveWithMessages)} returned messages, ${int(k.receiveEmpty)} empty` +
        (k.receiveFailed > 0 ? `, ${int(k.receiveFailed)} failed` : ''),
    );
  }
  if (l) {
    out.push(
      `listen      ${int(l.notified + l.fallbacks)} waits after an empty read: ${int(l.notified)} ended by a notification, ${int(l.fallbacks)} by the fallback` +
        (l.reconnects > 0 ? `; LISTEN connections made again ${int(l.reconnects)} time(s)` : ''),
    );
  }
  if (r.errors.count > 0) {
    out.push(
      `errors      ${int(r.errors.count)} (${int(r.errors.connection)} connection, ${int(r.errors.other)} other)` +
        `${r.errors.last ? `, last: ${r.errors.last}` : ''}`,
    );
  }
  if (r.database) {
    const [first, ...rest] = databaseLines(r.database);
    out.push(`database    ${first}`, ...rest.map((l) => `            ${l}`));
  }
  out.push(...failoverLines(r));
  for (const w of r.tester.warnings) out.push(`warning: ${w}`);
  const gate = r.maxP99;
  if (gate) {
    const { valueMs } = gate;
    // The limit as given (0.001 ms is not "0.00 ms").
    const limitMs = String(gate.limitMs);
    out.push(
      valueMs === null
        ? // Nothing to judge is never a pass: said plainly, with the reason.
          `--max-p99   not measured (no latency samples): ${gate.notMeasured ?? 'no message completed'}: the ${limitMs} ms limit counts as missed`
        : `--max-p99   ${fmt(valueMs)} ms ${gate.exceeded ? '>' : '<='} ${limitMs} ms${gate.exceeded ? ' (EXCEEDED)' : ''}`,
    );
  }
  if (r.hdrLog) out.push(`hdr log     ${r.hdrLog}`);
  out.push('');
  if (r.failure !== null) out.push(`${r.partial ? 'stopped' : 'failed '}     ${r.failure}`);
  const verdictText: Record<TesterReport['verdict'], string> = {
    failed: r.partial ? 'FAILED (no verdict: the run stopped early)' : 'FAILED (nothing worked: no verdict)',
    interrupted: 'interrupted',
    violations: 'VIOLATIONS',
    incomplete: `incomplete (no violation among what was judged; not judged: ${notJudged.map((n) => CLASS_WORDS[n.class].label).join(', ')})`,
    clean: 'clean',
  };
  out.push(`verdict     ${verdictText[r.verdict]}`);
  return out.join('\n') + '\n';
}
