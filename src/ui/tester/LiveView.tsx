// The tester's live view on stderr: time elapsed and left, progress toward the total, rates
// now and their sparklines, running p50/p99, the backlog and its trend, senders waiting on
// --max-backlog, lagging workers, the faults fired, errors by kind, violations seen so far,
// and the drain.
// Every line fits 80 columns; the only free text (the last error) is cut, not wrapped.
import { Box, Text } from 'ink';
import type { ProgressSnapshot } from '../../tester/index.js';
import { escapeControl } from '../../text/escape.js';
import {
  backlogText,
  count,
  drainText,
  errorsText,
  faultLines,
  laggingLines,
  latencyText,
  messagesLeftText,
  percentText,
  sparkline,
  timeText,
} from './format.js';
import { useTesterProgress, type ProgressSource } from './useTesterProgress.js';

const SPARK_WIDTH = 40;
const BAR_WIDTH = 30;

function progressBar(s: ProgressSnapshot): string {
  if (s.totalToSend === undefined || s.totalToSend === 0) return '';
  const filled = Math.min(BAR_WIDTH, Math.round((s.totals.sent / s.totalToSend) * BAR_WIDTH));
  return '█'.repeat(filled) + '░'.repeat(BAR_WIDTH - filled);
}

export function TesterProgress({ snapshot: s, title }: { snapshot: ProgressSnapshot | undefined; title: string }) {
  if (!s) {
    return <Text dimColor>{escapeControl(title)}: connecting…</Text>;
  }
  const sent = s.series.map((p) => p.sent);
  const received = s.series.map((p) => p.received);
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {escapeControl(title)}
      </Text>
      <Text dimColor>
        {timeText(s)} · {s.phase}
        {s.interrupted ? ' (interrupted: draining briefly)' : ''}
      </Text>
      {s.totalToSend !== undefined ? (
        <Text>
          {progressBar(s)} {percentText(s)} sent {count(s.totals.sent)}/{count(s.totalToSend)} · {messagesLeftText(s)}
        </Text>
      ) : (
        <Text>sent {count(s.totals.sent)}</Text>
      )}
      <Text>
        send{'   '} {count(s.sendRate).padStart(9)}/s <Text color="cyan">{sparkline(sent, SPARK_WIDTH)}</Text>
      </Text>
      <Text>
        receive {count(s.receiveRate).padStart(9)}/s <Text color="green">{sparkline(received, SPARK_WIDTH)}</Text>
      </Text>
      <Text>
        received {count(s.totals.received)} · acked {count(s.totals.acknowledged)} · end-to-end {latencyText(s)}
      </Text>
      <Text>{backlogText(s)}</Text>
      {laggingLines(s).map((l) => (
        <Text key={l} color="yellow">
          {l}
        </Text>
      ))}
      {faultLines(s).map((l, i) => (
        <Text key={`fault-${i}`} color="magenta" wrap="truncate-end">
          {escapeControl(l)}
        </Text>
      ))}
      {s.totals.errors > 0 || s.totals.sendFailed > 0 ? <Text color="yellow">{errorsText(s)}</Text> : null}
      {s.lastError && (s.totals.errors > 0 || s.totals.sendFailed > 0) ? (
        <Text color="yellow" wrap="truncate-end">
          last error: {escapeControl(s.lastError)}
        </Text>
      ) : null}
      {s.violationsSoFar > 0 ? <Text color="red">violations so far: {count(s.violationsSoFar)}</Text> : null}
      {s.drain ? <Text color="magenta">{drainText(s)}</Text> : null}
    </Box>
  );
}

/** Connected view: re-renders on every progress event of the run. */
export function TesterLiveView({ source, title }: { source: ProgressSource; title: string }) {
  const snapshot = useTesterProgress(source);
  return <TesterProgress snapshot={snapshot} title={title} />;
}
