// Keyboard input for smq top, one key at a time. Several keys often arrive in one read
// (key repeat, a fast typist, SSH): "\e[B\e[B\e[B\r", "dy", "\ej". React applies state
// changes at the next commit, so a handler called again before that commit would act on
// the state from before the previous key: Down Down Enter opening the first row, Down d
// asking to delete the row above the highlighted one. So keys go through a queue:
//
// - the chunk is parsed into single presses here (model/keyParse), not by Ink;
// - one press is handed to the top-most ready target, then the next waits for the commit
//   that includes what this one did (the owner bumps a counter; its layout effect, which
//   runs after every child's, tells the router): each handler sees the state, and the
//   screen, the previous key left, so a prompt names exactly the row that is highlighted;
// - a target that is still loading what the next key acts on (the page after PgDn, the
//   queue being opened, the reload after a delete) says it is not ready, and the keys wait
//   for it, for HOLD_MS at most; then they go to the screen as it is, so a database that
//   does not answer cannot swallow the keyboard;
// - Ctrl-C does not queue: it quits at once.
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useStdin, type Key } from 'ink';
import { incompleteTail, isTyped, parseKeys, typedKey, type KeyEvent } from '../model/keyParse.js';
import { markerTail, PASTE_END, PASTE_START, PASTE_WAIT_MS, pastedText } from '../model/paste.js';

export type KeyHandler = (input: string, key: Key) => void;

export const LAYER_SCREEN = 0;
export const LAYER_PROMPT = 1;

/** How long keys wait for a screen that is loading before they go to it as it is. */
export const HOLD_MS = 5000;
/** How long the start of an escape sequence waits for the rest of it (vim's ttimeoutlen is 100). */
export const ESC_WAIT_MS = 50;
/**
 * Keys kept while waiting; more than this (a key held down on a hung screen) are dropped.
 * Typed characters in a row are one entry (a paste of 10 KB into a prompt arrives whole);
 * a screen takes them one by one, at most this many of a run.
 */
const MAX_QUEUED = 500;
/** A run of typed characters longer than this is cut (a prompt's text is bounded anyway). */
const MAX_RUN = 1 << 20;

/** A queued press, or a run of typed characters (input longer than one character), or a paste. */
interface Queued {
  input: string;
  readonly key: KeyEvent['key'];
  readonly run: boolean;
  /** Bracketed paste: text for a prompt (line breaks made spaces), never keys for a screen. */
  readonly paste?: boolean;
  /**
   * Set once a screen has started on this run: how many more of its characters a screen may
   * take (MAX_QUEUED in all). Characters that come later for the run are kept only within it.
   */
  left?: number;
}

interface Target {
  readonly handler: KeyHandler;
  readonly active: boolean;
  readonly layer: number;
  /** False while what the next key acts on is still loading. */
  readonly ready: boolean;
  /** Takes a run of typed characters in one call (a text prompt), not one by one. */
  readonly text: boolean;
}

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

export class KeyRouter {
  readonly targets = new Map<symbol, Target>();
  private readonly queue: Queued[] = [];
  /** The owner's commit counter this router waits for (0: not waiting). */
  private awaitedTick = 0;
  private lastTick = 0;
  private pumpScheduled = false;
  private partial = '';
  private partialTimer: ReturnType<typeof setTimeout> | undefined;
  private blockedSince: number | undefined;
  private holdTimer: ReturnType<typeof setTimeout> | undefined;
  /** The app is busy (opening a queue, running an action): keys wait, as for a loading screen. */
  private blocked = false;
  /** Set by the owner: asks React for a commit (a state change of the owner). */
  requestCommit: (tick: number) => void = () => undefined;
  /** Ctrl-C. */
  onInterrupt: () => void = () => undefined;
  /** A paste came while no text prompt was open: dropped (its letters would have been commands). */
  onPasteIgnored: () => void = () => undefined;
  /** The text of a bracketed paste whose end marker has not come yet (undefined: none). */
  private pasting: string | undefined;
  private pasteTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * A chunk of terminal input. An escape sequence cut between two reads is kept until
   * its end arrives (ESC_WAIT_MS at most; then what came is taken as typed: a lone ESC is
   * the Escape key).
   */
  feed(chunk: string): void {
    if (this.partialTimer !== undefined) clearTimeout(this.partialTimer);
    this.partialTimer = undefined;
    if (this.pasteTimer !== undefined) clearTimeout(this.pasteTimer);
    this.pasteTimer = undefined;
    let text = this.partial + chunk;
    this.partial = '';
    // Bracketed pastes, also cut between reads: the text between the markers is one paste.
    for (;;) {
      if (this.pasting !== undefined) {
        const end = text.indexOf(PASTE_END);
        if (end < 0) {
          const keep = markerTail(text, PASTE_END);
          this.addPasted(text.slice(0, text.length - keep));
          this.partial = text.slice(text.length - keep);
          this.pasteTimer = setTimeout(() => {
            this.pasteTimer = undefined;
            this.addPasted(this.partial);
            this.partial = '';
            this.endPaste();
            this.pump();
          }, PASTE_WAIT_MS);
          return;
        }
        this.addPasted(text.slice(0, end));
        this.endPaste();
        text = text.slice(end + PASTE_END.length);
        continue;
      }
      const start = text.indexOf(PASTE_START);
      if (start < 0) break;
      this.take(text.slice(0, start));
      this.pasting = '';
      text = text.slice(start + PASTE_START.length);
    }
    const cut = incompleteTail(text);
    if (cut >= 0) {
      this.partial = text.slice(cut);
      text = text.slice(0, cut);
      this.partialTimer = setTimeout(() => {
        this.partialTimer = undefined;
        const rest = this.partial;
        this.partial = '';
        this.take(rest);
      }, ESC_WAIT_MS);
    }
    this.take(text);
  }

  private addPasted(text: string): void {
    if (this.pasting !== undefined && this.pasting.length < MAX_RUN) this.pasting += text.slice(0, MAX_RUN - this.pasting.length);
  }

  private endPaste(): void {
    const text = this.pasting ?? '';
    this.pasting = undefined;
    if (text !== '' && this.queue.length < MAX_QUEUED) this.queue.push({ input: text, key: {}, run: false, paste: true });
  }

  private take(text: string): void {
    for (const event of parseKeys(text)) {
      if (event.key.ctrl && event.input === 'c') {
        this.queue.length = 0;
        this.onInterrupt();
        return;
      }
      const last = this.queue[this.queue.length - 1];
      if (last?.run && isTyped(event)) {
        if (last.input.length < (last.left ?? MAX_RUN)) last.input += event.input;
      } else if (this.queue.length < MAX_QUEUED) {
        this.queue.push({ input: event.input, key: event.key, run: isTyped(event) });
      }
    }
    this.pump();
  }

  /**
   * A new owner (smq top started over on another context, hooks/useContexts) takes the
   * router with the keys still queued: its commits count from 0.
   */
  adopt(): void {
    this.awaitedTick = 0;
    this.lastTick = 0;
  }

  /** The owner's layout effect, after every commit (children's targets are registered by then). */
  committed(tick: number, blocked: boolean): void {
    this.lastTick = tick;
    this.blocked = blocked;
    this.noteReadiness();
  }

  /** A target's layout effect: it may have become ready (its page loaded) without the owner rendering. */
  targetChanged(id: symbol, target: Target): void {
    this.targets.set(id, target);
    this.noteReadiness();
  }

  private noteReadiness(): void {
    // A wait ends when the screen is ready: the next one gets its full HOLD_MS again.
    if (!this.isWaiting(this.topTarget())) this.blockedSince = undefined;
    if (this.queue.length > 0) this.schedulePump();
  }

  private isWaiting(target: Target | undefined): boolean {
    return this.blocked || target === undefined || !target.ready;
  }

  dispose(): void {
    if (this.holdTimer !== undefined) clearTimeout(this.holdTimer);
    if (this.partialTimer !== undefined) clearTimeout(this.partialTimer);
    if (this.pasteTimer !== undefined) clearTimeout(this.pasteTimer);
    this.pasteTimer = undefined;
    this.holdTimer = undefined;
    this.partialTimer = undefined;
    this.queue.length = 0;
  }

  private topTarget(): Target | undefined {
    let best: Target | undefined;
    for (const t of this.targets.values()) {
      if (t.active && (best === undefined || t.layer >= best.layer)) best = t;
    }
    return best;
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    // Out of the commit that called us: the handler's state changes start a new render.
    queueMicrotask(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.queue.length === 0) return;
    if (this.awaitedTick > this.lastTick) return; // the previous key's commit has not happened yet
    const target = this.topTarget();
    const waiting = this.isWaiting(target);
    if (waiting && !this.waitedLongEnough()) return;
    // Once keys have waited long enough, the rest of this wait goes through too.
    if (!waiting) this.blockedSince = undefined;
    if (target === undefined) {
      this.queue.length = 0; // nobody to take them, even after waiting
      return;
    }
    let input: string;
    let key: Key;
    const head = this.queue[0]!;
    if (head.paste) {
      this.queue.shift();
      if (!target.text) {
        this.onPasteIgnored();
        this.schedulePump();
        return;
      }
      input = pastedText(head.input);
      key = NO_KEY;
    } else if (target.text && head.run) {
      // A prompt takes typed text in one go (a paste of 10 KB is one state change, not 10,000).
      input = '';
      while (this.queue.length > 0 && this.queue[0]!.run) input += this.queue.shift()!.input;
      key = NO_KEY;
    } else if (head.run) {
      // A screen takes typed characters one at a time, as many as a queue of keys holds.
      if (head.left === undefined) {
        head.left = MAX_QUEUED;
        if (head.input.length > MAX_QUEUED) head.input = Array.from(head.input).slice(0, MAX_QUEUED).join('');
      }
      input = String.fromCodePoint(head.input.codePointAt(0)!);
      head.input = head.input.slice(input.length);
      head.left -= 1;
      if (head.input === '' || head.left === 0) this.queue.shift();
      key = { ...NO_KEY, ...typedKey(input) };
    } else {
      this.queue.shift();
      input = head.input;
      key = { ...NO_KEY, ...head.key };
    }
    this.awaitedTick = this.lastTick + 1;
    try {
      target.handler(input, key);
    } finally {
      this.requestCommit(this.awaitedTick);
    }
  }

  /** True once keys have waited HOLD_MS for a busy app or a loading screen. */
  private waitedLongEnough(): boolean {
    const now = Date.now();
    if (this.blockedSince === undefined) this.blockedSince = now;
    if (now - this.blockedSince >= HOLD_MS) return true;
    if (this.holdTimer === undefined) {
      this.holdTimer = setTimeout(
        () => {
          this.holdTimer = undefined;
          this.pump();
        },
        HOLD_MS - (now - this.blockedSince),
      );
    }
    return false;
  }
}

/**
 * The router of the app: reads the terminal (raw mode, Ink's stdin events), and commits
 * once per key. `onInterrupt` is Ctrl-C; while `blocked` (the app is opening a queue or
 * running an action) keys wait as they do for a loading screen. A `shared` router outlives
 * its owner (top switching context): its queue is kept for the next one.
 */
export function useKeyRouter(
  onInterrupt: () => void,
  blocked: boolean,
  shared?: KeyRouter,
  onPasteIgnored: () => void = () => undefined,
): KeyRouter {
  const router = useRef<KeyRouter | undefined>(undefined);
  if (router.current === undefined) {
    router.current = shared ?? new KeyRouter();
    router.current.adopt();
  }
  const r = router.current;
  r.onInterrupt = onInterrupt;
  r.onPasteIgnored = onPasteIgnored;
  const [tick, setTick] = useState(0);
  r.requestCommit = setTick;
  useLayoutEffect(() => {
    r.committed(tick, blocked);
  });
  const { internal_eventEmitter: events, setRawMode } = useStdin();
  useEffect(() => {
    setRawMode(true);
    return () => setRawMode(false);
  }, [setRawMode]);
  useEffect(() => {
    const onInput = (data: string) => r.feed(data);
    events.on('input', onInput);
    return () => {
      events.off('input', onInput);
      if (r !== shared) r.dispose();
    };
  }, [events, r, shared]);
  return r;
}

/** Registers a key handler with the router, refreshed at every commit. */
export function useKeyTarget(
  router: KeyRouter,
  handler: KeyHandler,
  options: { readonly active?: boolean; readonly layer?: number; readonly ready?: boolean; readonly text?: boolean } = {},
): void {
  const id = useRef(Symbol('key target')).current;
  const target: Target = {
    handler,
    active: options.active ?? true,
    layer: options.layer ?? LAYER_SCREEN,
    ready: options.ready ?? true,
    text: options.text ?? false,
  };
  useLayoutEffect(() => {
    router.targetChanged(id, target);
  });
  useLayoutEffect(
    () => () => {
      router.targets.delete(id);
    },
    [router, id],
  );
}
