// smq asks the server for a statement_timeout a little inside --timeout (a call it gave up on
// is cancelled there, never landing later). A PgBouncer refuses startup parameters it does not
// track (08P01 "unsupported startup parameter"): smq then connects without it, and works. So
// it does where another pooler refuses it with another code, naming the parameter or the
// `options` it travels in (RDS Proxy: "doesn't support command-line options"); an error that
// is about something else (a password, a database) is not answered with a second try.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { ensureBuilt, runCli } from '../helpers/run-cli.js';

/** An ErrorResponse as a pooler sends it before closing. */
function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.concat([Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0`, 'utf8'), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

interface Refusal {
  readonly code: string;
  readonly message: string;
}

const PGBOUNCER: Refusal = { code: '08P01', message: 'unsupported startup parameter in options: statement_timeout' };

/** A proxy that refuses a startup message naming statement_timeout (as PgBouncer does, by default) and passes the rest. */
function pickyPooler(target: URL, refused: string[], refusal: Refusal = PGBOUNCER): Server {
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
        client.end(errorResponse(refusal.code, refusal.message));
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

/** The startup messages a server got (SSLRequests answered N and not counted). */
function startupOf(onStartup: (startup: Buffer, client: Socket) => void): (client: Socket) => void {
  return (client) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 8) return;
      const length = buffered.readInt32BE(0);
      if (buffered.length < length) return;
      if (buffered.readInt32BE(4) === 80877103) {
        buffered = buffered.subarray(length);
        client.write('N');
        if (buffered.length > 0) onData(Buffer.alloc(0));
        return;
      }
      client.off('data', onData);
      onStartup(buffered.subarray(0, length), client);
    };
    client.on('data', onData);
    client.on('error', () => client.destroy());
  };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as { port: number }).port;
}

const servers: Server[] = [];
const target = () => new URL(inject('pgUrl'));

/** The suite's database behind a pickyPooler that refuses with `refusal`: its URL and the startups it refused. */
async function behindPooler(refusal?: Refusal): Promise<{ url: string; refused: string[] }> {
  const refused: string[] = [];
  const server = pickyPooler(target(), refused, refusal);
  servers.push(server);
  const via = new URL(target().toString());
  via.hostname = '127.0.0.1';
  via.port = String(await listen(server));
  return { url: via.toString(), refused };
}

beforeAll(() => ensureBuilt());
afterAll(() => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))));

async function createSendPeekDrop(url: string): Promise<void> {
  const q = `pooler_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  const created = await runCli(['create', q, '--url', url]);
  expect(created.code, created.stderr).toBe(0);
  const sent = await runCli(['send', q, '{"via": "pooler"}', '--url', url, '--json']);
  expect(sent.code, sent.stderr).toBe(0);
  const peek = await runCli(['peek', q, '--url', url, '--json']);
  expect(peek.code, peek.stderr).toBe(0);
  expect(peek.stdout).toContain('pooler');
  await runCli(['drop', q, '--url', url, '--yes']);
}

test('a pooler that refuses statement_timeout: the command connects without it and works', async () => {
  const { url, refused } = await behindPooler();
  await createSendPeekDrop(url);
  // It was asked for, refused, and asked for no more.
  expect(refused.length).toBeGreaterThanOrEqual(1);
  expect(refused.every((s) => s.includes('statement_timeout'))).toBe(true);
});

describe('a refusal with another code is recognised by what it names', () => {
  test.each([
    // RDS Proxy refuses the options startup parameter itself, saying so in words, not with 08P01.
    [
      'RDS Proxy (0A000, the options)',
      { code: '0A000', message: 'Feature not supported: RDS Proxy currently doesn’t support command-line options.' },
    ],
    ['a pooler naming the parameter (XX000)', { code: 'XX000', message: 'unsupported startup parameter: statement_timeout' }],
    ['PostgreSQL-style (42704)', { code: '42704', message: 'unrecognized configuration parameter "statement_timeout"' }],
  ])('%s: the command connects without it and works', async (_name, refusal) => {
    const { url, refused } = await behindPooler(refusal);
    await createSendPeekDrop(url);
    expect(refused.length).toBeGreaterThanOrEqual(1);
  });
});

describe('an error about something else is not answered with a second try', () => {
  // The user and database are named after what smq sends, so the words are in the message.
  test.each([
    ['a wrong password (28P01)', '28P01', 'password authentication failed for user "options"'],
    ['a missing database (3D000)', '3D000', 'database "statement_timeout" does not exist'],
  ])('%s: one startup, and its error', async (_name, code, message) => {
    const startups: string[] = [];
    const server = createServer(
      startupOf((startup, client) => {
        startups.push(startup.toString('latin1'));
        client.end(errorResponse(code, message));
      }),
    );
    servers.push(server);
    const port = await listen(server);
    const r = await runCli(['peek', 'q', '--url', `postgres://options:pw@127.0.0.1:${port}/statement_timeout`, '--timeout', '5s']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(message);
    expect(startups).toHaveLength(1);
    expect(startups[0]).toContain('statement_timeout=');
  });
});
