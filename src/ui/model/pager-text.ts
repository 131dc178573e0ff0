// What `p` hands to $PAGER (issue 18): the message whole, where the detail view is bounded
// for the screen: its facts, its headers (or attributes) as pretty JSON, and the body
// re-indented when it is JSON, every line in full. Control characters are escaped, as on
// screen: a pager such as `more` would write them raw. Indentation still stops at 16 levels
// (20,000 nested arrays must not become 400 million spaces).
import type { Capabilities, Message } from '../../backends/types.js';
import { detailFacts } from './messages.js';
import { bodyLines, PRETTY_LIMITS, type PrettyLimits } from './pretty.js';

const WHOLE: PrettyLimits = { ...PRETTY_LIMITS, maxLines: Infinity, maxChars: Infinity, maxLineChars: Infinity };

export function pagerText(m: Message, caps: Capabilities, queueLabel: string, now: number): string {
  const lines = [
    `${queueLabel} · ${m.archivedAt !== undefined ? 'archived ' : ''}message ${m.id.toString()}`,
    '',
    ...detailFacts(m, caps, now),
  ];
  if (m.headers && Object.keys(m.headers).length > 0) {
    lines.push('', `${caps.attributes ? 'attributes' : 'headers'} (JSON):`, ...bodyLines(JSON.stringify(m.headers), WHOLE).lines);
  }
  const body = bodyLines(m.body, WHOLE);
  lines.push('', `body${body.json ? ' (JSON)' : ''}, ${m.bodyBytes ?? Buffer.byteLength(m.body, 'utf8')} bytes:`, ...body.lines);
  return `${lines.join('\n')}\n`;
}
