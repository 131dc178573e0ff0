// The operator's actions of top (issue 18): marks (Space, `*`, `N`), delete / archive / make
// visible on the marked set, move to another queue, restore from the archive, export to
// NDJSON. Each asks once, stating how many, then calls the backend and says how many the
// store actually changed. The marks belong to one queue view (queue and source): another
// view starts without any.
import { useRef, useState } from 'react';
import { stillRunning } from './useNotice.js';
import type { Backend, BulkAction, Message, MessageSelection, MessageSource } from '../../backends/types.js';
import { escapeControl, escapeName } from '../../text/escape.js';
import { exportMessages, defaultExportPath, exportFileExists, exportPathOf } from '../export-ndjson.js';
import { counted } from '../model/format.js';
import {
  caughtMarks,
  caughtWords,
  filterCounted,
  goneWords,
  noneLeftWords,
  shortfallWords,
  isMarked,
  MARK_LIMIT,
  marksText,
  NO_MARKS,
  selectionOf,
  selectionWords,
  toggleMark,
  type Marks,
} from '../model/marks.js';
import { errorText } from '../model/monitor.js';
import type { OpsCommand } from '../model/ops-keys.js';
import type { StateFilter } from '../model/paging.js';
import { typedQueueName, type QueueRef } from '../model/queue-ref.js';
import type { ScreenEntry } from '../model/navigation.js';
import type { Say } from './useQueueActions.js';

export const READ_ONLY_REFUSAL = 'read-only: actions are disabled (top was started with --read-only)';

/** The prompt an operation has open: a question, or a line to type. */
export type OpsModal =
  | { readonly kind: 'confirm'; readonly question: string; readonly onYes: () => void }
  | {
      readonly kind: 'input';
      readonly label: string;
      readonly initial: string;
      readonly hint: string;
      readonly onSubmit: (text: string) => void;
    };

/** Where an operation acts: the queue view on top, its highlighted message, its state filter. */
export interface OpsContext {
  readonly queue: QueueRef;
  readonly source: MessageSource;
  readonly message: Message | undefined;
  readonly state: StateFilter;
  /** The view shows one FIFO group: `*` and `N` (which select by state and reads) are refused there. */
  readonly grouped?: boolean;
  /** False in the message detail: its keys act on that message, whatever is marked. */
  readonly marksApply: boolean;
}

/** Where the operator's keys act: the queue view on top (its marks, its state filter) or the message shown. */
export function opsContextOf(top: ScreenEntry, message: Message | undefined): OpsContext | undefined {
  if (top.kind !== 'queue' && top.kind !== 'message') return undefined;
  const state = top.kind === 'queue' ? top.paging.state : 'all';
  const grouped = top.kind === 'queue' && top.paging.group !== undefined;
  return { queue: top.queue, source: top.source ?? 'queue', message, state, grouped, marksApply: top.kind === 'queue' };
}

export interface OpsOptions {
  readonly readOnly: boolean;
  /** Why actions are off (--read-only, or a role / file that may only read). */
  readonly readOnlyReason?: string | undefined;
  readonly archive: boolean;
  readonly resolveBackend: (queue: QueueRef) => Promise<Backend>;
  readonly say: Say;
  readonly refreshList: () => void;
  /** Opens the archive view of the queue on top. */
  readonly openArchive: () => void;
}

export interface Ops {
  readonly busy: boolean;
  readonly reloadToken: number;
  readonly modal: OpsModal | undefined;
  readonly closeModal: () => void;
  /** The marks of this view (none when they belong to another). */
  readonly marksOf: (queue: QueueRef, source: MessageSource) => Marks;
  readonly command: (cmd: OpsCommand, ctx: OpsContext) => void;
  /** d / a / v with rows marked: one question for all of them. True when it took the key. */
  readonly bulk: (action: BulkAction, ctx: OpsContext) => boolean;
  readonly isMarkedIn: (queue: QueueRef, source: MessageSource) => (m: Message) => boolean;
  readonly marksTextOf: (queue: QueueRef, source: MessageSource) => string;
}

const scopeOf = (queue: QueueRef, source: MessageSource) => `${queue.key}\u0000${source}`;

const BULK_WORDS: Record<BulkAction, { ask: string; done: string }> = {
  delete: { ask: 'Delete', done: 'deleted' },
  archive: { ask: 'Archive', done: 'archived' },
  makeVisible: { ask: 'Make visible now', done: 'made visible' },
};

export function useOps(o: OpsOptions): Ops {
  const [marked, setMarked] = useState<{ scope: string; marks: Marks }>({ scope: '', marks: NO_MARKS });
  const [modal, setModal] = useState<OpsModal | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  /** What the action in progress is called (its notice). */
  const running = useRef('an action');
  const [reloadToken, setReloadToken] = useState(0);
  const { say } = o;

  const marksOf = (queue: QueueRef, source: MessageSource) => (marked.scope === scopeOf(queue, source) ? marked.marks : NO_MARKS);
  const setMarks = (ctx: OpsContext, marks: Marks) => setMarked({ scope: scopeOf(ctx.queue, ctx.source), marks });

  /** Runs one operation: keys wait for it; its answer (or error) goes to the footer. */
  const run = async (label: string, ctx: OpsContext, fn: (b: Backend) => Promise<string>, changes = true) => {
    setBusy(true);
    running.current = label;
    say(`${label}…`, 'working');
    try {
      say(await fn(await o.resolveBackend(ctx.queue)), 'ok');
    } catch (e) {
      say(`${label} failed: ${errorText(e)}`, 'error');
    } finally {
      if (changes) {
        setReloadToken((t) => t + 1);
        o.refreshList();
      }
      setBusy(false);
    }
  };

  /** How many messages the selection takes now, by query (marked ids no longer there are not counted). */
  const countNow = async (b: Backend, ctx: OpsContext, sel: MessageSelection): Promise<number> => {
    if (!b.countSelected) return sel.kind === 'ids' ? sel.ids.length : 0;
    return b.countSelected(ctx.queue.rawName, sel, ctx.source);
  };

  /** The selection and its count, or says why there is none. */
  const selected = async (
    ctx: OpsContext,
  ): Promise<{ b: Backend; sel: MessageSelection; marks: Marks; n: number; words: string; gone: string } | undefined> => {
    const marks = ctx.marksApply ? marksOf(ctx.queue, ctx.source) : NO_MARKS;
    const sel = selectionOf(marks, ctx.message);
    if (!sel) {
      say('no message selected');
      return undefined;
    }
    const b = await o.resolveBackend(ctx.queue);
    const n = marks.kind === 'none' ? 1 : await countNow(b, ctx, sel);
    if (n === 0) {
      say(marks.kind === 'none' ? 'no message selected' : noneLeftWords(marks), 'error');
      return undefined;
    }
    return { b, sel, marks, n, words: selectionWords(marks, ctx.message, n), gone: goneWords(marks, n) };
  };

  /** Asks the store before a prompt opens (a count): keys typed meanwhile wait for the prompt. */
  const guarded = (fn: () => Promise<void>) => {
    if (busy) return say(stillRunning(running.current), 'working');
    setBusy(true);
    fn()
      .catch((e: unknown) => say(errorText(e), 'error'))
      .finally(() => setBusy(false));
  };

  const writeRefused = () => {
    if (!o.readOnly) return false;
    say(o.readOnlyReason ? `read-only: actions are disabled (${o.readOnlyReason})` : READ_ONLY_REFUSAL, 'error');
    return true;
  };

  /** `*` and `N` select by state and reads over the whole queue: not from a view of one group. */
  const refusedInGroup = (ctx: OpsContext) => {
    if (ctx.grouped) say('* and N mark the whole queue, not one group: mark the rows with Space here', 'error');
    return ctx.grouped === true;
  };

  /** `*` and `N`: marks the ids matching now (messages arriving later are not marked). */
  const markFilter = (ctx: OpsContext, minReadCount: number | undefined) =>
    guarded(async () => {
      const b = await o.resolveBackend(ctx.queue);
      if (!b.selectedIds || !b.countSelected) return say('this store cannot select messages by state', 'error');
      const state = ctx.source === 'archive' ? 'all' : ctx.state;
      const sel: MessageSelection = { kind: 'filter', state, ...(minReadCount !== undefined ? { minReadCount } : {}) };
      const ids = await b.selectedIds(ctx.queue.rawName, sel, ctx.source, MARK_LIMIT + 1);
      const matched = ids.length > MARK_LIMIT ? await b.countSelected(ctx.queue.rawName, sel, ctx.source) : ids.length;
      const marks = caughtMarks(ids, state, minReadCount, matched);
      setMarks(ctx, marks);
      if (marks.kind !== 'caught') return say(`marked all ${filterCounted(0, state, minReadCount)} (none)`);
      say(
        `marked ${caughtWords(marks)}${marks.ids.length < marks.matched ? ` (at most ${MARK_LIMIT.toLocaleString('en-US')} at once)` : ''}`,
      );
    });

  const moveTo = (ctx: OpsContext) =>
    guarded(async () => {
      if (writeRefused()) return;
      const s = await selected(ctx);
      if (!s) return;
      setModal({
        kind: 'input',
        label: `Move ${s.words} from ${ctx.queue.label}${ctx.source === 'archive' ? "'s archive" : ''} to queue: `,
        initial: '',
        hint: withGone(s.gone, 'Enter moves · Esc cancels'),
        onSubmit: (typed) => {
          if (typed.trim() === '') return say('move cancelled: no queue named', 'error');
          // Read as the list writes names: `ev\\e` is the queue shown so, not the one shown `ev\e`.
          const read = typedQueueName(typed.trim());
          if ('problem' in read) return say(`move cancelled: ${read.problem}`, 'error');
          const target = read.name;
          void run(`move ${s.words} to ${escapeName(target)}`, ctx, async (b) => {
            const moved = await b.moveMessages!(ctx.queue.rawName, target, s.sel, ctx.source);
            setMarks(ctx, NO_MARKS);
            return `moved ${counted(moved, 'message')} from ${ctx.queue.label} to ${escapeName(target)}${shortfallWords(s.marks, moved)}`;
          });
        },
      });
    });

  const restore = (ctx: OpsContext) =>
    guarded(async () => {
      if (ctx.source !== 'archive') return say(`u restores from the archive: A opens it`);
      if (writeRefused()) return;
      const s = await selected(ctx);
      if (!s) return;
      setModal({
        kind: 'confirm',
        question: `Restore ${s.words} to ${ctx.queue.label}${inParens(s.gone)}?`,
        onYes: () =>
          void run(`restore ${s.words}`, ctx, async (b) => {
            const moved = await b.moveMessages!(ctx.queue.rawName, ctx.queue.rawName, s.sel, 'archive');
            setMarks(ctx, NO_MARKS);
            return `restored ${counted(moved, 'message')} to ${ctx.queue.label}${shortfallWords(s.marks, moved)}`;
          }),
      });
    });

  const exportTo = (ctx: OpsContext) =>
    guarded(async () => {
      const s = await selected(ctx);
      if (!s) return;
      const write = (path: string, overwrite: boolean) =>
        void run(
          `export ${s.words}`,
          ctx,
          async (b) => {
            const n = await exportMessages(b, ctx.queue.rawName, s.sel, ctx.source, path, overwrite);
            return `exported ${counted(n, 'message')} to ${escapeControl(path)}`;
          },
          false,
        );
      setModal({
        kind: 'input',
        label: `Export ${s.words} to file: `,
        initial: defaultExportPath(ctx.queue.rawName, ctx.source),
        hint: withGone(s.gone, 'NDJSON · Enter writes · Esc cancels'),
        onSubmit: (typed) => {
          const path = exportPathOf(typed);
          if (path === '') return say('export cancelled: no file named', 'error');
          let exists: boolean;
          try {
            exists = exportFileExists(path);
          } catch (e) {
            return say(errorText(e), 'error');
          }
          if (!exists) return write(path, false);
          setModal({ kind: 'confirm', question: `${escapeControl(path)} exists. Overwrite it?`, onYes: () => write(path, true) });
        },
      });
    });

  const command: Ops['command'] = (cmd, ctx) => {
    switch (cmd.type) {
      case 'mark':
        if (!ctx.message) return say('no message selected');
        return setMarks(ctx, toggleMark(marksOf(ctx.queue, ctx.source), ctx.message.id));
      case 'markAll':
        if (refusedInGroup(ctx)) return;
        return markFilter(ctx, undefined);
      case 'markReads':
        if (refusedInGroup(ctx)) return;
        return setModal({
          kind: 'input',
          label: 'Mark every message read at least N times, N: ',
          initial: '',
          hint: 'Enter marks · Esc cancels',
          onSubmit: (typed) => {
            // Plain digits only, as `#` reads ids: Number() would take 0x10, 1e2 and 0b1.
            const t = typed.trim();
            const n = /^\d{1,9}$/.test(t) ? Number(t) : Number.NaN;
            if (!Number.isSafeInteger(n)) {
              return say(`not a read count: ${escapeControl(typed)} (a whole number, 0 or more)`, 'error');
            }
            markFilter(ctx, n);
          },
        });
      case 'clearMarks':
        if (marksOf(ctx.queue, ctx.source).kind === 'none') return say('no marks');
        setMarks(ctx, NO_MARKS);
        return say('marks cleared');
      case 'moveTo':
        return moveTo(ctx);
      case 'restore':
        return restore(ctx);
      case 'export':
        return exportTo(ctx);
      case 'archiveView':
        return guarded(async () => {
          const b = await o.resolveBackend(ctx.queue);
          if (!b.peekArchive) return say('this store has no archive', 'error');
          o.openArchive();
        });
    }
  };

  const bulk: Ops['bulk'] = (action, ctx) => {
    const marks = ctx.marksApply ? marksOf(ctx.queue, ctx.source) : NO_MARKS;
    if (ctx.source === 'archive') {
      say(`not in the archive view: u restores, m moves, e exports`);
      return true;
    }
    if (marks.kind === 'none') return false;
    if (o.readOnly) {
      say(o.readOnlyReason ? `read-only: actions are disabled (${o.readOnlyReason})` : READ_ONLY_REFUSAL, 'error');
      return true;
    }
    if (action === 'archive' && !o.archive) {
      say('this backend has no archive', 'error');
      return true;
    }
    guarded(async () => {
      const s = await selected(ctx);
      if (!s) return;
      const w = BULK_WORDS[action];
      setModal({
        kind: 'confirm',
        question: `${w.ask} ${s.words} in ${ctx.queue.label}${inParens(s.gone)}?`,
        onYes: () =>
          void run(`${w.ask.toLowerCase()} ${s.words}`, ctx, async (b) => {
            const changed = await b.actOn!(ctx.queue.rawName, action, s.sel);
            setMarks(ctx, NO_MARKS);
            const why = action === 'makeVisible' ? 'were visible already or gone' : undefined;
            return `${w.done} ${counted(changed, 'message')} in ${ctx.queue.label}${shortfallWords(s.marks, changed, why)}`;
          }),
      });
    });
    return true;
  };

  return {
    busy,
    reloadToken,
    modal,
    closeModal: () => setModal(undefined),
    marksOf,
    command,
    bulk,
    isMarkedIn: (queue, source) => {
      const marks = marksOf(queue, source);
      return (m) => isMarked(marks, m);
    },
    marksTextOf: (queue, source) => marksText(marksOf(queue, source)),
  };
}

const inParens = (gone: string) => (gone ? ` (${gone})` : '');
const withGone = (gone: string, hint: string) => (gone ? `${gone} · ${hint}` : hint);
