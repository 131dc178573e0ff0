// The lines of a queue's details (`i` on the queue list): how it is stored, as the store tells
// it (Backend.queueDetails). Pure.
import type { QueueDetails, TableDetails } from '../../backends/types.js';
import { escapeName } from '../../text/escape.js';
import { formatAge, formatTimestamp } from './format.js';
import type { Hint } from './hints.js';

/** 1536 -> "1.5 kB", 8192 -> "8.0 kB", 12_582_912 -> "12.0 MB" (powers of 1024, as PostgreSQL's pg_size_pretty). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

const ago = (d: Date | null, now: number) => (d ? `${formatTimestamp(d)}  (${formatAge((now - d.getTime()) / 1000)} ago)` : 'never');
const pad = (label: string) => label.padEnd(18);

function tableLines(t: TableDetails, now: number): string[] {
  const count = (n: number | null) => (n === null ? '-' : n.toLocaleString('en-US'));
  return [
    `${t.role === 'queue' ? 'queue table' : 'archive table'}  ${escapeName(t.name)}`,
    `  ${pad('size')}${formatBytes(t.tableBytes)} table · ${formatBytes(t.indexBytes)} indexes`,
    `  ${pad('tuples')}${count(t.liveTuples)} live · ${count(t.deadTuples)} dead`,
    `  ${pad('last autovacuum')}${ago(t.lastAutovacuum, now)}`,
    `  ${pad('last vacuum')}${ago(t.lastVacuum, now)}`,
    `  ${pad('last autoanalyze')}${ago(t.lastAutoanalyze, now)}`,
    `  ${pad('indexes')}${t.indexes.length === 0 ? 'none' : t.indexes.map(escapeName).join(', ')}`,
  ];
}

export function detailsLines(d: QueueDetails, now: number): string[] {
  const lines = [`${pad('created at')}${ago(d.createdAt, now)}`];
  if (d.unlogged !== undefined) lines.push(`${pad('unlogged')}${d.unlogged ? 'yes (not crash-safe, not replicated)' : 'no'}`);
  if (d.partitioned !== undefined) lines.push(`${pad('partitioned')}${d.partitioned ? 'yes' : 'no'}`);
  if (d.notifyThrottleMs !== undefined) {
    lines.push(`${pad('insert notify')}${d.notifyThrottleMs === null ? 'off' : `on, at most one per ${d.notifyThrottleMs} ms`}`);
  }
  if (d.fifoIndex !== undefined)
    lines.push(`${pad('FIFO index')}${d.fifoIndex === null ? 'none (pgmq.create_fifo_index makes one)' : escapeName(d.fifoIndex)}`);
  if (d.visibilityTimeoutSec !== undefined) lines.push(`${pad('visibility')}${formatAge(d.visibilityTimeoutSec)}`);
  if (d.maxRetries !== undefined) lines.push(`${pad('max retries')}${d.maxRetries}`);
  if (d.rateLimit !== undefined) lines.push(`${pad('rate limit')}${d.rateLimit > 0 ? `${d.rateLimit}/s` : 'none'}`);
  if (d.fileBytes !== undefined) {
    lines.push(`${pad('file')}${formatBytes(d.fileBytes)} · WAL ${formatBytes(d.walBytes ?? 0)} (every queue of the file)`);
  }
  for (const t of d.tables) lines.push('', ...tableLines(t, now));
  return lines;
}

/** The footer while a queue's details are on screen. */
export const DETAILS_HINTS: readonly Hint[] = [
  { text: 'Enter open the queue', rank: 1 },
  { text: 'r refresh', rank: 2 },
  { text: 'Esc back', rank: 0 },
  { text: '? help', rank: 0 },
  { text: '^C quit', rank: 0 },
];
