// The contexts of smq top (several stores, switched with `:`), as data: what the command
// hands the UI, which context is current, which are connected, connecting or failed (with
// one line saying why), and the picker's table. Pure; hooks/useContexts holds the state.
import type { Backend, BackendKind } from '../../backends/types.js';
import { escapeControl } from '../../text/escape.js';
import { cellWidth, cutToCells, fitCells } from '../../text/width.js';

/** One store as top holds it (the command opens it: see commands/top-session.ts). */
export interface ContextStore {
  readonly backend: Backend;
  readonly backendForTenant?: ((tenant: number) => Promise<Backend>) | undefined;
  /** The connection, password masked. */
  readonly connection: string;
  readonly readOnly: boolean;
  readonly readOnlyReason?: string | undefined;
  readonly tenantFilter?: string | undefined;
}

export interface ContextEntry {
  readonly name: string;
  readonly kind: BackendKind;
  /** The connection, password masked (never the text the user gave). */
  readonly location: string;
  /** Read-only as given (--read-only, or the contexts file). */
  readonly readOnly: boolean;
}

/** What the command gives the UI: the contexts, the one open, and how to open another. */
export interface ContextsSetup {
  readonly entries: readonly ContextEntry[];
  readonly current: string;
  /** Contexts that failed to connect before top started (it started on the next one). */
  readonly failures: readonly { readonly name: string; readonly error: unknown }[];
  /** Opens a context's store (once: the same store again after that); rejects with one line's error. */
  readonly open: (name: string) => Promise<ContextStore>;
}

export type ContextState =
  { readonly status: 'open' } | { readonly status: 'connecting' } | { readonly status: 'failed'; readonly error: string };

export interface ContextsModel {
  readonly current: string;
  readonly states: ReadonlyMap<string, ContextState>;
}

export type ContextEvent =
  | { readonly type: 'connecting'; readonly name: string }
  | { readonly type: 'switched'; readonly name: string }
  | { readonly type: 'failed'; readonly name: string; readonly error: string };

export function contextsModel(current: string, failures: readonly { readonly name: string; readonly error: string }[]): ContextsModel {
  const states = new Map<string, ContextState>(failures.map((f) => [f.name, { status: 'failed', error: f.error }]));
  states.set(current, { status: 'open' });
  return { current, states };
}

export function contextEvent(m: ContextsModel, e: ContextEvent): ContextsModel {
  const states = new Map(m.states);
  switch (e.type) {
    case 'connecting':
      states.set(e.name, { status: 'connecting' });
      return { ...m, states };
    case 'switched':
      states.set(e.name, { status: 'open' });
      return { current: e.name, states };
    case 'failed':
      states.set(e.name, { status: 'failed', error: e.error });
      return { ...m, states };
  }
}

/** A store's failure as said in the picker and the footer: `cannot connect` once, then why. */
export function failureText(error: string): string {
  return /^cannot connect\b/i.test(error) ? error : `cannot connect: ${error}`;
}

/** What the STATE column says. */
export function stateText(m: ContextsModel, name: string): string {
  if (name === m.current) return 'current';
  const s = m.states.get(name);
  if (!s) return '-';
  if (s.status === 'connecting') return 'connecting…';
  if (s.status === 'open') return 'connected';
  return failureText(s.error);
}

const GAP = '  ';
const MAX_NAME = 24;
const MAX_LOCATION = 64;

/**
 * The picker's table at `width` cells: the header (with the 2-cell gutter the rows get for
 * the `›` of the highlighted one) and one row per context. The connection shrinks before the
 * name does; STATE, last, takes what is left and is cut.
 */
export function contextTable(entries: readonly ContextEntry[], m: ContextsModel, width: number): { header: string; rows: string[] } {
  const cells = entries.map((e) => [
    escapeControl(e.name),
    e.kind,
    e.readOnly ? 'read-only' : 'read-write',
    escapeControl(e.location),
    escapeControl(stateText(m, e.name)),
  ]);
  const titles = ['NAME', 'STORE', 'MODE', 'CONNECTION', 'STATE'];
  const widest = (i: number, max: number) => Math.min(max, Math.max(titles[i]!.length, ...cells.map((c) => cellWidth(c[i]!))));
  const widths = [widest(0, MAX_NAME), widest(1, 6), widest(2, 10), widest(3, MAX_LOCATION), 5];
  const room = width - 2 - GAP.length * 4;
  // Shrink the connection to leave STATE 14 cells ("cannot connect"), then the name, never below their titles.
  let over = widths.slice(0, 4).reduce((a, b) => a + b, 0) + 14 - room;
  for (const i of [3, 0]) {
    if (over <= 0) break;
    const cut = Math.min(over, widths[i]! - titles[i]!.length);
    widths[i] = widths[i]! - cut;
    over -= cut;
  }
  widths[4] = Math.max(titles[4]!.length, room - widths.slice(0, 4).reduce((a, b) => a + b, 0) - Math.max(0, over));
  const line = (parts: readonly string[]) =>
    cutToCells(parts.map((p, i) => (i === 4 ? cutToCells(p, widths[4]!) : fitCells(p, widths[i]!))).join(GAP), width - 2).trimEnd();
  return { header: `  ${line(titles)}`, rows: cells.map(line) };
}
