// The words of a closed connection: "lost" only for one that was made; one the server
// closed while it was being made cannot be lost, it could not be made.
import { describe, expect, test } from 'vitest';
import { mapPgError, whileConnecting } from '../../src/backends/pgmq/errors.js';

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
        /^cannot connect to postgres:\/\/u:\*\*\*@h\/db: the server closed the connection before it was made \(/,
      );
      expect(mapped.line()).not.toContain('lost');
    }
  });

  // A server that closes at once may reset the connection (it had unread bytes from us): the
  // same event as a close, in the same words, not errno text (seen under load in cli-bad-input).
  const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' });
  const broken = () => Object.assign(new Error('write EPIPE'), { code: 'EPIPE', errno: -32, syscall: 'write' });

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
