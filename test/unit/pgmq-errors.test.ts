// The words of a closed connection: "lost" only for one that was made; one the server
// closed while it was being made cannot be lost, it could not be made.
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { describe, expect, test } from 'vitest';
import { openBackend } from '../../src/backends/index.js';
import { mapPgError, networkReason, whileConnecting } from '../../src/backends/pgmq/errors.js';
import type { SmqError } from '../../src/errors.js';

const ctx = { location: 'postgres://u:***@h/db', secrets: [] };

describe('a connection the server closed', () => {
  test('once established: lost the connection', () => {
    for (const e of [
      new Error('Connection terminated unexpectedly'),
      Object.assign(new Error('terminating connection'), { code: '57P01' }),
    ]) {
      const mapped = mapPgError(e, ctx);
      expect(mapped.kind).toBe('connection');
      expect(mapped.line()).toMatch(/^lost the connection to postgres:\/\/u:\*\*\*@h\/db: /);
    }
  });

  test('while it was being made: cannot connect, never "lost"', () => {
    for (const e of [
      new Error('Connection terminated unexpectedly'),
      Object.assign(new Error('terminating connection'), { code: '57P01' }),
    ]) {
      const mapped = mapPgError(whileConnecting(e), ctx);
      expect(mapped.kind).toBe('connection');
      expect(mapped.exitCode).toBe(1);
      expect(mapped.line()).toMatch(
        /^cannot connect to postgres:\/\/u:\*\*\*@h\/db: the server closed the connection before it was made( \(|: )/,
      );
      expect(mapped.line()).not.toContain('lost');
    }
  });

  // A server that closes at once may reset the connection (it had unread bytes from us): the
  // same event as a close, in the same words, not errno text (seen under load in cli-bad-input).
  const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' });
  const broken = () => Object.assign(new Error('write EPIPE'), { code: 'EPIPE', errno: -32, syscall: 'write' });

  // node-postgres' own words ("Connection terminated unexpectedly") add nothing to "lost the
  // connection": the line says what happened once, in smq's words.
  test("the driver's words are not repeated", () => {
    expect(mapPgError(new Error('Connection terminated unexpectedly'), ctx).line()).toBe(
      'lost the connection to postgres://u:***@h/db: the server closed it (restarted, crashed or ended the session); check that it is running',
    );
    expect(mapPgError(whileConnecting(new Error('Connection terminated unexpectedly')), ctx).line()).toBe(
      'cannot connect to postgres://u:***@h/db: the server closed the connection before it was made: check that --url names a PostgreSQL server (or pooler) that is running; its log says why it closed',
    );
  });

  test('reset or broken while it was being made: the same words as a close', () => {
    expect(mapPgError(whileConnecting(reset()), ctx).line()).toBe(
      'cannot connect to postgres://u:***@h/db: the server closed the connection before it was made (the connection was reset): check that --url names a PostgreSQL server (or pooler) that is running; its log says why it closed',
    );
    expect(mapPgError(whileConnecting(broken()), ctx).line()).toMatch(
      /^cannot connect to postgres:\/\/u:\*\*\*@h\/db: the server closed the connection before it was made \(it was closed while smq wrote to it\): /,
    );
  });

  test('reset once established: lost the connection, never "cannot connect"', () => {
    const mapped = mapPgError(reset(), ctx);
    expect(mapped.kind).toBe('connection');
    expect(mapped.line()).toMatch(/^lost the connection to postgres:\/\/u:\*\*\*@h\/db: the connection was reset: /);
  });
});

// Nothing answered: the reason in words, as psql gives it, with the code for scripts; never
// Node's errno text ("ECONNREFUSED connect ECONNREFUSED 127.0.0.1:1"). Real socket errors.
describe('nothing answered', () => {
  const socketError = (host: string, port: number) =>
    new Promise<Error>((resolve) => {
      const s = connect({ host, port });
      s.on('error', resolve);
    });

  test('a port nothing listens on: connection refused, at which address and port', async () => {
    const e = await socketError('127.0.0.1', 1);
    expect((e as { code?: string }).code).toBe('ECONNREFUSED');
    expect(mapPgError(whileConnecting(e), ctx).line()).toBe(
      'cannot connect to postgres://u:***@h/db: connection refused at 127.0.0.1 port 1 (ECONNREFUSED): check --url and that the server is running',
    );
  });

  test('a Unix socket path where no server is: no server socket there, as a connection error', async () => {
    const e = await new Promise<Error>((resolve) => connect({ path: '/nonexistent/dir/.s.PGSQL.5432' }).on('error', resolve));
    expect(mapPgError(whileConnecting(e), ctx).line()).toBe(
      'cannot connect to postgres://u:***@h/db: no server socket at /nonexistent/dir/.s.PGSQL.5432 (ENOENT): check --url and that the server is running',
    );
  });

  test('the words pass through the redaction too: a password that is the address is not shown', async () => {
    const e = await socketError('127.0.0.1', 1);
    const line = mapPgError(whileConnecting(e), { ...ctx, secrets: ['127.0.0.1'] }).line();
    expect(line).toMatch(/connection refused at \S+ port 1 \(ECONNREFUSED\)/);
    expect(line).not.toContain('127.0.0.1');
  });

  test('a host name that does not resolve: not found, by its name', async () => {
    const e = await socketError('nohost.invalid', 5432);
    const code = (e as { code?: string }).code;
    expect(['ENOTFOUND', 'EAI_AGAIN']).toContain(code);
    const line = mapPgError(whileConnecting(e), ctx).line();
    expect(line).toMatch(
      /^cannot connect to postgres:\/\/u:\*\*\*@h\/db: the host name "nohost\.invalid" (was not found|could not be looked up)/,
    );
    expect(line).toContain(`(${code})`);
    expect(line).not.toMatch(/getaddrinfo/);
  });
});

// A name with several addresses (localhost: ::1 and 127.0.0.1) fails at each in its own way:
// each is said with its own failure, not the first one's.
describe('several addresses of one name', () => {
  test('each address with its own failure and code', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 1 });
    const unreachable = Object.assign(new Error('connect EHOSTUNREACH 2001:db8::1:1'), {
      code: 'EHOSTUNREACH',
      address: '2001:db8::1',
      port: 1,
    });
    const both = Object.assign(new AggregateError([refused, unreachable], ''), { code: 'ECONNREFUSED' });
    expect(networkReason(both)).toBe(
      'connection refused at 127.0.0.1 port 1 (ECONNREFUSED); no route to the host at 2001:db8::1 port 1 (EHOSTUNREACH)',
    );
    const twice = Object.assign(new AggregateError([refused, { ...refused, address: '::1' }], ''), { code: 'ECONNREFUSED' });
    expect(networkReason(twice)).toBe('connection refused at 127.0.0.1 port 1 and ::1 port 1 (ECONNREFUSED)');
  });
});

// Every host of a multi-host URL failing: each said in the words one host gets (a server that
// closes at once, one that resets, one that refuses), never the driver's or Node's text.
describe('a multi-host URL where no host connects', () => {
  test('closed, reset and refused hosts, each in words', async () => {
    const closer = createServer((s) => s.destroy());
    const resetter = createServer((s) => s.resetAndDestroy());
    const listen = (srv: Server) => new Promise<number>((r) => srv.listen(0, '127.0.0.1', () => r((srv.address() as AddressInfo).port)));
    const [a, b] = [await listen(closer), await listen(resetter)];
    try {
      const url = `postgres://u:secret@127.0.0.1:${a},127.0.0.1:${b},127.0.0.1:1/db`;
      const line = await openBackend({ kind: 'pgmq', url }, { callTimeoutMs: 5000 }).then(
        () => 'opened',
        (e: SmqError) => e.line(),
      );
      // A server that closes at once is sometimes seen as a reset (it had bytes of ours unread).
      expect(line).toMatch(
        new RegExp(`127\\.0\\.0\\.1:${a}: (the server closed the connection before it was made|the connection was reset);`),
      );
      expect(line).toContain(`127.0.0.1:${b}: the connection was reset;`);
      expect(line).toContain('127.0.0.1:1: connection refused (ECONNREFUSED)');
      expect(line).not.toMatch(/terminated unexpectedly|read ECONNRESET|secret/);
    } finally {
      closer.close();
      resetter.close();
    }
  });
});
