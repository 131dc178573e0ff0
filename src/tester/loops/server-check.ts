// Which server a loop's connection is on: asked before its first call and again after each
// lost connection (the next connection may be on another server: a failover), and told to
// the main thread (servers.ts puts the phases of the run together from it).
import type { WorkerRole } from '../protocol.js';
import { failed, type LoopContext, type LoopSlot } from './context.js';

/**
 * 'ok': known (or the store cannot tell); 'retry': the question failed, backed off, ask again;
 * 'stop': the loop gives up (as after any failed call).
 */
export async function checkServer(ctx: LoopContext, role: WorkerRole, slot: LoopSlot, seq: number): Promise<'ok' | 'retry' | 'stop'> {
  if (slot.serverUnknown === false) return 'ok';
  const ask = slot.backend.serverIdentity?.bind(slot.backend);
  if (ask === undefined) {
    slot.serverUnknown = false;
    return 'ok';
  }
  const startUs = ctx.clock.nowUs();
  try {
    const identity = await ctx.watch.track(ask(), startUs / 1000);
    slot.serverUnknown = false;
    ctx.recorder.server(role, slot.index, seq, identity);
    return 'ok';
  } catch (e) {
    return (await failed(ctx, slot, e, startUs)) ? 'retry' : 'stop';
  }
}
