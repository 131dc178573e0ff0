// Before a run: enough free connections on the server for every sender and receiver.
import type { Backend, ConnectionBudget } from '../backends/index.js';
import { SmqError } from '../errors.js';

/**
 * Every sender and receiver holds a connection of its own (a receiver two with --listen: its
 * LISTEN's too): refuse a run that needs more than the server has free, before anything is
 * created (a usage problem on this server: exit 2).
 */
export async function checkConnections(backend: Backend, senders: number, receivers: number, listen = false): Promise<void> {
  // Optional in the contract: a store without a connection limit (SQLite) has none.
  if (backend.connectionBudget === undefined) return;
  const need = senders + receivers * (listen ? 2 : 1);
  let b: ConnectionBudget;
  try {
    b = await backend.connectionBudget();
  } catch {
    return; // the catalog could not be read: let the connections themselves tell
  }
  if (need <= b.free) return;
  const why =
    b.limitedBy === 'server'
      ? `max_connections ${b.maxConnections}, ${b.inUse} in use, ${b.reserved} reserved for superusers`
      : `the ${b.limitedBy}'s connection limit is ${b.limit}`;
  throw new SmqError(
    'usage',
    `--senders ${senders} --receivers ${receivers}${listen ? ' --listen' : ''} need ${need} connections; the server has ${b.free} free (${why})`,
    {
      hint: 'lower --senders or --receivers, or raise the limit (--threads does not help: each sender and receiver keeps its own connection)',
    },
  );
}
