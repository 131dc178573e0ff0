// The one render wrapper of the UI tests: mounts TopApp (or any element) with
// ink-testing-library, and drives input and fake timers inside act() so every test waits
// for events the same way, never for a fixed time.
//
// The test passes its `vi` in as the timers a harness advances; useFakeTimersForInk()
// sets them up for a file's tests and unmounts what each test rendered.
import { act, type ReactElement } from 'react';
import { afterEach, beforeEach, vi } from 'vitest';
import { render } from 'ink-testing-library';
import type { Backend } from '../../../src/backends/types.js';
import { TopApp, type TopAppProps } from '../../../src/ui/components/TopApp.js';
import { ESC_WAIT_MS } from '../../../src/ui/hooks/useKeys.js';

export interface TimerControl {
  advanceTimersByTimeAsync(ms: number): Promise<unknown>;
}

// React wants to know it runs under a test runner to accept act().
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export const KEYS = {
  up: '\u001b[A',
  down: '\u001b[B',
  right: '\u001b[C',
  left: '\u001b[D',
  pageUp: '\u001b[5~',
  pageDown: '\u001b[6~',
  enter: '\r',
  escape: '\u001b',
  backspace: '\u007f',
  ctrlC: '\u0003',
} as const;

export interface Harness {
  /** The last frame as text. */
  frame(): string;
  /** Types keys one by one (each one a separate key press) and lets the app react. */
  press(...keys: string[]): Promise<void>;
  /** Types a string as one paste. */
  paste(text: string): Promise<void>;
  /** Advances the fake clock, running timers and the promises they start. */
  advance(ms: number): Promise<void>;
  /** Lets pending promises (backend calls) settle without moving the clock. */
  settle(): Promise<void>;
  unmount(): void;
  readonly exits: { count: number };
}

/** Harnesses rendered and not yet unmounted (useFakeTimersForInk unmounts them after each test). */
const mounted = new Set<Harness>();

/** The clock of the UI tests: time-stamped rows and ages read the same on every run. */
export const INK_TEST_NOW = new Date('2025-01-02T03:04:05Z');

/**
 * For the tests of a file (or of the describe block it is called in): each runs on fake
 * timers with the clock at INK_TEST_NOW, and whatever it rendered and left mounted is
 * unmounted after it, before real timers are back (an app left mounted would go on
 * refreshing, on real timers, into the next test).
 */
export function useFakeTimersForInk(): void {
  beforeEach(() => {
    vi.useFakeTimers({ now: INK_TEST_NOW });
  });
  afterEach(() => {
    for (const h of [...mounted]) h.unmount();
    vi.useRealTimers();
  });
}

export function renderElement(element: ReactElement, timers: TimerControl, exits = { count: 0 }): Harness {
  let r!: ReturnType<typeof render>;
  act(() => {
    r = render(element);
  });
  const advance = async (ms: number) => {
    await act(async () => {
      await timers.advanceTimersByTimeAsync(ms);
    });
  };
  const h: Harness = {
    frame: () => r.lastFrame() ?? '',
    press: async (...keys: string[]) => {
      for (const k of keys) {
        await act(async () => {
          r.stdin.write(k);
        });
        // A lone Esc is told apart from the start of an escape sequence after a short wait.
        await advance(k === KEYS.escape ? ESC_WAIT_MS : 0);
      }
    },
    paste: async (text: string) => {
      await act(async () => {
        r.stdin.write(text);
      });
      await advance(0);
      // Several keys in one chunk reach a screen one per millisecond: let each run.
      for (let i = 0; i < Array.from(text).length; i++) await advance(1);
    },
    advance,
    settle: () => advance(0),
    // Once: a test may unmount what it rendered itself before the after-each hook does.
    unmount: () => {
      if (!mounted.delete(h)) return;
      act(() => r.unmount());
    },
    exits,
  };
  mounted.add(h);
  return h;
}

export interface RenderTopOptions extends Partial<Omit<TopAppProps, 'backend'>> {
  readonly timers: TimerControl;
}

/** TopApp at 120x40 (unless `size` says otherwise), refreshing every 2 s, read-write. */
export async function renderTop(backend: Backend, options: RenderTopOptions): Promise<Harness> {
  const { timers, ...props } = options;
  const exits = { count: 0 };
  const h = renderElement(
    <TopApp
      backend={backend}
      connection="postgres://smq:***@localhost:5432/smq"
      intervalMs={2000}
      readOnly={false}
      size={{ columns: 120, rows: 40 }}
      {...props}
      onExit={() => {
        exits.count++;
        props.onExit?.();
      }}
    />,
    timers,
    exits,
  );
  // The first refresh starts on mount; let it land.
  await h.settle();
  return h;
}
