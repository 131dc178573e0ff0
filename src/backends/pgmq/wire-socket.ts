// The socket of a tester worker's connection, reading into one buffer of its own (Node's
// documented `onread` option of net.Socket) instead of a new buffer for every read pushed
// through a Readable stream.
//
// Why: per call, the stream's way allocates a 64 KiB buffer (then shrinks it), wraps it in a
// Buffer, pushes it through the Readable machinery and schedules a tick; on the 4 + 4 cycle
// that path's functions added up to about 3 to 5% of the tester's CPU samples (perf,
// 2026-12-06), and more in garbage to collect. With `onread` the reply
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
  if (!(socket instanceof net.Socket)) return false;
  const reads = routes.get(socket);
  if (!reads) return false;
  socket.removeAllListeners('data');
  reads.sink = sink;
  return true;
}

/**
 * Feeds the parser whole messages only, so that it never keeps a reference to a chunk: the
 * socket's next read overwrites it. A message cut between reads is copied into a buffer of its
 * own size as its bytes come; the messages after it are parsed where they are.
 */
export function wholeMessages(parser: Parser, onMessage: (m: BackendMessage) => void): (chunk: Buffer) => void {
  /** A message cut between reads: its header while that is incomplete, then a buffer of its whole size. */
  const header = Buffer.alloc(HEADER_BYTES);
  let partial: Buffer | undefined;
  /** Bytes of that message in hand (0: none waiting). */
  let have = 0;
  return (chunk) => {
    let at = 0;
    if (have > 0) {
      if (!partial) {
        at = chunk.copy(header, have, 0, HEADER_BYTES - have);
        have += at;
        if (have < HEADER_BYTES) return;
        partial = Buffer.allocUnsafe(messageBytes(header, 0));
        header.copy(partial);
      }
      const took = chunk.copy(partial, have, at, at + partial.length - have);
      have += took;
      at += took;
      if (have < partial.length) return;
      const whole = partial;
      partial = undefined;
      have = 0;
      parser.parse(whole, onMessage);
    }
    let end = at;
    while (end + HEADER_BYTES <= chunk.length) {
      const next = end + messageBytes(chunk, end);
      if (next > chunk.length) break;
      end = next;
    }
    if (end > at) parser.parse(chunk.subarray(at, end), onMessage);
    if (end < chunk.length) {
      have = chunk.length - end;
      if (have >= HEADER_BYTES) partial = Buffer.allocUnsafe(messageBytes(chunk, end));
      chunk.copy(partial ?? header, 0, end);
    }
  };
}

/** A message's type byte and its length (which counts itself, not the type byte). */
const HEADER_BYTES = 5;

/** The whole length of the message that starts at `at` (its header must be in `data`); a length below its own 4 bytes counts as 4. */
function messageBytes(data: Buffer, at: number): number {
  return 1 + Math.max(4, data.readUInt32BE(at + 1));
}
