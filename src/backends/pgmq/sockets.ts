// Every socket a pgmq backend opens, so that closing the backend always ends them. A server
// whose processes are stopped never answers a Terminate and never closes its side: a pool's
// end() then waits for ever, and the half-open socket keeps the process alive (top's q, a
// command's exit). node-postgres takes a stream factory (ClientConfig.stream); sockets made
// here are destroyed when the backend closes, and a socket whose client hung up (we sent
// FIN: pool removal, end()) is destroyed if the server has not closed it soon after.
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** How long a socket we have ended may wait for the server's side to close. */
const LINGER_MS = 1_000;

export class SocketTracker {
  private readonly sockets = new Set<Socket>();

  /** `make` makes each socket, given the connection's config (wire-socket.ts's for a tester worker). */
  constructor(private readonly make: (config?: { ssl?: unknown }) => Socket = () => new Socket()) {}

  /** For ClientConfig.stream: a plain socket (node-postgres wraps it in TLS when asked to). */
  readonly stream = (config?: { ssl?: unknown }): Duplex => {
    const socket = this.make(config);
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.once('finish', () => {
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    });
    return socket;
  };

  get size(): number {
    return this.sockets.size;
  }

  destroyAll(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }
}

/**
 * Runs a polite close (`end`), and destroys every socket of `tracker` if it has not finished
 * within `graceMs`. Always resolves, within about graceMs.
 */
export async function closeWithin(end: () => Promise<unknown>, tracker: SocketTracker, graceMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
  });
  await Promise.race([end().catch(() => undefined), late]);
  clearTimeout(timer);
  tracker.destroyAll();
}
