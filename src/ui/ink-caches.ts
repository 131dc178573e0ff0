// Bounds Ink's text caches (see ./ink-cache-hooks.ts) for the interactive screens. Called
// before Ink is first imported: the hook only applies to modules loaded after it.
import { register } from 'node:module';

let registered = false;

export function boundInkCaches(): void {
  if (registered) return;
  registered = true;
  try {
    register('./ink-cache-hooks.js', import.meta.url);
  } catch {
    // Without the hook the screens still work; only a very long session would grow.
  }
}

/** The interactive `smq top`, with Ink's caches bounded. */
export async function loadTopScreen(): Promise<typeof import('./run.js')> {
  boundInkCaches();
  return import('./run.js');
}

/** The tester's live view, with Ink's caches bounded. */
export async function loadTesterScreen(): Promise<typeof import('./tester/render.js')> {
  boundInkCaches();
  return import('./tester/render.js');
}
