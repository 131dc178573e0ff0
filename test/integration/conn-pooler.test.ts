// smq asks the server for a statement_timeout a little inside --timeout (a call it gave up on
// is cancelled there, never landing later). A PgBouncer refuses startup parameters it does not
// track (08P01 "unsupported startup parameter"): smq then connects without it, and works.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { ensureBuilt, runCli } from '../helpers/run-cli.js';

/** An ErrorResponse as a pooler sends it before closing. */
function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.concat([Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0`, 'utf8'), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

/** A proxy that refuses a startup message naming statement_timeout, as PgBouncer does, and passes the rest. */
function pickyPooler(target: URL, refused: string[]): Server {
  return createServer((client: Socket) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 8) return;
      const length = buffered.readInt32BE(0);
      if (buffered.length < length) return;
      const code = buffered.readInt32BE(4);
      if (code === 80877103) {
        // SSLRequest: no TLS here.
        buffered = buffered.subarray(length);
        client.write('N');
        if (buffered.length > 0) onData(Buffer.alloc(0));
        return;
      }
      client.off('data', onData);
      const startup = buffered;
      if (startup.includes('statement_timeout')) {
        refused.push(startup.toString('latin1'));
        client.end(errorResponse('08P01', 'unsupported startup parameter in options: statement_timeout'));
        return;
      }
      const upstream = connect(Number(target.port), target.hostname);
      upstream.write(startup);
      client.pipe(upstream);
      upstream.pipe(client);
      for (const s of [client, upstream]) s.on('error', () => s.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    };
    client.on('data', onData);
  });
}

let pooler: Server;
let poolerUrl: string;
const refused: string[] = [];

beforeAll(async () => {
  ensureBuilt();
  const target = new URL(inject('pgUrl'));
  pooler = pickyPooler(target, refused);
  await new Promise<void>((resolve) => pooler.listen(0, '127.0.0.1', () => resolve()));
  const via = new URL(target.toString());
  via.hostname = '127.0.0.1';
  via.port = String((pooler.address() as { port: number }).port);
  poolerUrl = via.toString();
});
afterAll(() => new Promise<void>((resolve) => pooler.close(() => resolve())));

test('a pooler that refuses statement_timeout: the command connects without it and works', async () => {
  const q = `pooler_${Date.now().toString(36)}`;
  const created = await runCli(['create', q, '--url', poolerUrl]);
  expect(created.code, created.stderr).toBe(0);
  const sent = await runCli(['send', q, '{"via": "pooler"}', '--url', poolerUrl, '--json']);
  expect(sent.code, sent.stderr).toBe(0);
  const peek = await runCli(['peek', q, '--url', poolerUrl, '--json']);
  expect(peek.code, peek.stderr).toBe(0);
  expect(peek.stdout).toContain('pooler');
  // It was asked for, refused, and asked for no more.
  expect(refused.length).toBeGreaterThanOrEqual(1);
  expect(refused.every((s) => s.includes('statement_timeout'))).toBe(true);
  await runCli(['drop', q, '--url', poolerUrl, '--yes']);
});
