// The topics view: every topic binding (pattern → queue, bound at), and what a routing key
// tested at its prompt reaches (pgmq's test_routing: the bindings whose pattern matches).
import type { TopicBinding } from '../../backends/types.js';
import { escapeControl, escapeName } from '../../text/escape.js';
import { formatAge, formatTimestamp } from './format.js';
import type { TableColumn } from './table.js';

export interface BindingRow extends TopicBinding {
  readonly key: string;
  /** The routing key tested last matches this binding. */
  readonly matched: boolean;
}

/** A routing key tested at the prompt, and its answer. */
export type RoutingTest =
  | { readonly key: string; readonly ok: true; readonly matches: readonly TopicBinding[] }
  | { readonly key: string; readonly ok: false; readonly error: string };

const bindingKey = (b: TopicBinding) => `${b.pattern}\u0000${b.queue}`;

export function bindingRows(bindings: readonly TopicBinding[], test: RoutingTest | undefined): BindingRow[] {
  const matched = new Set(test?.ok ? test.matches.map(bindingKey) : []);
  return bindings.map((b) => ({ ...b, key: bindingKey(b), matched: matched.has(bindingKey(b)) }));
}

/** The queues a tested key reaches, once each, in name order. */
export function reachedQueues(test: Extract<RoutingTest, { ok: true }>): string[] {
  return [...new Set(test.matches.map((m) => m.queue))].sort();
}

/** One line: "key orders.eu.created reaches 2 queues: audit, orders_eu (via #, orders.*.created)". */
export function routingLine(test: RoutingTest): string {
  const key = escapeControl(test.key);
  if (!test.ok) return `key ${key}: ${test.error}`;
  const queues = reachedQueues(test);
  if (queues.length === 0) return `key ${key} reaches no queue: a topic send with it would store nothing`;
  const patterns = [...new Set(test.matches.map((m) => m.pattern))].map(escapeControl);
  const noun = queues.length === 1 ? 'queue' : 'queues';
  return `key ${key} reaches ${queues.length} ${noun}: ${queues.map(escapeName).join(', ')} (via ${patterns.join(', ')})`;
}

export function bindingColumns(now: number, tested: boolean): TableColumn<BindingRow>[] {
  const age = (r: BindingRow) => (r.boundAt ? Math.max(0, (now - r.boundAt.getTime()) / 1000) : null);
  const cols: TableColumn<BindingRow>[] = [
    {
      id: 'pattern',
      title: 'PATTERN',
      width: 40,
      align: 'left',
      sortKey: 'P',
      text: (r) => escapeControl(r.pattern),
      value: (r) => r.pattern,
      dropOrder: 0,
      flexible: true,
    },
    { id: 'arrow', title: '→', width: 1, align: 'left', text: () => '→', value: () => null, dropOrder: 3 },
    {
      id: 'queue',
      title: 'QUEUE',
      width: 30,
      align: 'left',
      sortKey: 'Q',
      text: (r) => escapeName(r.queue),
      value: (r) => r.queue,
      dropOrder: 0,
      flexible: true,
    },
    {
      id: 'boundAt',
      title: 'BOUND AT',
      width: 23,
      align: 'left',
      sortKey: 'B',
      text: (r) => formatTimestamp(r.boundAt),
      value: (r) => r.boundAt?.getTime() ?? null,
      dropOrder: 2,
    },
    { id: 'age', title: 'AGE', width: 7, align: 'right', text: (r) => formatAge(age(r)), value: age, dropOrder: 1 },
  ];
  if (tested) {
    cols.splice(0, 0, {
      id: 'match',
      title: 'MATCH',
      width: 5,
      align: 'left',
      sortKey: 'M',
      descByDefault: true,
      text: (r) => (r.matched ? 'yes' : ''),
      value: (r) => (r.matched ? 1 : 0),
      dropOrder: 0,
    });
  }
  return cols;
}

export const DEFAULT_BINDING_SORT = { column: 'pattern', desc: false } as const;
