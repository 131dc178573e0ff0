// --topic KEY --bind PATTERN=QUEUE: a fan-out run. The run creates its bound queues (fresh)
// and bindings, senders send with send_topic under the keys in turn (batch by batch), each
// receiver reads one bound queue, and the checker judges every (message, queue) pair.
//
// The delivery checker is reused as it is: queue j's copy of sender s's message is the
// message of a "lane" j * senders + s. A send is recorded, per lane, only in the queues its
// key routes to (as the store's own test_routing says after binding), so a copy that arrives
// where its key does not route is unexpected there, and one that never arrives is lost there.
import type { Backend, ServerInfo } from '../backends/index.js';
import { validateQueueName } from '../backends/names.js';
import { isSmqError, SmqError } from '../errors.js';
import { EXAMPLE_CLASSES, type CheckerSummary, type DeliveryChecker, type MessageRef, type SendOutcome } from './checker.js';
import type { FanoutConfig, TesterConfig } from './config.js';
import { checkConnections } from './connections.js';
import { checkListenSupport } from './listen.js';
import { errorText } from './failures.js';
import { withDeadline } from './lifecycle.js';
import type { PreparedQueue } from './run-queue.js';
import { END_CALL_HURRIED_MS, reconcile, type AfterRunCalls, type Reconciliation } from './verify.js';

/** What the workers need of a fan-out run (WorkerSetup.fanout). */
export interface FanoutSetup {
  readonly keys: readonly string[];
  /** The distinct bound queues; receiver i reads queues[i mod length]. */
  readonly queues: readonly string[];
  /** The run's senders: queue j's copies are the checker's senders j*senders .. j*senders+senders-1. */
  readonly senders: number;
}

/** The run's queues, bindings and routes; created/bound are set as they become true (for the clean-up). */
export interface FanoutPlan extends FanoutSetup {
  readonly batch: number;
  /** routes[k][j]: key k routes to queue j. */
  readonly routes: readonly (readonly boolean[])[];
  readonly patterns: readonly (readonly string[])[];
  readonly created: string[];
  readonly bound: { pattern: string; queue: string }[];
  dropped: boolean;
}

/** The lane of queue j's copy of sender s's messages in the checker. */
export const laneOf = (plan: FanoutSetup, queueIndex: number, sender: number) => queueIndex * plan.senders + sender;

/** The key a send call used: the keys go in turn, one per call, and each call starts at seq = call * batch. */
export const keyIndexOf = (plan: Pick<FanoutPlan, 'keys' | 'batch'>, firstSeq: number) =>
  Math.floor(firstSeq / plan.batch) % plan.keys.length;

export function newFanoutPlan(c: TesterConfig, f: FanoutConfig): FanoutPlan {
  const queues = [...new Set(f.binds.map((b) => b.queue))];
  return {
    keys: f.keys,
    queues,
    senders: c.senders,
    batch: c.batch,
    routes: [],
    patterns: queues.map((q) => f.binds.filter((b) => b.queue === q).map((b) => b.pattern)),
    created: [],
    bound: [],
    dropped: false,
  };
}

/**
 * Refuses what this store cannot do, or a key that would reach queues other than the run's
 * (exit 2, nothing created); creates the queues, binds the patterns, and asks the store where
 * each key goes.
 */
export async function prepareFanout(backend: Backend, c: TesterConfig, plan: FanoutPlan): Promise<PreparedQueue> {
  const info: ServerInfo = await backend.info();
  const { sendTopic, bindTopic, unbindTopic, testRouting } = backend;
  if (!backend.capabilities.topics || !sendTopic || !bindTopic || !unbindTopic || !testRouting) {
    throw new SmqError('usage', `--topic needs pgmq's topics (send_topic, bind_topic), and this store (${info.schema}) has none`, {
      hint: 'pgmq 1.11 added topic routing',
    });
  }
  checkListenSupport(backend, c, info);
  for (const q of plan.queues) validateQueueName(backend.kind, q);
  for (const q of plan.queues) {
    const exists = await backend.queueStats(q).then(
      () => true,
      (e: unknown) => {
        if (isSmqError(e) && e.kind === 'queue-not-found') return false;
        throw e;
      },
    );
    if (exists)
      throw new SmqError('usage', `the queue ${q} exists already`, { hint: '--bind names fresh queues: the run creates and drops them' });
  }
  for (const key of plan.keys) {
    const others = (await testRouting.call(backend, key)).filter((b) => !plan.queues.includes(b.queue));
    if (others.length > 0) {
      const b = others[0]!;
      throw new SmqError('usage', `the key ${key} is routed to the queue ${b.queue} already (pattern ${b.pattern})`, {
        hint: "the run would send into someone else's queue: choose another key",
      });
    }
  }
  await checkConnections(backend, c.senders, c.receivers, c.listen);
  for (const q of plan.queues) {
    if (await backend.createQueue(q, { visibilityTimeoutSec: c.vtSec, maxRetries: -1 })) plan.created.push(q);
  }
  for (const [j, q] of plan.queues.entries()) {
    for (const pattern of plan.patterns[j]!) {
      await bindTopic.call(backend, pattern, q);
      plan.bound.push({ pattern, queue: q });
    }
  }
  const routes = plan.routes as boolean[][];
  for (const key of plan.keys) {
    const to = new Set((await testRouting.call(backend, key)).map((b) => b.queue));
    routes.push(plan.queues.map((q) => to.has(q)));
    // Its sends would store nothing: the run would measure no message at all.
    if (!routes.at(-1)!.includes(true)) {
      throw new SmqError('usage', `the key ${key} reaches none of the --bind queues`, {
        hint: 'a pattern matches word by word: * stands for one word, # for any number (orders.# matches orders.eu.new)',
      });
    }
  }
  return { info, messagesBefore: 0, receiveByRunId: false };
}

/**
 * A sender's send outcome, recorded in the lane of every queue its key routes to. The range
 * may join several calls (run-length merged): it is cut at each call's start (seq = call * batch).
 */
export function recordFanoutSend(
  checker: DeliveryChecker,
  plan: FanoutPlan,
  sender: number,
  first: number,
  count: number,
  o: SendOutcome,
): void {
  const end = first + count;
  for (let from = first; from < end;) {
    const to = Math.min(end, (Math.floor(from / plan.batch) + 1) * plan.batch);
    const routes = plan.routes[keyIndexOf(plan, from)]!;
    for (let j = 0; j < plan.queues.length; j++) if (routes[j]) checker.recordSend(laneOf(plan, j, sender), from, to - from, o);
    from = to;
  }
}

/** After the run: every bound queue counted and read back, each in its own lanes. */
export async function reconcileFanout(
  backend: Backend,
  runId: string,
  checker: DeliveryChecker,
  calls: AfterRunCalls,
  plan: FanoutPlan,
  x: { failure: string | undefined; judgeLoss: boolean; workerFailed: boolean; receivers?: number },
): Promise<Reconciliation> {
  let out: Reconciliation | undefined;
  for (const [j, q] of plan.queues.entries()) {
    const r = await reconcile(backend, q, runId, checker, calls, { ...x, senderOffset: j * plan.senders });
    out =
      out === undefined
        ? r
        : {
            messagesAfter: out.messagesAfter === null || r.messagesAfter === null ? null : out.messagesAfter + r.messagesAfter,
            reachable: out.reachable && r.reachable,
            failure: out.failure ?? r.failure,
            judgeLoss: out.judgeLoss && r.judgeLoss,
            foreignInQueue: out.foreignInQueue + r.foreignInQueue,
            warnings: [...out.warnings, ...r.warnings.map((w) => `${q}: ${w}`)],
          };
    if (!r.reachable) break;
  }
  return out!;
}

/** Bindings removed, queues dropped (unless --keep); the warnings of what could not be. hurried: after a failure. */
export async function cleanUpFanout(backend: Backend, c: TesterConfig, plan: FanoutPlan, hurried = false): Promise<string[]> {
  const warnings: string[] = [];
  const within = <T>(p: Promise<T>) => withDeadline(p, hurried ? END_CALL_HURRIED_MS : 10_000, 'cleaning up');
  for (const b of plan.bound.splice(0)) {
    await within(backend.unbindTopic!(b.pattern, b.queue)).catch((e: unknown) =>
      warnings.push(`the binding ${b.pattern} → ${b.queue} was not removed: ${errorText(e)}`),
    );
  }
  if (!c.keep) {
    for (const q of plan.created.splice(0)) {
      await within(backend.dropQueue(q)).catch((e: unknown) =>
        warnings.push(`the queue ${q} created for the run was not dropped: ${errorText(e)}`),
      );
    }
    plan.dropped = warnings.length === 0;
  }
  return warnings;
}

/** One bound queue in the report. */
export interface FanoutQueueReport {
  readonly queue: string;
  readonly patterns: readonly string[];
  /** Copies its keys routed here (sends the queue acknowledged). */
  readonly expected: number;
  readonly ok: number;
  readonly lost: number;
  readonly unexpected: number;
  /** Double-dequeued, duplicated or resurrected copies in this queue. */
  readonly other: number;
  /** Copies delivered but never deleted by the tester (checker-tally.ts isNotDeleted). */
  readonly notDeleted: number;
}

export interface FanoutReport {
  readonly keys: readonly { readonly key: string; readonly queues: readonly string[] }[];
  readonly queues: readonly FanoutQueueReport[];
}

/** Per-queue counts, told message by message by the checker's summary (TallyInput.every). */
export class FanoutTally {
  private readonly counts: { expected: number; ok: number; lost: number; unexpected: number; other: number; notDeleted: number }[];

  constructor(private readonly plan: FanoutPlan) {
    this.counts = plan.queues.map(() => ({ expected: 0, ok: 0, lost: 0, unexpected: 0, other: 0, notDeleted: 0 }));
  }

  readonly add = (cls: string, lane: number, _seq: number, sent: boolean): void => {
    const n = this.counts[Math.floor(lane / this.plan.senders)];
    if (!n) return;
    if (sent) n.expected += 1;
    if (cls === 'ok' || cls === 'redelivered') n.ok += 1;
    else if (cls === 'lost') n.lost += 1;
    else if (cls === 'unexpected') n.unexpected += 1;
    else if (cls === 'doubleDequeued' || cls === 'duplicated' || cls === 'resurrected') n.other += 1;
    else if (cls === 'notDeleted') n.notDeleted += 1;
  };

  report(): FanoutReport {
    const p = this.plan;
    return {
      keys: p.keys.map((key, k) => ({ key, queues: p.queues.filter((_, j) => p.routes[k]?.[j]) })),
      queues: p.queues.map((queue, j) => ({ queue, patterns: p.patterns[j]!, ...this.counts[j]! })),
    };
  }
}

/** A lane's example as the reports show it: the real sender, the bound queue of the copy, and its message id. */
export function fanoutExample(plan: FanoutSetup, ref: MessageRef): MessageRef {
  if (ref.sender < 0) return ref;
  const queue = plan.queues[Math.floor(ref.sender / plan.senders)] ?? '?';
  const where = { sender: ref.sender % plan.senders, seq: ref.seq, queue };
  return ref.id === undefined ? where : { ...where, id: ref.id };
}

/** The summary with its examples as the reports show them (fanoutExample). */
export function fanoutSummary(s: CheckerSummary, plan: FanoutSetup): CheckerSummary {
  const examples = Object.fromEntries(EXAMPLE_CLASSES.map((k) => [k, s.examples[k].map((e) => fanoutExample(plan, e))]));
  return { ...s, examples: examples as unknown as CheckerSummary['examples'] };
}

/** The text report's lines. */
export function fanoutText(r: FanoutReport): string[] {
  const lines = ['fan-out'];
  for (const k of r.keys) lines.push(`  key ${k.key} → ${k.queues.length > 0 ? k.queues.join(', ') : '(no queue)'}`);
  const w = Math.max(5, ...r.queues.map((q) => q.queue.length));
  lines.push(
    `  ${'queue'.padEnd(w)}  ${'expected'.padStart(9)} ${'ok'.padStart(9)} ${'lost'.padStart(6)} ${'unexpected'.padStart(10)} ${'other'.padStart(6)} ${'not deleted'.padStart(11)}  patterns`,
  );
  for (const q of r.queues) {
    const n = (v: number, width: number) => v.toLocaleString('en-US').padStart(width);
    lines.push(
      `  ${q.queue.padEnd(w)}  ${n(q.expected, 9)} ${n(q.ok, 9)} ${n(q.lost, 6)} ${n(q.unexpected, 10)} ${n(q.other, 6)} ${n(q.notDeleted, 11)}  ${q.patterns.join(' ')}`,
    );
  }
  return lines;
}
