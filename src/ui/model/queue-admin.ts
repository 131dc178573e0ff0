// The words of creating and dropping a queue from top's list (issue 18; hooks/useQueueAdmin
// acts on them). Pure.
import { validateQueueName } from '../../backends/names.js';
import type { BackendKind } from '../../backends/types.js';

/** Why the backend would refuse to create this name, in one line (the check `smq create` makes); undefined when it is fine. */
export function createProblem(kind: BackendKind, name: string): string | undefined {
  try {
    validateQueueName(kind, name, 'create');
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

export interface DropCount {
  readonly total: number;
  readonly estimated: boolean;
  /** pgmq: the archive, which goes with the queue. */
  readonly archived?: number | undefined;
}

/** An empty queue is dropped after a y; one with messages (or an estimate) after its name is typed. */
export function dropNeedsName(c: DropCount): boolean {
  return c.total > 0 || c.estimated;
}

/** "Drop queue orders and its 1,204 messages (and 3 archived)? Type its name to confirm: " */
export function dropQuestion(label: string, c: DropCount): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const archived = c.archived ? ` (and ${n(c.archived)} archived)` : '';
  if (!dropNeedsName(c)) return `Drop queue ${label} (empty${c.archived ? `, ${n(c.archived)} archived` : ''})?`;
  const messages = `${c.estimated ? '~' : ''}${n(c.total)} ${c.total === 1 ? 'message' : 'messages'}`;
  return `Drop queue ${label} and its ${messages}${archived}? Type its name to confirm: `;
}

/**
 * The most messages the drop may find (Backend.dropQueue's atMost): the count the question
 * stated. top asks for that count exactly (queueStats' `exact`): an estimate could be below
 * the true count with nothing sent, and the drop would then refuse every time. Were one ever
 * passed, it is rounded up.
 */
export function dropLimit(c: DropCount): number {
  return Math.max(0, Math.ceil(c.total));
}

/**
 * "not dropped: queue orders now holds 50 messages": a queue confirmed as empty got messages
 * before the y. Confirmed with messages: "… now holds 101 messages (the question said 1):
 * press Ctrl-D again to drop it".
 */
export function notDroppedLine(label: string, messages: number, asked?: DropCount): string {
  const n = (x: number) => `${x.toLocaleString('en-US')} ${x === 1 ? 'message' : 'messages'}`;
  const line = `not dropped: queue ${label} now holds ${n(messages)}`;
  if (!asked || !dropNeedsName(asked)) return line;
  const said = `${asked.estimated ? '~' : ''}${asked.total.toLocaleString('en-US')}`;
  return `${line} (the question said ${said}): press Ctrl-D again to drop it`;
}
