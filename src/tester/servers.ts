// Which server served each phase of a run. Every worker says which server it is on when it
// connects and again after each lost connection (the next one may be on another server: a
// failover); the main thread says so before and after the run. From that: the phases, a
// split brain (a primary on a timeline older than one the run already saw, or of another
// cluster), and in words which server acknowledged what a failover lost or brought back.
import type { ServerIdentity } from '../backends/types.js';

export interface ServerSeen {
  readonly by: 'sender' | 'receiver' | 'main';
  /** The sender's or receiver's index; -1 for the main thread. */
  readonly index: number;
  /** A sender's next sequence number when it saw the server: its sends from there on went to it. -1 otherwise. */
  readonly seq: number;
  /** µs, monotonic. */
  readonly atUs: number;
  readonly identity: ServerIdentity;
}

export interface ServerPhase extends ServerIdentity {
  /**
   * When a connection first and last found itself on it, ms since the run's start (negative:
   * the main thread's look before the run). Connections look when they connect, so a server
   * may serve well past lastSeenMs: until the next phase begins.
   */
  readonly firstSeenMs: number;
  readonly lastSeenMs: number;
  /** How many times a connection found itself on it. */
  readonly connections: number;
}

export interface SplitBrain {
  readonly server: string;
  readonly timeline: number | null;
  readonly systemIdentifier: string | null;
  readonly atMs: number;
  readonly text: string;
}

export interface ServerPhases {
  readonly phases: readonly ServerPhase[];
  /** More than one primary served the run (another server, or a new timeline). */
  readonly failover: boolean;
  readonly splitBrain: readonly SplitBrain[];
}

const keyOf = (i: ServerIdentity) => `${i.server}|${i.systemIdentifier ?? ''}|${i.timeline ?? ''}|${i.inRecovery}`;
export const serverText = (i: ServerIdentity) => (i.timeline === null ? i.server : `${i.server} on timeline ${i.timeline}`);
const secondsText = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function serverPhases(seen: readonly ServerSeen[], runStartUs: number): ServerPhases {
  const ordered = [...seen].sort((a, b) => a.atUs - b.atUs);
  const phases = new Map<string, { identity: ServerIdentity; first: number; last: number; n: number }>();
  for (const s of ordered) {
    const ms = Math.round((s.atUs - runStartUs) / 1000);
    const p = phases.get(keyOf(s.identity));
    if (p) {
      p.last = ms;
      p.n += 1;
    } else phases.set(keyOf(s.identity), { identity: s.identity, first: ms, last: ms, n: 1 });
  }
  const splitBrain: SplitBrain[] = [];
  const named = new Set<string>();
  let cluster: { id: string; server: string } | undefined;
  let newest: ServerIdentity | undefined;
  for (const s of ordered) {
    const i = s.identity;
    if (i.inRecovery) continue;
    const atMs = Math.round((s.atUs - runStartUs) / 1000);
    const flag = (text: string) => {
      if (named.has(keyOf(i))) return;
      named.add(keyOf(i));
      splitBrain.push({ server: i.server, timeline: i.timeline, systemIdentifier: i.systemIdentifier, atMs, text });
    };
    const took = `took the run's connections as a primary at ${secondsText(atMs)}`;
    if (i.systemIdentifier !== null) {
      cluster ??= { id: i.systemIdentifier, server: i.server };
      if (i.systemIdentifier !== cluster.id) {
        flag(
          `${i.server} (system identifier ${i.systemIdentifier}) ${took}, but the run began on system identifier ` +
            `${cluster.id} (${cluster.server}): two primaries (split brain)`,
        );
        continue;
      }
    }
    if (i.timeline === null) continue;
    if (newest?.timeline != null && i.timeline < newest.timeline) {
      flag(
        `${serverText(i)} ${took}, after ${newest.server} had been promoted to timeline ${newest.timeline}: two primaries (split brain)`,
      );
    } else if (newest?.timeline == null || i.timeline > newest.timeline) newest = i;
  }
  const list = [...phases.values()].map((p): ServerPhase => ({
    ...p.identity,
    firstSeenMs: p.first,
    lastSeenMs: p.last,
    connections: p.n,
  }));
  const primaries = new Set(list.filter((p) => !p.inRecovery).map((p) => keyOf(p)));
  return { phases: list, failover: primaries.size > 1, splitBrain };
}

export type AttributedClass = 'lost' | 'resurrected' | 'duplicated';

/**
 * The words the report says about messages a failover lost (their send acknowledged by a
 * server that is no longer the one the run ended on) or brought back (their delete
 * acknowledged by an old primary). Fed one message at a time by the checker's final count.
 */
export class FailoverAttribution {
  /** Per sender: (seq from which on, server), in seq order. */
  private readonly bySender = new Map<number, { seq: number; identity: ServerIdentity }[]>();
  private readonly primaries: ServerIdentity[] = [];
  private readonly counts = new Map<string, { cls: AttributedClass; identity: ServerIdentity | undefined; n: number }>();

  constructor(seen: readonly ServerSeen[]) {
    const ordered = [...seen].sort((a, b) => a.atUs - b.atUs);
    for (const s of ordered) {
      if (!s.identity.inRecovery && !this.primaries.some((p) => keyOf(p) === keyOf(s.identity))) this.primaries.push(s.identity);
      if (s.by !== 'sender') continue;
      const list = this.bySender.get(s.index) ?? [];
      list.push({ seq: s.seq, identity: s.identity });
      this.bySender.set(s.index, list);
    }
    for (const list of this.bySender.values()) list.sort((a, b) => a.seq - b.seq);
  }

  /** The server a sender's message went to: the last one it saw at or before that seq. */
  private senderServer(sender: number, seq: number): ServerIdentity | undefined {
    let found: ServerIdentity | undefined;
    for (const e of this.bySender.get(sender) ?? []) {
      if (e.seq > seq) break;
      found = e.identity;
    }
    return found;
  }

  add(cls: AttributedClass, sender: number, seq: number): void {
    if (this.primaries.length < 2) return;
    const identity = cls === 'lost' ? this.senderServer(sender, seq) : undefined;
    const key = `${cls}|${identity ? keyOf(identity) : ''}`;
    const c = this.counts.get(key);
    if (c) c.n += 1;
    else this.counts.set(key, { cls, identity, n: 1 });
  }

  /** after: the server the run ended on (the read-back's). */
  words(after: ServerIdentity | undefined): string[] {
    if (this.primaries.length < 2 || after === undefined) return [];
    const afterText = `after the failover to ${serverText(after)}`;
    const old = this.primaries.filter((p) => keyOf(p) !== keyOf(after));
    const oldText = old.map(serverText).join(' or ') || 'an earlier server';
    const out: string[] = [];
    for (const c of this.counts.values()) {
      if (c.cls === 'lost') {
        if (c.identity === undefined || keyOf(c.identity) === keyOf(after)) continue;
        out.push(`${c.n} lost: acknowledged by ${serverText(c.identity)}, absent ${afterText}`);
      } else if (c.cls === 'resurrected') {
        out.push(`${c.n} resurrected: their delete was acknowledged by ${oldText}, back ${afterText}`);
      } else {
        out.push(`${c.n} duplicated: held twice ${afterText} (the run began on ${oldText})`);
      }
    }
    return out;
  }
}
