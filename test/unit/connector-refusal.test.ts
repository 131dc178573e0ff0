// Which startup errors are a refusal of smq's preferred settings (then it connects again
// without them): what the server's message names decides, not its SQLSTATE; an error about
// the password, the role or the database never does, whatever its words.
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { refusesPreferredSettings } from '../../src/backends/pgmq/connector.js';

const PREFERRED = ['-c statement_timeout=9500'];
const conn = { user: 'app', database: 'orders' };
/** The other settings in the options: the URL's own, smq's --read-only. */
const OTHERS = ['-c search_path=app', '-c default_transaction_read_only=on'];

/** An ErrorResponse as node-postgres hands it to connect()'s caller. */
function serverError(code: string, message: string): pg.DatabaseError {
  const e = new pg.DatabaseError(message, message.length, 'error');
  e.code = code;
  e.severity = 'FATAL';
  return e;
}

describe('a refusal of the preferred settings', () => {
  test.each([
    ['PgBouncer', '08P01', 'unsupported startup parameter in options: statement_timeout'],
    ['PgBouncer before 1.20', '08P01', 'Unsupported startup parameter: options'],
    ['RDS Proxy', '0A000', 'Feature not supported: RDS Proxy currently doesn’t support command-line options.'],
    ['PostgreSQL, an unknown parameter', '42704', 'unrecognized configuration parameter "statement_timeout"'],
    ['PostgreSQL, a bad value', '22023', 'invalid value for parameter "statement_timeout": "x"'],
    ['a pooler with an internal error', 'XX000', 'startup parameter STATEMENT_TIMEOUT is not allowed'],
    ['both named: leaving ours out is worth a try', '08P01', 'unsupported startup parameters: search_path, statement_timeout'],
  ])('%s: %s %s', (_who, code, message) => {
    expect(refusesPreferredSettings(serverError(code, message), PREFERRED, OTHERS, conn)).toBe(true);
  });
});

describe('not a refusal of them', () => {
  test.each([
    ['a wrong password', '28P01', 'password authentication failed for user "statement_timeout"', conn],
    ['no such role', '28000', 'role "options" does not exist', conn],
    ['no such database', '3D000', 'database "statement_timeout" does not exist', conn],
    ['too many connections', '53300', 'too many connections for role "options"', conn],
    ['a server shutting down', '57P01', 'terminating connection due to administrator command (options)', conn],
    ['the database named in another class', '42501', 'permission denied for database "options"', { user: 'app', database: 'options' }],
    ['a parameter of the URL options', '08P01', 'unsupported startup parameter in options: search_path', conn],
    ['smq own --read-only', '08P01', 'unsupported startup parameter in options: default_transaction_read_only', conn],
    ['a custom setting ending in .options', '42704', 'unrecognized configuration parameter "my.options"', conn],
    ['a longer word', '08P01', 'unsupported startup parameter: my_statement_timeout_x', conn],
  ])('%s: %s %s', (_why, code, message, c) => {
    expect(refusesPreferredSettings(serverError(code, message), PREFERRED, OTHERS, c)).toBe(false);
  });

  test('an error that is not the server speaking (a network error, a driver error)', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432 (options)'), { code: 'ECONNREFUSED' });
    expect(refusesPreferredSettings(refused, PREFERRED, OTHERS, conn)).toBe(false);
    expect(refusesPreferredSettings(new Error('unsupported startup parameter: statement_timeout'), PREFERRED, OTHERS, conn)).toBe(false);
  });
});
