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
});
