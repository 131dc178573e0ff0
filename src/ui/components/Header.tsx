// The top lines: what we are connected to, refresh state, totals, health, and the outage
// (or, while there is none, the standbys and their lag).
import { Fragment, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { BackendKind, ServerInfo } from '../../backends/types.js';
import { escapeControl } from '../../text/escape.js';
import { counted, formatAge, formatClock, formatCount, formatInterval, formatRate } from '../model/format.js';
import type { MonitorState } from '../model/monitor.js';
import type { Rate } from '../model/rates.js';
import type { Totals } from '../model/rows.js';
import { HEADER_ORDER, type HeaderLine } from '../model/layout.js';

export interface HeaderProps {
  readonly kind: BackendKind;
  readonly info: ServerInfo | undefined;
  /** The connection with its password masked. */
  readonly connection: string;
  readonly intervalMs: number;
  readonly paused: boolean;
  readonly readOnly: boolean;
  /** Said after READ-ONLY when top is read-only for another reason than --read-only. */
  readonly readOnlyReason?: string | undefined;
  readonly totals: Totals;
  readonly rates: Rate;
  readonly monitor: MonitorState;
  readonly refreshingSince: number | undefined;
  readonly now: number;
  readonly hasHealth: boolean;
  /** The current context, when top has several stores (`:` switches). */
  readonly context?: string | undefined;
  /** The lines there is room for (model/layout.ts); all four when omitted. */
  readonly lines?: readonly HeaderLine[] | undefined;
}

export function Header(p: HeaderProps) {
  const server = p.info
    ? `${escapeControl(p.info.serverVersion)} · ${escapeControl(p.info.schema)}`
    : p.kind === 'pgmq'
      ? 'PostgreSQL'
      : 'SQLite';
  const t = p.totals;
  const est = t.estimated;
  const refresh = p.paused ? 'PAUSED' : `every ${formatInterval(p.intervalMs)}`;
  const last = p.monitor.lastRefreshAt !== undefined ? formatClock(new Date(p.monitor.lastRefreshAt)) : 'never';
  // A refresh that takes longer than the interval is worth saying out loud.
  const slow =
    p.refreshingSince !== undefined && p.now - p.refreshingSince > Math.max(p.intervalMs, 1000)
      ? ` · refreshing for ${formatAge((p.now - p.refreshingSince) / 1000)}`
      : '';
  const outage = p.monitor.outage;
  const line: Record<HeaderLine, ReactNode> = {
    title: (
      <Text wrap="truncate-end">
        <Text bold color="cyan">
          smq top
        </Text>
        {p.context !== undefined ? (
          <Text color="magenta" bold>
            {` [${escapeControl(p.context)}]`}
          </Text>
        ) : null}
        {p.readOnly ? (
          <Text color="yellow" bold>
            {p.readOnlyReason && !p.readOnlyReason.includes('--read-only')
              ? ` READ-ONLY: ${escapeControl(p.readOnlyReason)} ·`
              : ' READ-ONLY'}
          </Text>
        ) : null}
        {` ${p.kind} · ${escapeControl(p.connection)} · ${server}`}
      </Text>
    ),
    summary: (
      <Text wrap="truncate-end">
        {`${refresh} · last ${last}${slow} · ${counted(t.queues, 'queue')} · ready ${formatCount(t.ready, est)} · in flight ${formatCount(
          t.inFlight,
          est,
        )} · delayed ${formatCount(t.delayed, est)} · total ${formatCount(t.total, est)} · in ${formatRate(
          p.rates.inPerSec,
          p.rates.approximate,
        )}/s · out ${formatRate(p.rates.outPerSec, p.rates.approximate)}/s`}
      </Text>
    ),
    health: <HealthLine monitor={p.monitor} hasHealth={p.hasHealth} />,
    alert: outage ? (
      <Text color="red" bold wrap="truncate-end">
        {`DATABASE UNREACHABLE since ${formatClock(new Date(outage.since))} · ${outage.failures} failed ${
          outage.failures === 1 ? 'attempt' : 'attempts'
        }, retrying · data from ${last} · ${outage.message}`}
      </Text>
    ) : p.monitor.health?.replication ? (
      <Text wrap="truncate-end">{escapeControl(p.monitor.health.replication)}</Text>
    ) : (
      <Text> </Text>
    ),
  };
  return (
    <Box flexDirection="column">
      {(p.lines ?? HEADER_ORDER).map((l) => (
        <Fragment key={l}>{line[l]}</Fragment>
      ))}
    </Box>
  );
}

function HealthLine({ monitor, hasHealth }: { monitor: MonitorState; hasHealth: boolean }) {
  if (!hasHealth) return <Text dimColor>health: not reported by this backend</Text>;
  if (monitor.healthError && !monitor.health) {
    return (
      <Text color="yellow" wrap="truncate-end">
        {`health: unavailable (${monitor.healthError})`}
      </Text>
    );
  }
  if (!monitor.health) return <Text dimColor>health: …</Text>;
  const warnings = monitor.health.warnings.map(escapeControl);
  return (
    <Text wrap="truncate-end">
      {`health: ${escapeControl(monitor.health.summary)}`}
      {warnings.length > 0 ? <Text color="yellow">{` · ${warnings.join(' · ')}`}</Text> : null}
    </Text>
  );
}
