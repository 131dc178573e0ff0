// The socket of a tester worker's connection, reading into one buffer of its own (Node's
// documented `onread` option of net.Socket) instead of a new buffer for every read pushed
// through a Readable stream.
//
// Why: per call, the stream's way allocates a 64 KiB buffer (then shrinks it), wraps it in a
// Buffer, pushes it through the Readable machinery and schedules a tick; on the 4 + 4 cycle
// that was about a twentieth of the tester's CPU (perf, 2026-12-06). With `onread` the reply
// lands in the socket's own buffer and goes straight to the protocol parser.
//
// node-postgres opens the connection on this socket as on any other: until wire.ts takes it
// over, each read is handed on as a 'data' event (a copy), which is all node-postgres listens
// to. A connection that asks for TLS gets a plain socket: TLS then reads it the usual way.
import net from 'node:net';
import type { BackendMessage } from 'pg-protocol/dist/messages.js';
import type { Parser } from 'pg-protocol/dist/parser.js';

/** Where a socket of ours sends what it reads: to node-postgres ('data' events), then to wire.ts. */
interface Reads {
  sink: ((chunk: Buffer) => void) | undefined;
}

const routes = new WeakMap<net.Socket, Reads>();

/** Bytes one read may bring at most (the socket's own buffer). */
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * For node-postgres's `stream` option: a socket that reads into a buffer of its own, unless
 * the connection will ask for TLS (node-postgres calls it with the connection's config).
 */
export function ownReadsSocket(config?: { ssl?: unknown }): net.Socket {
  if (config?.ssl) return new net.Socket();
  const reads: Reads = { sink: undefined };
  // net.connect documents `onread`; net.Socket's constructor is what takes it (node-postgres
  // connects the socket itself), though @types/node lists it for connect only.
  const options: net.SocketConstructorOpts & Pick<net.TcpSocketConnectOpts, 'onread'> = {
    onread: {
      buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
      callback: (n: number, buf: Uint8Array) => {
        const chunk = Buffer.from(buf.buffer, buf.byteOffset, n);
        if (reads.sink) reads.sink(chunk);
        else socket.emit('data', Buffer.from(chunk)); // node-postgres may keep it: a copy
        return true;
      },
    },
  };
  const socket = new net.Socket(options);
  routes.set(socket, reads);
  return socket;
}

/**
 * Sends what `socket` reads from now on to `sink`, which must be done with each chunk when it
 * returns (the next read overwrites it). False when the socket is not one of ours (TLS, or
 * made elsewhere): the caller then listens to 'data' as usual.
 */
export function takeReads(socket: unknown, sink: (chunk: Buffer) => void): boolean {
  const reads = socket instanceof net.Socket ? routes.get(socket) : undefined;
  if (!reads) return false;
  (socket as net.Socket).removeAllListeners('data');
  reads.sink = sink;
  return true;
}

/**
 * Feeds the parser whole messages only, so that it never keeps a reference to a chunk: the
 * socket's next read overwrites it. A message cut between reads waits, its pieces copied and
 * joined once it is whole (a large row over many reads is copied twice, not once per read).
 */
export function wholeMessages(parser: Parser, onMessage: (m: BackendMessage) => void): (chunk: Buffer) => void {
  /** The start of a message not yet whole: copies of the reads that brought it. */
  let pieces: Buffer[] = [];
  let waiting = 0;
  /** The bytes `pieces` must add up to for that message to be whole; 0 until its header is in. */
  let needed = 0;
  return (chunk) => {
    let data = chunk;
    if (waiting > 0) {
      pieces.push(Buffer.from(chunk));
      waiting += chunk.length;
      if (needed === 0 && waiting >= HEADER_BYTES) needed = messageBytes(Buffer.concat(pieces), 0);
      if (needed === 0 || waiting < needed) return;
      data = Buffer.concat(pieces, waiting);
      pieces = [];
      waiting = 0;
      needed = 0;
    }
    let end = 0;
    while (end + HEADER_BYTES <= data.length) {
      const next = end + messageBytes(data, end);
      if (next > data.length) break;
      end = next;
    }
    if (end < data.length) {
      pieces = [Buffer.from(data.subarray(end))];
      waiting = data.length - end;
      needed = waiting >= HEADER_BYTES ? messageBytes(data, end) : 0;
    }
    if (end > 0) parser.parse(end === data.length ? data : data.subarray(0, end), onMessage);
  };
}

/** A message's type byte and its length (which counts itself, not the type byte). */
const HEADER_BYTES = 5;

/** The whole length of the message that starts at `at` (its header must be in `data`). */
function messageBytes(data: Buffer, at: number): number {
  return 1 + data.readUInt32BE(at + 1);
}
