// --listen: a receiver whose read found nothing waits here for the queue's insert
// notification, or the fallback (listen.ts), or the run's stop, whichever comes first.
import type { InsertListener } from '../../backends/index.js';
import type { LoopContext } from './context.js';

/** `since`: the listener's epoch taken before the empty read was sent. */
export async function waitForInsert(ctx: LoopContext, listener: InsertListener, since: number): Promise<void> {
  const { stop, setup, recorder } = ctx;
  if (stop.stopping) return;
  const outcome = await Promise.race([listener.wait(since, setup.listen?.fallbackMs ?? 0), stop.stopped.then(() => 'stopped' as const)]);
  if (outcome === 'notified') recorder.totals.listenNotified += 1;
  else if (outcome === 'timeout') recorder.totals.listenFallbacks += 1;
}
