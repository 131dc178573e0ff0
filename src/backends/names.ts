// Queue names come from strangers. Validate them before they reach any SQL;
// the SQL itself still quotes identifiers and binds values.
import { SmqError } from '../errors.js';
import type { BackendKind } from './types.js';

export const PGMQ_MAX_NAME_LENGTH = 47;
const SQLITE_MAX_NAME_LENGTH = 255;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function validateQueueName(kind: BackendKind, name: string): string {
  const bad = (why: string, hint: string) =>
    new SmqError('invalid-queue-name', `invalid queue name ${JSON.stringify(name)}: ${why}`, { hint });
  if (name.length === 0) throw bad('it is empty', 'give a non-empty name');
  if (CONTROL.test(name)) throw bad('it contains control characters', 'use printable characters only');
  if (kind === 'pgmq') {
    // Postgres identifiers are limited in bytes; pgmq's table and index names add prefixes.
    const bytes = Buffer.byteLength(name, 'utf8');
    if (bytes > PGMQ_MAX_NAME_LENGTH) {
      throw bad(`it is ${bytes} bytes long`, `pgmq allows at most ${PGMQ_MAX_NAME_LENGTH}`);
    }
    for (const forbidden of ['$', ';', '--', "'"]) {
      if (name.includes(forbidden)) throw bad(`it contains ${JSON.stringify(forbidden)}`, "pgmq rejects names with $ ; -- or '");
    }
    if (!/^[\p{L}\p{N}_]+$/u.test(name)) {
      throw bad('pgmq names are letters, digits and underscores', 'for example orders_v2');
    }
  } else if (name.length > SQLITE_MAX_NAME_LENGTH) {
    throw bad(`it is ${name.length} characters long`, `use at most ${SQLITE_MAX_NAME_LENGTH}`);
  }
  return name;
}
