// A small TCP proxy that plays the network in tests: down() cuts every connection through it
// and refuses new ones (a network cut or a server restart, as the client sees it); up() lets
// connections through again on the same port.
import { createServer, connect, type Server, type Socket } from 'node:net';

export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  get isUp(): boolean {
    return this.server !== undefined;
  }

  async up(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  /** Cuts every connection and refuses new ones. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
